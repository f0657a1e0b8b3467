// PLY header: the text block from "ply" to "end_header" that declares the encoding, the elements and
// their properties. Only the header is handled as strings; the body readers work on bytes.
import { InputError } from '../core/errors.js';

export type PlyEncoding = 'ascii' | 'binary_little_endian' | 'binary_big_endian';

/** Scalar types as small integers so the body readers can switch on them cheaply. */
export const enum PlyType {
  Int8,
  Uint8,
  Int16,
  Uint16,
  Int32,
  Uint32,
  Float32,
  Float64,
}

export const PLY_TYPE_SIZE: readonly number[] = [1, 1, 2, 2, 4, 4, 4, 8];

const TYPE_NAMES: Record<string, PlyType> = {
  char: PlyType.Int8, int8: PlyType.Int8,
  uchar: PlyType.Uint8, uint8: PlyType.Uint8,
  short: PlyType.Int16, int16: PlyType.Int16,
  ushort: PlyType.Uint16, uint16: PlyType.Uint16,
  int: PlyType.Int32, int32: PlyType.Int32,
  uint: PlyType.Uint32, uint32: PlyType.Uint32,
  float: PlyType.Float32, float32: PlyType.Float32,
  double: PlyType.Float64, float64: PlyType.Float64,
};

export function isIntegerType(type: PlyType): boolean {
  return type !== PlyType.Float32 && type !== PlyType.Float64;
}

export interface PlyProperty {
  name: string;
  /** The scalar type, or for a list the type of its items. */
  type: PlyType;
  /** For a list property: the type of the leading item count. */
  countType?: PlyType;
}

export interface PlyElement {
  name: string;
  count: number;
  properties: PlyProperty[];
  /** Header line that declared the element, for error messages. */
  line: number;
}

export interface PlyHeader {
  encoding: PlyEncoding;
  elements: PlyElement[];
  /** Byte offset of the first body byte. */
  dataStart: number;
  /** Line number of the first body line (for ascii bodies). */
  dataLine: number;
}

const LF = 10, CR = 13;
const MAX_HEADER_BYTES = 1 << 20;

export function parsePlyHeader(bytes: Uint8Array, file: string): PlyHeader {
  const decoder = new TextDecoder('latin1');
  let encoding: PlyEncoding | undefined;
  const elements: PlyElement[] = [];
  let pos = 0;
  let line = 0;
  // Header lines end in LF, CRLF or a lone CR (classic Mac files; the ascii body reader takes all three).
  // Searches stay within the header's size limit, not the body, which may be large and binary.
  const head = bytes.subarray(0, Math.min(bytes.length, MAX_HEADER_BYTES + 2));
  for (;;) {
    const nl = headerLineEnd(head, pos);
    if (nl < 0 || nl > MAX_HEADER_BYTES) {
      throw new InputError(file, { line: line + 1 }, 'PLY header has no end_header line');
    }
    line++;
    const text = decoder.decode(bytes.subarray(pos, nl)).replace(/\r$/, '');
    pos = nl + 1;
    const fail: (detail: string) => never = (detail) => {
      throw new InputError(file, { line }, detail);
    };
    if (line === 1) {
      if (text.trim() !== 'ply') fail("not a PLY file: the first line must be 'ply'");
      continue;
    }
    const words = text.trim().split(/\s+/);
    switch (words[0]) {
      case 'end_header':
        if (!encoding) fail('PLY header has no format line');
        return { encoding: encoding!, elements, dataStart: pos, dataLine: line + 1 };
      case '':
      case 'comment':
      case 'obj_info':
        break;
      case 'format':
        if (words[1] !== 'ascii' && words[1] !== 'binary_little_endian' && words[1] !== 'binary_big_endian') {
          fail(`unsupported PLY format '${words[1] ?? ''}'`);
        }
        if (words[2] !== undefined && !words[2].startsWith('1.')) fail(`unsupported PLY version '${words[2]}'`);
        encoding = words[1] as PlyEncoding;
        break;
      case 'element': {
        if (words.length !== 3 || !/^\d+$/.test(words[2])) fail(`malformed element line '${text.trim()}'`);
        elements.push({ name: words[1], count: Number(words[2]), properties: [], line });
        break;
      }
      case 'property': {
        const element = elements[elements.length - 1];
        if (!element) fail('property declared before any element');
        element.properties.push(parseProperty(words, fail));
        break;
      }
      default:
        fail(`unexpected PLY header line '${text.trim().slice(0, 40)}'`);
    }
  }
}

/** The LF, or lone CR, that ends the header line starting at `from`; -1 when there is none. */
function headerLineEnd(head: Uint8Array, from: number): number {
  const lf = head.indexOf(LF, from);
  const line = lf < 0 ? head.subarray(from) : head.subarray(from, lf);
  for (let cr = line.indexOf(CR); cr >= 0; cr = line.indexOf(CR, cr + 1)) {
    if (from + cr + 1 !== lf) return from + cr; // a CR not just before the LF
  }
  return lf;
}

function parseProperty(words: string[], fail: (detail: string) => never): PlyProperty {
  const typeOf = (name: string | undefined): PlyType => {
    const type = name === undefined ? undefined : TYPE_NAMES[name];
    if (type === undefined) fail(`unsupported PLY property type '${name ?? ''}'`);
    return type!;
  };
  if (words[1] === 'list') {
    if (words.length !== 5) fail('malformed list property: expected "property list <count type> <item type> <name>"');
    const countType = typeOf(words[2]);
    if (!isIntegerType(countType)) fail(`list count type '${words[2]}' must be an integer type`);
    return { name: words[4], type: typeOf(words[3]), countType };
  }
  if (words.length !== 3) fail('malformed property: expected "property <type> <name>"');
  return { name: words[2], type: typeOf(words[1]) };
}

/** Smallest number of bytes one record can take in a binary body (lists counted as empty). */
export function minimumBinaryRecordSize(element: PlyElement): number {
  let size = 0;
  for (const property of element.properties) {
    size += PLY_TYPE_SIZE[property.countType ?? property.type];
  }
  return size;
}

/** Byte size of a record with only scalar properties, or -1 when it has a list. */
export function fixedRecordSize(element: PlyElement): number {
  let size = 0;
  for (const property of element.properties) {
    if (property.countType !== undefined) return -1;
    size += PLY_TYPE_SIZE[property.type];
  }
  return size;
}
