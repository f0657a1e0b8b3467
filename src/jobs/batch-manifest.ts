// Reads the manifest of `xhd batch`: the pairs to compare, one a row, as CSV (a header row naming the columns)
// or JSON Lines (one object a line). Every problem is one InputError naming the manifest and its line (exit 2),
// found before any pair runs.
import { basename, dirname, extname, resolve } from 'node:path';

import { CsvError, parse as parseCsv } from 'csv-parse/sync';

import { InputError, UsageError, ValueSyntaxError } from '../core/errors.js';
import { readInputFile } from '../io/input-file.js';
import { STDIN_NAME } from '../io/stdin-name.js';
import { parseThreshold, THRESHOLD_METRICS, type ThresholdMetric, type ThresholdSpec } from './threshold.js';

export type ManifestFormat = 'csv' | 'jsonl';

/** The columns (CSV) or keys (JSON Lines) that mean something to xhd; any others are echoed back as `fields`. */
export const MANIFEST_KEYS = ['a', 'b', 'threshold', 'metric'] as const;

export interface ManifestRow {
  /** 1-based line of the manifest the row came from. */
  line: number;
  /** The paths as written in the manifest. */
  a: string;
  b: string;
  /** The paths to read: relative ones resolved against the manifest's directory, absolute ones as written. */
  pathA: string;
  pathB: string;
  /** This row's own limit and metric, when it has them (otherwise the command's --fail-above and --metric). */
  threshold?: ThresholdSpec;
  metric?: ThresholdMetric;
  /** The row's other columns (CSV: strings) or keys (JSON Lines: as given), in the manifest's order. */
  fields: Record<string, unknown>;
}

export interface Manifest {
  /** The manifest's path as given on the command line (error messages name it so). */
  path: string;
  format: ManifestFormat;
  rows: ManifestRow[];
}

export function manifestFormat(path: string): ManifestFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  throw new UsageError(`${path}: a batch manifest is a .csv file (header a,b[,threshold][,metric]) or a .jsonl file (one {"a": …, "b": …} a line); got '${basename(path)}'`);
}

export function readManifest(path: string): Manifest {
  if (path === STDIN_NAME) throw new UsageError('the batch manifest must be a file (relative paths in it resolve against its directory), not standard input');
  const format = manifestFormat(path);
  const bytes = readInputFile(path, 'a batch manifest (.csv or .jsonl)');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputError(path, {}, 'is not UTF-8 text');
  }
  return { path, format, rows: parseManifestText(text, path, format, dirname(path)) };
}

/** Parses a manifest's text; `name` is used in messages, `baseDir` resolves relative paths. */
export function parseManifestText(text: string, name: string, format: ManifestFormat, baseDir: string): ManifestRow[] {
  const rows = format === 'csv' ? parseCsvManifest(text.replace(/^\uFEFF/, ''), name, baseDir) : parseJsonlManifest(text.replace(/^\uFEFF/, ''), name, baseDir);
  if (rows.length === 0) throw new InputError(name, {}, 'lists no pairs');
  return rows;
}

interface RawRow {
  line: number;
  a: unknown;
  b: unknown;
  threshold: unknown;
  metric: unknown;
  fields: Record<string, unknown>;
}

