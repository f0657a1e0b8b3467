// The header of a PCD file (PCL's Point Cloud Data, v0.5 to v0.7): its text lines up to DATA, checked for
// agreement (one SIZE, TYPE and COUNT a field, WIDTH × HEIGHT = POINTS) before any point is read.
import { InputError } from '../core/errors.js';

export interface PcdField {
  name: string;
  /** Bytes of one value: 1, 2, 4 or 8. */
  size: number;
  /** I signed integer, U unsigned integer, F floating point. */
  type: 'I' | 'U' | 'F';
  /** Values of the field a point (an array field such as a histogram has many). */
  count: number;
  /** Byte offset of the field in a binary record, and index of its first value in an ascii line. */
  offset: number;
  column: number;
}

export interface PcdHeader {
  fields: PcdField[];
  width: number;
  height: number;
  points: number;
  data: 'ascii' | 'binary' | 'binary_compressed';
  /** Offset of the first byte after the DATA line, and that line's number (1-based). */
  dataStart: number;
  dataLine: number;
  /** Bytes of one binary record; values of one ascii line. */
  recordSize: number;
  valuesPerPoint: number;
}

/** True when `bytes` start like a PCD header (its comment line, or its first keyword). */
export function looksLikePcd(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 64)).replace(/^\uFEFF/, '');
  return /^#\s*\.PCD\b/i.test(head) || /^(VERSION|FIELDS)\s/.test(head);
}

const KEYWORDS = ['VERSION', 'FIELDS', 'SIZE', 'TYPE', 'COUNT', 'WIDTH', 'HEIGHT', 'VIEWPOINT', 'POINTS', 'DATA'];
const MAX_HEADER = 1 << 20;

export function parsePcdHeader(bytes: Uint8Array, file: string): PcdHeader {
  const values = new Map<string, { words: string[]; line: number }>();
  let at = 0, line = 0;
  for (;;) {
    if (at >= bytes.length || at > MAX_HEADER) throw new InputError(file, { line: line + 1 }, 'PCD header has no DATA line');
    let end = bytes.indexOf(0x0a, at);
    if (end < 0) end = bytes.length;
    line++;
    const text = new TextDecoder('latin1').decode(bytes.subarray(at, end)).replace(/\r$/, '').trim();
    at = end + 1;
    if (text === '' || text.startsWith('#')) continue;
    const words = text.split(/\s+/);
    const keyword = words[0].toUpperCase();
    if (!KEYWORDS.includes(keyword)) throw new InputError(file, { line }, `unknown PCD header line '${words[0]}' (expected one of ${KEYWORDS.join(', ')})`);
    values.set(keyword, { words: words.slice(1), line });
    if (keyword === 'DATA') break;
  }
  const dataLine = line;
  const need = (keyword: string) => {
    const v = values.get(keyword);
    if (!v) throw new InputError(file, { line: dataLine }, `PCD header has no ${keyword} line`);
    return v;
  };
  const integer = (keyword: string, word: string | undefined, lineNo: number, min: number) => {
    if (word === undefined || !/^\d+$/.test(word) || Number(word) < min || !Number.isSafeInteger(Number(word))) {
      throw new InputError(file, { line: lineNo }, `${keyword} must be an integer of at least ${min}, got '${word ?? ''}'`);
    }
    return Number(word);
  };
  const names = need('FIELDS');
  const sizes = need('SIZE'), types = need('TYPE');
  const counts = values.get('COUNT');
  const n = names.words.length;
  if (n === 0) throw new InputError(file, { line: names.line }, 'FIELDS names no field');
  for (const [keyword, v] of [['SIZE', sizes], ['TYPE', types], ['COUNT', counts]] as const) {
    if (v && v.words.length !== n) throw new InputError(file, { line: v.line }, `${keyword} has ${v.words.length} entries for ${n} FIELDS`);
  }
  let offset = 0, column = 0;
  const fields: PcdField[] = names.words.map((name, i) => {
    const size = integer('SIZE', sizes.words[i], sizes.line, 1);
    const type = types.words[i].toUpperCase();
    if (type !== 'I' && type !== 'U' && type !== 'F') throw new InputError(file, { line: types.line }, `TYPE '${types.words[i]}' of field ${name} is not I, U or F`);
    const valid = type === 'F' ? [4, 8] : [1, 2, 4, 8];
    if (!valid.includes(size)) throw new InputError(file, { line: sizes.line }, `SIZE ${size} of field ${name} (TYPE ${type}) is not one of ${valid.join(', ')}`);
    const count = counts ? integer('COUNT', counts.words[i], counts.line, 1) : 1;
    const field: PcdField = { name, size, type, count, offset, column };
    offset += size * count;
    column += count;
    return field;
  });
  const widthLine = need('WIDTH'), heightLine = values.get('HEIGHT');
  const width = integer('WIDTH', widthLine.words[0], widthLine.line, 0);
  const height = heightLine ? integer('HEIGHT', heightLine.words[0], heightLine.line, 1) : 1;
  const pointsLine = values.get('POINTS');
  const points = pointsLine ? integer('POINTS', pointsLine.words[0], pointsLine.line, 0) : width * height;
  if (points !== width * height) {
    throw new InputError(file, { line: pointsLine!.line }, `POINTS ${points} is not WIDTH × HEIGHT (${width} × ${height} = ${width * height})`);
  }
  const data = (values.get('DATA')!.words[0] ?? '').toLowerCase();
  if (data !== 'ascii' && data !== 'binary' && data !== 'binary_compressed') {
    throw new InputError(file, { line: dataLine }, `DATA '${values.get('DATA')!.words[0] ?? ''}' is not ascii, binary or binary_compressed`);
  }
  return { fields, width, height, points, data, dataStart: at, dataLine, recordSize: offset, valuesPerPoint: column };
}
