// Works out the shape of a CSV/XYZ/TXT/PTS file from its first lines: separator, header row,
// column count, and which columns hold x, y (and z). Only these few lines become strings.
import { formatCount } from '../core/counts.js';
import { parse as parseCsv } from 'csv-parse/sync';
import { InputError, UsageError } from '../core/errors.js';
import { AsciiScanner, parseNumberText } from './ascii-numbers.js';

const CR = 13, HASH = 35, COMMA = 44, QUOTE = 34, SPACE = 32, TAB = 9, PLUS = 43, MINUS = 45, DOT = 46;

/**
 * Rows with more fields than this are not taken at face value. A single such line is refused: thousands
 * of values and no second row is a file whose line breaks were lost (or never written), and reading its
 * first 3 values as the only point would be a silent wrong answer. Consistent rows this wide are read,
 * with a note that most of each row is ignored. Such lines are also looked at from their bytes only:
 * csv-parse takes seconds per million fields and a string per field costs gigabytes.
 */
const MANY_FIELDS = 1000;

export interface DelimitedLayout {
  /** Fields are separated by commas (else by runs of spaces/tabs). */
  comma: boolean;
  columnCount: number;
  /** Output slot (0 = x, 1 = y, 2 = z) for each column, or -1 for columns that are not read. */
  slots: Int8Array;
  dims: 2 | 3;
  notes: string[];
}

interface LineSpan {
  start: number;
  /** End of the content: before any '#' comment, trailing CR and the newline. */
  end: number;
  line: number;
}

/** The line at the scanner's position (which must be at a token), without moving the scanner. */
function spanAt(scanner: AsciiScanner): LineSpan {
  const b = scanner.bytes;
  // A lone CR ends the line (ascii-numbers.ts says why), so "1 2\r3" is the line "1 2" and then "3".
  let end = scanner.lineEnd(scanner.pos);
  const hash = b.subarray(scanner.pos, end).indexOf(HASH);
  if (hash >= 0) end = scanner.pos + hash;
  while (end > scanner.pos && (b[end - 1] === CR || b[end - 1] === SPACE || b[end - 1] === TAB)) end--;
  return { start: scanner.pos, end, line: scanner.line };
}

function spanText(bytes: Uint8Array, span: LineSpan): string {
  return new TextDecoder('latin1').decode(bytes.subarray(span.start, span.end));
}

/**
 * Splits one line into trimmed fields with csv-parse (handles quoting); used for a line or two only. A line
 * csv-parse cannot split (an unclosed quote, text after a closing quote) is an input error at that line.
 */
function splitFields(text: string, comma: boolean, file: string, line: number): string[] {
  let records: string[][];
  try {
    records = parseCsv(text, { delimiter: comma ? ',' : [' ', '\t'], trim: true, relax_quotes: true }) as string[][];
  } catch (error) {
    throw new InputError(file, { line }, `malformed CSV: ${csvParseProblem(error)}`);
  }
  const fields = records[0] ?? [];
  return comma ? fields : fields.filter((f) => f !== '');
}

/** csv-parse's message without its own line count, which counts from the text it was given, not the file. */
export function csvParseProblem(error: unknown): string {
  return (error as Error).message.split('\n')[0].replace(/ (at|on) line \d+$/, '');
}

function isNumeric(field: string): boolean {
  try {
    parseNumberText(field, '', 0);
    return field.trim() !== '';
  } catch {
    return false;
  }
}

/**
 * A header has a non-numeric field, and none of its fields is empty or a malformed number
 * ("1;2;3", "1.2.3", "1,2,3,"): those are broken data rows and must be reported, not skipped.
 */
function isHeaderRow(fields: string[]): boolean {
  const text = fields.filter((f) => !isNumeric(f));
  return text.length > 0 && text.every((f) => f !== '' && !/^[-+.\d]/.test(f));
}

/** Fields on a data line, counted straight from the bytes (no quoting on the fast path). */
function countFields(bytes: Uint8Array, span: LineSpan, comma: boolean): number {
  let fields = 0;
  if (comma) {
    fields = 1;
    for (let p = span.start; p < span.end; p++) if (bytes[p] === COMMA) fields++;
    return fields;
  }
  let inField = false;
  for (let p = span.start; p < span.end; p++) {
    const space = bytes[p] === SPACE || bytes[p] === TAB || bytes[p] === CR;
    if (!space && !inField) fields++;
    inField = !space;
  }
  return fields;
}

