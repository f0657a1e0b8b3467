// A minimal LAS writer for the tests (and the reader benchmark): any version 1.0-1.4, any point format 0-10,
// longer records, VLRs and EVLRs, and header fields that can be made to lie. Every byte the reader must skip
// (intensity, flags, GPS time, colours, wave packets, extra bytes) is filled with noise, so that a reader
// that reads the wrong bytes gets the wrong answer.
import { LAS_POINT_FORMATS } from '../src/io/las-point-formats.js';

export interface LasPoint {
  X: number;
  Y: number;
  Z: number;
  classification?: number;
  returnNumber?: number;
  numberOfReturns?: number;
}

export interface LasRecord {
  userId: string;
  recordId: number;
  payload: Uint8Array;
}

export interface LasWriteOptions {
  minor?: number;
  format?: number;
  /** Defaults to the format's own length. */
  recordLength?: number;
  scale?: [number, number, number];
  offset?: [number, number, number];
  vlrs?: LasRecord[];
  /** LAS 1.4 only. */
  evlrs?: LasRecord[];
  /** Header fields written as given instead of computed (to make a header lie). */
  pointCount?: number;
  legacyCount?: number;
  formatByte?: number;
  headerSize?: number;
  pointDataOffset?: number;
  vlrCount?: number;
  /** Bytes of padding between the VLRs and the points. */
  gap?: number;
}

const HEADER_SIZES = [227, 227, 227, 235, 375];

/** Deterministic noise bytes. */
function noise(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) & 0xff;
  };
}

/** One point record of `length` bytes for `format` at `view[at]`. */
export function writeRecord(view: DataView, at: number, format: number, length: number, p: LasPoint, random: () => number): void {
  for (let i = 0; i < length; i++) view.setUint8(at + i, random());
  view.setInt32(at, p.X, true);
  view.setInt32(at + 4, p.Y, true);
  view.setInt32(at + 8, p.Z, true);
  const rn = p.returnNumber ?? 1, nr = p.numberOfReturns ?? 1, cls = p.classification ?? 1;
  if (format >= 6) {
    view.setUint8(at + 14, (rn & 15) | ((nr & 15) << 4));
    view.setUint8(at + 16, cls);
  } else {
    // The two flag bits above the returns (scan direction, edge) and the three above the class are noise.
    view.setUint8(at + 14, (rn & 7) | ((nr & 7) << 3) | (random() & 0xc0));
    view.setUint8(at + 15, (cls & 31) | (random() & 0xe0));
  }
}

function recordHeader(r: LasRecord, extended: boolean): Uint8Array {
  const bytes = new Uint8Array(extended ? 60 : 54);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(r.userId).subarray(0, 16), 2);
  view.setUint16(18, r.recordId, true);
  if (extended) view.setBigUint64(20, BigInt(r.payload.length), true);
  else view.setUint16(20, r.payload.length, true);
  return bytes;
}

/** The bytes of a LAS file holding `points` (raw integers) as the options say. */
export function lasBytes(points: LasPoint[], options: LasWriteOptions = {}): Uint8Array {
  const minor = options.minor ?? 2;
  const format = options.format ?? 0;
  const length = options.recordLength ?? LAS_POINT_FORMATS[format].minLength;
  const scale = options.scale ?? [0.01, 0.01, 0.01];
  const offset = options.offset ?? [0, 0, 0];
  const headerSize = options.headerSize ?? HEADER_SIZES[minor];
  const vlrs = (options.vlrs ?? []).map((r) => [recordHeader(r, false), r.payload]).flat();
  const vlrBytes = vlrs.reduce((n, b) => n + b.length, 0);
  const pointDataOffset = options.pointDataOffset ?? Math.max(headerSize, HEADER_SIZES[minor]) + vlrBytes + (options.gap ?? 0);
  const evlrs = (options.evlrs ?? []).map((r) => [recordHeader(r, true), r.payload]).flat();
  const body = points.length * length;
  const total = pointDataOffset + body + evlrs.reduce((n, b) => n + b.length, 0);
  const bytes = new Uint8Array(Math.max(total, 375));
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode('LASF'), 0);
  bytes[24] = 1;
  bytes[25] = minor;
  bytes.set(new TextEncoder().encode('xhd test'), 26);
  bytes.set(new TextEncoder().encode('xhd las-writer'), 58);
  view.setUint16(94, headerSize, true);
  view.setUint32(96, pointDataOffset, true);
  view.setUint32(100, options.vlrCount ?? (options.vlrs ?? []).length, true);
  bytes[104] = options.formatByte ?? format;
  view.setUint16(105, length, true);
  const count = options.pointCount ?? points.length;
  view.setUint32(107, options.legacyCount ?? (format >= 6 && minor >= 4 ? 0 : count), true);
  const byReturn = new Array(15).fill(0);
  for (const p of points) if ((p.returnNumber ?? 1) >= 1) byReturn[(p.returnNumber ?? 1) - 1]++;
  for (let i = 0; i < 5; i++) view.setUint32(111 + 4 * i, byReturn[i], true);
  scale.forEach((s, k) => view.setFloat64(131 + 8 * k, s, true));
  offset.forEach((o, k) => view.setFloat64(155 + 8 * k, o, true));
  for (let k = 0; k < 3; k++) {
    const values = points.map((p) => [p.X, p.Y, p.Z][k] * scale[k] + offset[k]);
    view.setFloat64(179 + 16 * k, values.length ? Math.max(...values) : 0, true);
    view.setFloat64(187 + 16 * k, values.length ? Math.min(...values) : 0, true);
  }
  if (minor >= 4) {
    view.setBigUint64(235, BigInt(evlrs.length ? pointDataOffset + body : 0), true);
    view.setUint32(243, (options.evlrs ?? []).length, true);
    view.setBigUint64(247, BigInt(count), true);
    for (let i = 0; i < 15; i++) view.setBigUint64(255 + 8 * i, BigInt(byReturn[i]), true);
  }
  let at = Math.max(headerSize, HEADER_SIZES[minor]);
  for (const b of vlrs) {
    bytes.set(b, at);
    at += b.length;
  }
  const random = noise(format * 1000 + length);
  points.forEach((p, i) => writeRecord(view, pointDataOffset + i * length, format, length, p, random));
  at = pointDataOffset + body;
  for (const b of evlrs) {
    bytes.set(b, at);
    at += b.length;
  }
  return bytes.subarray(0, total);
}

/** A GeoKeyDirectory payload (record 34735) from [key, location, count, value] entries. */
export function geoKeys(entries: [number, number, number, number][]): Uint8Array {
  const words = new Uint16Array(4 + 4 * entries.length);
  words.set([1, 1, 0, entries.length]);
  entries.forEach((e, i) => words.set(e, 4 + 4 * i));
  return new Uint8Array(words.buffer);
}

export const text = (s: string): Uint8Array => new TextEncoder().encode(s + '\0');

/** The doubles a reader must give for `points`: X * scale + offset, computed the one way LAS defines. */
export function expectedPositions(points: LasPoint[], scale: number[], offset: number[]): number[] {
  return points.flatMap((p) => [p.X * scale[0] + offset[0], p.Y * scale[1] + offset[1], p.Z * scale[2] + offset[2]]);
}
