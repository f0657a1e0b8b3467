// A manifest of a join collection: one mesh file per object, as CSV (a header naming a `path` column and
// optionally an `id` column) or JSON Lines (objects with `path` and optionally `id`). Paths are relative to
// the manifest's directory. Blank lines and, in CSV, lines starting with `#` are skipped. Every problem is an
// InputError naming the manifest and its line.
import { readFileSync } from 'node:fs';

import { InputError } from '../core/errors.js';

export interface ManifestEntry {
  path: string;
  /** The id column's value, when the manifest has one. */
  id?: string;
  line: number;
}

/** A CSV field list: commas separate, double quotes quote (a doubled quote inside is one quote). */
function csvFields(line: string, file: string, lineNumber: number): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new InputError(file, { line: lineNumber }, 'unterminated quoted field');
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      if (i < line.length && line[i] !== ',') throw new InputError(file, { line: lineNumber }, 'expected a comma after a quoted field');
    } else {
      const end = line.indexOf(',', i);
      field = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    }
    fields.push(field.trim());
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(path, {}, code === 'ENOENT' ? 'no such file' : `cannot read: ${(err as Error).message}`);
  }
}

function parseCsv(text: string, file: string): ManifestEntry[] {
  const lines = text.split(/\r?\n/);
  let columns: { path: number; id: number } | null = null;
  const entries: ManifestEntry[] = [];
  lines.forEach((raw, index) => {
    const line = raw.trim();
    const lineNumber = index + 1;
    if (line === '' || line.startsWith('#')) return;
    const fields = csvFields(line, file, lineNumber);
    if (columns === null) {
      const names = fields.map((f) => f.toLowerCase());
      const path = names.indexOf('path');
      if (path < 0) throw new InputError(file, { line: lineNumber }, 'expected a header line naming a `path` column (and optionally `id`)');
      columns = { path, id: names.indexOf('id') };
      return;
    }
    const path = fields[columns.path];
    if (path === undefined || path === '') throw new InputError(file, { line: lineNumber }, 'no path');
    const id = columns.id >= 0 ? fields[columns.id] : undefined;
    if (columns.id >= 0 && (id === undefined || id === '')) throw new InputError(file, { line: lineNumber }, 'no id');
    entries.push({ path, id, line: lineNumber });
  });
  if (columns === null) throw new InputError(file, {}, 'the manifest is empty (expected a header line naming a `path` column)');
  return entries;
}

function parseJsonLines(text: string, file: string): ManifestEntry[] {
  const entries: ManifestEntry[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    const lineNumber = index + 1;
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new InputError(file, { line: lineNumber }, `not JSON: ${(err as Error).message}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InputError(file, { line: lineNumber }, 'expected a JSON object with a "path"');
    const { path, id } = value as { path?: unknown; id?: unknown };
    if (typeof path !== 'string' || path === '') throw new InputError(file, { line: lineNumber }, 'expected a non-empty string "path"');
    if (id !== undefined && (typeof id !== 'string' || id === '') && typeof id !== 'number') {
      throw new InputError(file, { line: lineNumber }, '"id" must be a non-empty string or a number');
    }
    entries.push({ path, id: id === undefined ? undefined : String(id), line: lineNumber });
  });
  return entries;
}

/** Whether a path names a manifest (by its extension). */
export function isManifestPath(path: string): boolean {
  return /\.(csv|jsonl|ndjson)$/i.test(path);
}

/** The manifest's entries in order; an empty manifest is an error. */
export function readManifest(file: string): ManifestEntry[] {
  const text = readText(file);
  const entries = /\.csv$/i.test(file) ? parseCsv(text, file) : parseJsonLines(text, file);
  if (entries.length === 0) throw new InputError(file, {}, 'the manifest lists no files');
  return entries;
}
