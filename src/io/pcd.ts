// PCD reader (PCL's Point Cloud Data): ascii, binary and binary_compressed (LZF, fields stored one after the
// other) bodies; x, y and z among any other fields. Coordinates keep the file's precision: float32 when x, y
// and z are all F 4, else doubles. Organized clouds mark missing points with NaN: those are skipped, counted
// in a note; an infinite coordinate is an error.
import { InputError } from '../core/errors.js';
import { badCoordinate, finishGeometry, isExactCoordinate, plural } from './build.js';
import type { Coordinates, Geometry } from './geometry.js';
import { LZF_MAX_RATIO, lzfDecompress } from './lzf.js';
import { parsePcdHeader, type PcdField, type PcdHeader } from './pcd-header.js';

function field(header: PcdHeader, name: string, file: string, required: boolean): PcdField | undefined {
  const f = header.fields.find((candidate) => candidate.name === name);
  if (!f && required) throw new InputError(file, { line: header.dataLine }, `PCD has no ${name} field (FIELDS ${header.fields.map((x) => x.name).join(' ')})`);
  return f;
}

function readValue(view: DataView, at: number, f: PcdField): number {
  switch (f.type) {
    case 'F': return f.size === 4 ? view.getFloat32(at, true) : view.getFloat64(at, true);
    case 'I': return f.size === 1 ? view.getInt8(at) : f.size === 2 ? view.getInt16(at, true) : f.size === 4 ? view.getInt32(at, true) : Number(view.getBigInt64(at, true));
    default: return f.size === 1 ? view.getUint8(at) : f.size === 2 ? view.getUint16(at, true) : f.size === 4 ? view.getUint32(at, true) : Number(view.getBigUint64(at, true));
  }
}

export function parsePcd(bytes: Uint8Array, file: string): Geometry {
  const header = parsePcdHeader(bytes, file);
  const axes = [field(header, 'x', file, true)!, field(header, 'y', file, true)!, field(header, 'z', file, false)];
  checkDeclaredSize(header, bytes.length, file);
  const float32 = axes.every((a) => a !== undefined && a.type === 'F' && a.size === 4);
  const positions: Coordinates = float32 ? new Float32Array(3 * header.points) : new Float64Array(3 * header.points);
  let kept = 0, skipped = 0;
  // Stores point `p` unless a coordinate is NaN; `at` locates it for errors: its line in an ascii body, else a
  // byte offset. Nothing is allocated a point.
  const where = (at: number) => (header.data === 'ascii' ? { line: at } : { byte: at });
  const take: Take = (p, x, y, z, at) => {
    if (Number.isNaN(x) || Number.isNaN(y) || Number.isNaN(z)) {
      skipped++;
      return;
    }
    if (!isExactCoordinate(x)) throw badCoordinate(file, where(at), x, p);
    if (!isExactCoordinate(y)) throw badCoordinate(file, where(at), y, p);
    if (!isExactCoordinate(z)) throw badCoordinate(file, where(at), z, p);
    positions[3 * kept] = x;
    positions[3 * kept + 1] = y;
    positions[3 * kept + 2] = z;
    kept++;
  };
  const xyz = axes as [PcdField, PcdField, PcdField | undefined];
  if (header.data === 'ascii') readAscii(bytes, header, file, xyz, take);
  else if (header.data === 'binary') readBinary(bytes, header, file, xyz, take);
  else readCompressed(bytes, header, file, xyz, take);
  const notes: string[] = [];
  if (skipped > 0) {
    notes.push(`${plural(skipped, 'point')} with NaN coordinates skipped${header.height > 1 ? ` (organized cloud, ${header.width} × ${header.height})` : ''}`);
  }
  const trimmed = kept === header.points ? positions : positions.slice(0, 3 * kept);
  return finishGeometry({ positions: trimmed, dims: axes[2] ? 3 : 2, format: 'pcd', notes });
}

/**
 * Refuses a POINTS count the file cannot hold before the coordinates are allocated: an ascii point takes at
 * least two bytes a value, a binary one its record, a compressed body at most 88 times its compressed bytes.
 */
function checkDeclaredSize(header: PcdHeader, size: number, file: string): void {
  const available = size - header.dataStart;
  const perPoint = header.data === 'ascii' ? 2 * header.valuesPerPoint : header.data === 'binary' ? header.recordSize : header.recordSize / (LZF_MAX_RATIO + 1);
  if (header.points * perPoint > available + 1 + (header.data === 'binary_compressed' ? 1024 : 0)) {
    throw new InputError(file, { byte: size }, `file is truncated: ${header.points} points of ${header.recordSize}-byte records (DATA ${header.data}) cannot fit in the ${available} bytes after the header`);
  }
}

/** Point p's coordinates, and where it is: its line (ascii) or byte offset (binary bodies). */
type Take = (p: number, x: number, y: number, z: number, at: number) => void;
type Axes = [PcdField, PcdField, PcdField | undefined];

