// CSV / XYZ / TXT / PTS point clouds: one point per row, comma or whitespace separated, '#' comments.
// Rows are scanned straight from the bytes, by the native parser where the text is plain (delimited-native.ts),
// else here; only files with quoted fields go through csv-parse.
// Coordinates are kept as the doubles the text states (a Float64Array), never rounded to float32.
import { parse as parseCsv } from 'csv-parse/sync';
import { InputError } from '../core/errors.js';
import { AsciiScanner, parseNumberText } from './ascii-numbers.js';
import { badCoordinate, finishGeometry, isExactCoordinate } from './build.js';
import { analyseDelimited, csvParseProblem, type DelimitedLayout } from './delimited-layout.js';
import { readRowsNatively } from './delimited-native.js';
import type { Geometry, ReadOptions } from './geometry.js';
import { nativeReader } from './native-reader.js';

const LF = 10, CR = 13, HASH = 35, COMMA = 44, QUOTE = 34;

export function parseDelimited(bytes: Uint8Array, file: string, format: 'csv' | 'xyz', options: ReadOptions = {}): Geometry {
  const scanner = new AsciiScanner(bytes, file);
  const layout = analyseDelimited(scanner, options.columns);
  if (!layout) return finishGeometry({ positions: new Float64Array(0), dims: 3, format, notes: ['no data rows'] });

  // The native parser reads plain text on every core; anything else is parsed here, from the first row again.
  const native = nativeReader();
  const plain = native && readRowsNatively(native, bytes, scanner.pos, layout, options.threads);
  if (plain) return finishGeometry({ ...plain, dims: layout.dims, format, notes: layout.notes });
  const maxRows = countLines(bytes, scanner.pos);
  const positions = bytes.indexOf(QUOTE, scanner.pos) >= 0
    ? readQuotedRows(bytes, scanner, layout, maxRows)
    : readRows(scanner, layout, maxRows);
  return finishGeometry({ positions, dims: layout.dims, format, notes: layout.notes });
}

// Rows are at most the lines left, so one allocation up front (trimmed at the end) suffices. A lone CR
// ends a line as '\n' does (see ascii-numbers.ts), so it counts too: too small an array would drop rows.
function countLines(bytes: Uint8Array, from: number): number {
  let lines = 1;
  for (let p = bytes.indexOf(LF, from); p >= 0; p = bytes.indexOf(LF, p + 1)) lines++;
  for (let p = bytes.indexOf(CR, from); p >= 0; p = bytes.indexOf(CR, p + 1)) if (bytes[p + 1] !== LF) lines++;
  return lines;
}

function raggedRow(scanner: AsciiScanner, found: string, expected: number): never {
  scanner.fail(`row has ${found} fields, expected ${expected}`);
}

export function readRows(scanner: AsciiScanner, layout: DelimitedLayout, maxRows: number): Float64Array {
  const { columnCount, slots, comma } = layout;
  const positions = new Float64Array(maxRows * 3);
  let row = 0;
  while (scanner.skipToToken()) {
    const base = 3 * row;
    for (let column = 0; column < columnCount; column++) {
      if (column > 0 && comma) {
        scanner.skipInlineSpace();
        if (scanner.peek() !== COMMA) raggedRow(scanner, String(column), columnCount);
        scanner.pos++;
        if (scanner.atLineEnd()) scanner.fail(`empty field in column ${column}`);
      }
      if (scanner.atLineEnd()) raggedRow(scanner, String(column), columnCount);
      const slot = slots[column];
      if (slot < 0) {
        // Unused columns may hold anything (labels, ids); only their presence matters.
        if (comma) skipCommaField(scanner);
        else scanner.skipToken();
        continue;
      }
      if (comma && scanner.peek() === COMMA) scanner.fail(`empty field in column ${column}`);
      const value = scanner.number();
      if (!isExactCoordinate(value)) throw badCoordinate(scanner.file, { line: scanner.line }, value, row);
      positions[base + slot] = value;
    }
    if (!scanner.atLineEnd()) raggedRow(scanner, `more than ${columnCount}`, columnCount);
    scanner.skipRestOfLine();
    row++;
  }
  return row * 3 === positions.length ? positions : positions.slice(0, row * 3);
}

/** Skips to the next comma or the end of the line/comment (a CR, lone or of a CRLF, ends the field). */
function skipCommaField(scanner: AsciiScanner): void {
  const b = scanner.bytes, n = b.length;
  let p = scanner.pos;
  while (p < n && b[p] !== COMMA && b[p] !== LF && b[p] !== CR && b[p] !== HASH) p++;
  scanner.pos = p;
}

/** Slow path for files with quoted fields: csv-parse splits the rows, the scanner's rules read the numbers. */
function readQuotedRows(bytes: Uint8Array, scanner: AsciiScanner, layout: DelimitedLayout, maxRows: number): Float64Array {
  const text = new TextDecoder('latin1').decode(bytes.subarray(scanner.pos));
  const firstLine = scanner.line;
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parseCsv(text, {
      delimiter: layout.comma ? ',' : [' ', '\t'],
      comment: '#',
      // Every line end the scanner knows, mixed as they come: csv-parse's own guess takes the first one
      // it meets for the whole text, and would read the lines of a classic Mac (CR-only) file as one.
      record_delimiter: ['\r\n', '\n', '\r'],
      trim: true,
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
    });
  } catch (error) {
    const lines = (error as { lines?: number }).lines;
    throw new InputError(scanner.file, { line: firstLine + Math.max(0, (lines ?? 1) - 1) }, `malformed CSV: ${csvParseProblem(error)}`);
  }
  const positions = new Float64Array(Math.min(maxRows, records.length) * 3);
  records.forEach(({ record, info }, row) => {
    const line = firstLine + info.lines - 1;
    const fields = layout.comma ? record : record.filter((f) => f !== '');
    if (fields.length !== layout.columnCount) {
      throw new InputError(scanner.file, { line }, `row has ${fields.length} fields, expected ${layout.columnCount}`);
    }
    fields.forEach((field, column) => {
      const slot = layout.slots[column];
      if (slot < 0) return;
      if (field === '') throw new InputError(scanner.file, { line }, `empty field in column ${column}`);
      const value = parseNumberText(field, scanner.file, line);
      if (!isExactCoordinate(value)) throw badCoordinate(scanner.file, { line }, value, row);
      positions[3 * row + slot] = value;
    });
  });
  return positions;
}