function parseCsvManifest(text: string, name: string, baseDir: string): ManifestRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parseCsv(text, { info: true, skip_empty_lines: true, trim: true, relax_column_count: true });
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      throw new InputError(name, line ? { line } : {}, error.message.replace(/ (on|at) line \d+$/, ''));
    }
    throw error;
  }
  // A row of empty fields (",,", spaces) is a blank line too.
  records = records.filter((r) => r.record.some((field) => field !== ''));
  if (records.length === 0) return [];

  const header = records[0];
  const columns = header.record.map((c) => (MANIFEST_KEYS as readonly string[]).includes(c.toLowerCase()) ? c.toLowerCase() : c);
  const seen = new Set<string>();
  for (const c of columns) {
    if (c === '') throw new InputError(name, { line: header.info.lines }, 'the header has an unnamed column');
    if (seen.has(c)) throw new InputError(name, { line: header.info.lines }, `the header names column '${c}' twice`);
    seen.add(c);
  }
  for (const required of ['a', 'b']) {
    if (!seen.has(required)) {
      throw new InputError(name, { line: header.info.lines },
        `the header has no '${required}' column (the first line names the columns: a, b, and optionally threshold, metric)`);
    }
  }

  return records.slice(1).map(({ record, info }) => {
    if (record.length !== columns.length) {
      throw new InputError(name, { line: info.lines }, `${record.length} field${record.length === 1 ? '' : 's'}, but the header has ${columns.length} columns`);
    }
    const raw: RawRow = { line: info.lines, a: undefined, b: undefined, threshold: undefined, metric: undefined, fields: {} };
    columns.forEach((column, i) => {
      const value = record[i];
      if (column === 'a' || column === 'b') raw[column] = value;
      else if (column === 'threshold' || column === 'metric') raw[column] = value === '' ? undefined : value;
      else raw.fields[column] = value;
    });
    return checkRow(raw, name, baseDir);
  });
}

function parseJsonlManifest(text: string, name: string, baseDir: string): ManifestRow[] {
  const rows: ManifestRow[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const source = lines[i].trim();
    if (source === '') continue;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      throw new InputError(name, { line }, `not valid JSON: ${(error as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new InputError(name, { line }, 'expected a JSON object such as {"a": "x.ply", "b": "y.ply"}');
    }
    const object = value as Record<string, unknown>;
    const raw: RawRow = { line, a: object.a, b: object.b, threshold: object.threshold ?? undefined, metric: object.metric ?? undefined, fields: {} };
    for (const [key, v] of Object.entries(object)) if (!(MANIFEST_KEYS as readonly string[]).includes(key)) raw.fields[key] = v;
    rows.push(checkRow(raw, name, baseDir));
  }
  return rows;
}

function checkRow(raw: RawRow, name: string, baseDir: string): ManifestRow {
  const fail = (detail: string): never => {
    throw new InputError(name, { line: raw.line }, detail);
  };
  const path = (key: 'a' | 'b'): string => {
    const v = raw[key];
    if (v === undefined || v === null || v === '') fail(`no path in '${key}'`);
    if (typeof v !== 'string') fail(`'${key}' must be a path (a string), got ${JSON.stringify(v)}`);
    if (v === STDIN_NAME) fail(`'${key}' is '-' (standard input), which a batch cannot read; name a file`);
    return v as string;
  };
  const a = path('a'), b = path('b');
  const row: ManifestRow = { line: raw.line, a, b, pathA: resolve(baseDir, a), pathB: resolve(baseDir, b), fields: raw.fields };
  if (raw.threshold !== undefined) row.threshold = thresholdOf(raw.threshold, fail);
  if (raw.metric !== undefined) {
    if (typeof raw.metric !== 'string' || !(THRESHOLD_METRICS as readonly string[]).includes(raw.metric)) {
      fail(`metric: expected one of ${THRESHOLD_METRICS.join(', ')}, got ${JSON.stringify(raw.metric)}`);
    }
    row.metric = raw.metric as ThresholdMetric;
  }
  return row;
}

/** A limit as a number (JSON Lines) or as text like --fail-above takes: "0.5", "1%". */
function thresholdOf(value: unknown, fail: (detail: string) => never): ThresholdSpec {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) fail(`threshold: expected a distance >= 0, got ${value}`);
    return { value, percent: false, text: String(value) };
  }
  if (typeof value !== 'string') return fail(`threshold: expected a number or a string such as "1%", got ${JSON.stringify(value)}`);
  try {
    return parseThreshold(value);
  } catch (error) {
    if (error instanceof ValueSyntaxError) fail(`threshold: ${error.message}`);
    throw error;
  }
}