/** A reader of one field's value at a byte offset, chosen once (not a switch a value). */
function getter(view: DataView, f: PcdField | undefined): (at: number) => number {
  if (!f) return () => 0;
  if (f.type === 'F') return f.size === 4 ? (at) => view.getFloat32(at, true) : (at) => view.getFloat64(at, true);
  return (at) => readValue(view, at, f);
}

/** One coordinate of an ascii point: its field's word as a number ('nan' in any case is NaN), 0 for a missing z. */
function asciiValue(words: string[], axis: PcdField | undefined, file: string, line: number, p: number): number {
  if (!axis) return 0;
  const word = words[axis.column];
  const v = /^[+-]?nan$/i.test(word) ? NaN : Number(word);
  if (word === '' || (Number.isNaN(v) && !/nan/i.test(word))) throw new InputError(file, { line }, `'${word}' is not a number (field ${axis.name} of point ${p})`);
  return v;
}

function readAscii(bytes: Uint8Array, header: PcdHeader, file: string, axes: Axes, take: Take): void {
  // Line by line from the bytes: a whole body as one string would pass V8's string limit (512 MiB) on big files.
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let p = 0, lineNo = header.dataLine;
  for (let at = header.dataStart; at < bytes.length;) {
    let end = bytes.indexOf(0x0a, at);
    if (end < 0) end = bytes.length;
    const line = buffer.toString('latin1', at, end).trim();
    at = end + 1;
    lineNo++;
    if (line === '') continue;
    if (p >= header.points) throw new InputError(file, { line: lineNo }, `more points than the ${header.points} POINTS declares`);
    const words = line.split(/\s+/);
    if (words.length !== header.valuesPerPoint) {
      throw new InputError(file, { line: lineNo }, `point ${p} has ${words.length} values, the fields declare ${header.valuesPerPoint}`);
    }
    take(p, asciiValue(words, axes[0], file, lineNo, p), asciiValue(words, axes[1], file, lineNo, p), asciiValue(words, axes[2], file, lineNo, p), lineNo);
    p++;
  }
  if (p < header.points) throw new InputError(file, { line: lineNo }, `file is truncated: ${p} points of the ${header.points} POINTS declares`);
}

function readBinary(bytes: Uint8Array, header: PcdHeader, file: string, axes: Axes, take: Take): void {
  const needed = header.dataStart + header.points * header.recordSize;
  if (needed > bytes.length) {
    throw new InputError(file, { byte: bytes.length }, `file is truncated: ${header.points} points of ${header.recordSize} bytes need ${needed} bytes, the file has ${bytes.length}`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [gx, gy, gz] = axes.map((a) => getter(view, a));
  const [ox, oy, oz] = axes.map((a) => a?.offset ?? 0);
  for (let p = 0, at = header.dataStart; p < header.points; p++, at += header.recordSize) {
    take(p, gx(at + ox), gy(at + oy), gz(at + oz), at);
  }
}

/** binary_compressed: two uint32 sizes, then LZF data that decompresses to each field's values for every point in turn. */
function readCompressed(bytes: Uint8Array, header: PcdHeader, file: string, axes: Axes, take: Take): void {
  const start = header.dataStart;
  if (start + 8 > bytes.length) throw new InputError(file, { byte: bytes.length }, 'file is truncated: no compressed sizes after DATA binary_compressed');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const compressed = view.getUint32(start, true), size = view.getUint32(start + 4, true);
  const expected = header.points * header.recordSize;
  if (size !== expected) {
    throw new InputError(file, { byte: start + 4 }, `uncompressed size ${size} is not ${header.points} points of ${header.recordSize} bytes (${expected})`);
  }
  if (start + 8 + compressed > bytes.length) {
    throw new InputError(file, { byte: bytes.length }, `file is truncated: ${compressed} compressed bytes declared, ${bytes.length - start - 8} follow`);
  }
  if (size > LZF_MAX_RATIO * compressed + 1024) {
    throw new InputError(file, { byte: start }, `${compressed} compressed bytes cannot hold the ${size} bytes declared`);
  }
  const data = lzfDecompress(bytes.subarray(start + 8, start + 8 + compressed), size);
  if (typeof data === 'string') throw new InputError(file, { byte: start + 8 }, `LZF data is damaged: ${data}`);
  const columns = new DataView(data.buffer);
  // Field f's values for every point come one after the other, after all the earlier fields' values.
  const fieldStart = new Map<PcdField, number>();
  let at = 0;
  for (const f of header.fields) {
    fieldStart.set(f, at);
    at += header.points * f.size * f.count;
  }
  const [gx, gy, gz] = axes.map((a) => getter(columns, a));
  const [sx, sy, sz] = axes.map((a) => (a ? fieldStart.get(a)! : 0));
  const [wx, wy, wz] = axes.map((a) => (a ? a.size * a.count : 0));
  for (let p = 0; p < header.points; p++) take(p, gx(sx + p * wx), gy(sy + p * wy), gz(sz + p * wz), start + 8);
}