function hasByte(bytes: Uint8Array, span: LineSpan, byte: number): boolean {
  return bytes.subarray(span.start, span.end).indexOf(byte) >= 0;
}

/** Fields of a line without quotes, trimmed of blanks as csv-parse trims them: visit returns false to stop. */
function forEachPlainField(bytes: Uint8Array, span: LineSpan, comma: boolean, visit: (start: number, end: number) => boolean): void {
  const blank = (c: number) => c === SPACE || c === TAB;
  let p = span.start;
  while (p < span.end) {
    while (p < span.end && blank(bytes[p])) p++;
    if (p === span.end && !comma) return;
    let end = p;
    while (end < span.end && (comma ? bytes[end] !== COMMA : !blank(bytes[end]))) end++;
    const next = end;
    while (end > p && blank(bytes[end - 1])) end--;
    if (!visit(p, end)) return;
    if (next === span.end) return;
    p = next + (comma ? 1 : 0);
    if (comma && p === span.end) {
      visit(p, p); // "1,2," ends in an empty field
      return;
    }
  }
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Whether bytes [start, end) are a whole number as parseNumberText reads one (isNumeric, without strings). */
function isNumericBytes(bytes: Uint8Array, start: number, end: number): boolean {
  let p = start;
  if (p < end && (bytes[p] === PLUS || bytes[p] === MINUS)) p++;
  let digits = 0;
  while (p < end && isDigit(bytes[p])) p++, digits++;
  if (p < end && bytes[p] === DOT) for (p++; p < end && isDigit(bytes[p]); p++) digits++;
  if (digits === 0) {
    if (end - p !== 3 && end - p !== 8) return false;
    const word = new TextDecoder('latin1').decode(bytes.subarray(p, end)).toLowerCase();
    return word === 'nan' || word === 'inf' || word === 'infinity';
  }
  if (p < end && (bytes[p] | 0x20) === 0x65 /* e */) {
    p++;
    if (p < end && (bytes[p] === PLUS || bytes[p] === MINUS)) p++;
    const exponent = p;
    while (p < end && isDigit(bytes[p])) p++;
    if (p === exponent) return false;
  }
  return p === end;
}

/** isHeaderRow for a long line without quotes, from its bytes: its fields as strings if it is a header. */
function longLineHeader(bytes: Uint8Array, span: LineSpan, comma: boolean): string[] | undefined {
  let names = 0, header = true;
  forEachPlainField(bytes, span, comma, (start, end) => {
    if (isNumericBytes(bytes, start, end)) return true;
    const c = bytes[start];
    if (start === end || c === PLUS || c === MINUS || c === DOT || isDigit(c)) return (header = false);
    names++;
    return true;
  });
  if (!header || names === 0) return undefined;
  const fields: string[] = [];
  const latin1 = new TextDecoder('latin1');
  forEachPlainField(bytes, span, comma, (start, end) => fields.push(latin1.decode(bytes.subarray(start, end))) > 0);
  return fields;
}

/** True when a row (anything but blanks and comments) follows the line of `span`. */
function rowFollows(scanner: AsciiScanner, span: LineSpan): boolean {
  const after = new AsciiScanner(scanner.bytes, scanner.file, { start: scanner.lineEnd(span.start) });
  return after.skipToToken();
}

/** A line of more than MANY_FIELDS fields with nothing after it: refused (see MANY_FIELDS). */
function refuseLoneWideLine(scanner: AsciiScanner, span: LineSpan, fields: number): void {
  if (fields <= MANY_FIELDS || rowFollows(scanner, span)) return;
  throw new InputError(scanner.file, { line: span.line },
    `line holds ${formatCount(fields)} values and no row follows it: the file seems to have no line breaks`);
}

/**
 * The first line's fields, as strings, for the header test. A long line without quotes becomes strings
 * only when it is a header; as data it gives [] (no header, and not a point count).
 */
function firstLineFields(scanner: AsciiScanner, span: LineSpan): string[] {
  const bytes = scanner.bytes;
  const comma = hasByte(bytes, span, COMMA);
  if (!hasByte(bytes, span, QUOTE)) {
    const count = countFields(bytes, span, comma);
    if (count > MANY_FIELDS) {
      refuseLoneWideLine(scanner, span, count);
      return longLineHeader(bytes, span, comma) ?? [];
    }
  }
  return splitFields(spanText(bytes, span), comma, scanner.file, span.line);
}

/**
 * Reads the header (if any) and the first data line, leaving the scanner at the first data row.
 * Returns undefined when the file holds no data rows at all (not an error: an empty set).
 */
export function analyseDelimited(scanner: AsciiScanner, columns: string[] | undefined): DelimitedLayout | undefined {
  const bytes = scanner.bytes, file = scanner.file;
  const notes: string[] = [];
  if (!scanner.skipToToken()) return undefined;

  const first = spanAt(scanner);
  const firstFields = firstLineFields(scanner, first);
  let header: string[] | undefined;
  if (isHeaderRow(firstFields)) {
    header = firstFields;
    scanner.skipRestOfLine();
    if (!scanner.skipToToken()) return undefined;
  } else if (firstFields.length === 1 && /^\d+$/.test(firstFields[0])) {
    // A lone integer before the rows is a point count (the PTS convention); it is not a column.
    scanner.skipRestOfLine();
    if (!scanner.skipToToken()) return undefined;
    notes.push(`skipped the point-count line (${firstFields[0]})`);
  }

  const data = spanAt(scanner);
  const comma = hasByte(bytes, data, COMMA);
  const columnCount = hasByte(bytes, data, QUOTE)
    ? splitFields(spanText(bytes, data), comma, file, data.line).length
    : countFields(bytes, data, comma);
  if (header && header.length !== columnCount) {
    throw new InputError(file, { line: data.line }, `row has ${columnCount} fields but the header names ${header.length}`);
  }
  if (columnCount < 2) throw new InputError(file, { line: data.line }, `need at least 2 columns, found ${columnCount}`);
  refuseLoneWideLine(scanner, data, columnCount);

  const chosen = chooseColumns(columns, header, columnCount, file, first.line, notes);
  if (columnCount > MANY_FIELDS) {
    notes.push(`line ${data.line} holds ${formatCount(columnCount)} values; only ${chosen.length} of its columns are read`);
  }
  const slots = new Int8Array(columnCount).fill(-1);
  chosen.forEach((column, slot) => (slots[column] = slot));
  return { comma, columnCount, slots, dims: chosen.length === 2 ? 2 : 3, notes };
}

/** Column indices for x, y[, z]: from --columns, else header names x/y/z, else the first columns. */
function chooseColumns(
  requested: string[] | undefined,
  header: string[] | undefined,
  columnCount: number,
  file: string,
  headerLine: number,
  notes: string[],
): number[] {
  const lowerHeader = header?.map((name) => name.toLowerCase());
  if (requested && requested.length > 0) {
    if (requested.length !== 2 && requested.length !== 3) {
      throw new UsageError(`--columns needs 2 or 3 entries (x,y[,z]), got ${requested.length}`);
    }
    const chosen = requested.map((entry) => {
      const trimmed = entry.trim();
      const byName = lowerHeader ? lowerHeader.indexOf(trimmed.toLowerCase()) : -1;
      if (byName >= 0) return byName;
      if (/^\d+$/.test(trimmed)) {
        const index = Number(trimmed);
        if (index >= columnCount) {
          throw new InputError(file, {}, `column ${index} does not exist (the file has ${columnCount} columns, numbered from 0)`);
        }
        return index;
      }
      if (!lowerHeader) throw new InputError(file, {}, `no header row to find column '${trimmed}' in`);
      throw new InputError(file, { line: headerLine }, `no column named '${trimmed}' in the header (${header!.join(', ')})`);
    });
    if (new Set(chosen).size !== chosen.length) throw new UsageError('--columns names the same column twice');
    return chosen;
  }
  if (lowerHeader) {
    const x = lowerHeader.indexOf('x'), y = lowerHeader.indexOf('y'), z = lowerHeader.indexOf('z');
    if (x >= 0 && y >= 0) {
      const byName = z >= 0 ? [x, y, z] : [x, y];
      if (byName.join() !== defaultColumns(columnCount).join()) {
        notes.push(`columns ${header![x]}, ${header![y]}${z >= 0 ? `, ${header![z]}` : ''} chosen by header name`);
      }
      return byName;
    }
  }
  return defaultColumns(columnCount);
}

function defaultColumns(columnCount: number): number[] {
  return columnCount === 2 ? [0, 1] : [0, 1, 2];
}
