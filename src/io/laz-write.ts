// Writing points as a LAZ file (point formats 0 to 3, LASzip's version-2 items): the LAS header and VLRs
// are built here (the LASzip VLR, an extra-bytes VLR for double dimensions such as a distance, any VLRs
// the caller passes on, e.g. a CRS), and the CPU library compresses the points on every core and writes
// them (kernels/cpu/laz_writer.cpp). The file is written under a temporary name and renamed when complete,
// so that a failed write leaves no partial file and an existing file untouched.
import { renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

import { NativeError, OutputError } from '../core/errors.js';
import { XHD_LAZ_WRITE_OK, XHD_LAZ_WRITE_OUT_OF_RANGE, type RawLazWriteResult } from '../native/abi.js';
import { systemError } from './input-file.js';
import { extraBytesDescriptor, extraBytesVlr, fixedText, LAS_DOUBLE, vlrBytes } from './las-vlr.js';
import { nativeReader, type NativeReader } from './native-reader.js';

/** An extra-bytes dimension of type double (LAS data type 10), one value a point. */
export interface LazExtraDimension {
  name: string;
  values: Float64Array;
  description?: string;
}

/** The points to write: xyz is required, every other field optional (0 where absent; returns 1 of 1). */
export interface LazPoints {
  /** x, y, z a point. */
  xyz: Float64Array;
  intensity?: Uint16Array;
  returnNumber?: Uint8Array;
  returnCount?: Uint8Array;
  /** The whole classification byte (class in the low 5 bits). */
  classification?: Uint8Array;
  /** Formats 1 and 3. */
  gpsTime?: Float64Array;
  /** Formats 2 and 3: red, green, blue a point. */
  rgb?: Uint16Array;
  extra?: LazExtraDimension[];
}

export interface LazVlr {
  userId: string;
  recordId: number;
  description?: string;
  payload: Uint8Array;
}

export interface LazWriteOptions {
  /** Default: 3 with GPS time and colours, 1 with GPS time, 2 with colours, else 0. */
  pointFormat?: 0 | 1 | 2 | 3;
  /** Default 0.001 on every axis. */
  scale?: [number, number, number];
  /** Default: the points' minimum on each axis, rounded down to a whole number (0 for no points). */
  offset?: [number, number, number];
  /** LAS 1.2 (default) or 1.4. */
  minor?: 2 | 4;
  /** Points a chunk; default LASzip's 50,000. */
  chunkSize?: number;
  /** Default every core. */
  threads?: number;
  /** Further VLRs (a CRS), written after the LASzip and extra-bytes ones. */
  vlrs?: LazVlr[];
  /** The header's global encoding bits (bit 4: the CRS VLR is WKT, LAS 1.4); default 0. */
  globalEncoding?: number;
  systemId?: string;
  software?: string;
}

export interface LazWritten {
  bytes: number;
  chunks: number;
  pointFormat: number;
  min: [number, number, number];
  max: [number, number, number];
}

const RECORD_LENGTHS = [20, 28, 26, 34];
const ITEM_POINT10 = 6, ITEM_GPSTIME11 = 7, ITEM_RGB12 = 8, ITEM_BYTE = 0;

/** The LASzip VLR: chunked compression, fixed-size chunks, the items of the record. */
function laszipVlr(items: [number, number][], chunkSize: number): Uint8Array {
  const payload = new Uint8Array(34 + 6 * items.length);
  const view = new DataView(payload.buffer);
  view.setUint16(0, 2, true); // compressor: pointwise chunked
  view.setUint16(2, 0, true); // coder: arithmetic
  payload[4] = 2; // LASzip version 2.2.0, whose items these are
  payload[5] = 2;
  view.setUint16(6, 0, true);
  view.setUint32(8, 0, true); // options
  view.setUint32(12, chunkSize, true);
  view.setBigInt64(16, -1n, true); // no special EVLRs
  view.setBigInt64(24, -1n, true);
  view.setUint16(32, items.length, true);
  items.forEach(([type, size], i) => {
    view.setUint16(34 + 6 * i, type, true);
    view.setUint16(36 + 6 * i, size, true);
    view.setUint16(38 + 6 * i, 2, true);
  });
  return vlrBytes('laszip encoded', 22204, 'by xhd', payload);
}

/** The extra-bytes VLR (LASF_Spec 4): one descriptor a dimension, each a double. */
function extraDimensionsVlr(dims: LazExtraDimension[]): Uint8Array {
  return extraBytesVlr(dims.map((d) => extraBytesDescriptor(d.name, LAS_DOUBLE, d.description ?? '')), 'extra bytes');
}

function defaultOffset(xyz: Float64Array): [number, number, number] {
  const offset: [number, number, number] = [0, 0, 0];
  if (xyz.length === 0) return offset;
  for (let k = 0; k < 3; k++) {
    let min = Infinity;
    for (let i = k; i < xyz.length; i += 3) if (xyz[i] < min) min = xyz[i];
    offset[k] = Number.isFinite(min) ? Math.floor(min) : 0;
  }
  return offset;
}

/** The header and VLRs, up to the point data (whose offset is their length). */
function headerBytes(points: LazPoints, format: number, options: LazWriteOptions, scale: number[], offset: number[], recordLength: number, items: [number, number][]): Uint8Array {
  const minor = options.minor ?? 2;
  const size = minor >= 4 ? 375 : 227;
  const encoded = [laszipVlr(items, options.chunkSize ?? 50_000)];
  if (points.extra && points.extra.length > 0) encoded.push(extraDimensionsVlr(points.extra));
  for (const v of options.vlrs ?? []) encoded.push(vlrBytes(v.userId, v.recordId, v.description ?? '', v.payload));
  const total = size + encoded.reduce((s, v) => s + v.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  fixedText(out, 0, 4, 'LASF');
  view.setUint16(6, options.globalEncoding ?? 0, true);
  out[24] = 1;
  out[25] = minor;
  fixedText(out, 26, 32, options.systemId ?? 'xhd');
  fixedText(out, 58, 32, options.software ?? 'xhd');
  const now = new Date();
  view.setUint16(90, Math.floor((now.getTime() - Date.UTC(now.getUTCFullYear(), 0, 1)) / 86_400_000) + 1, true);
  view.setUint16(92, now.getUTCFullYear(), true);
  view.setUint16(94, size, true);
  view.setUint32(96, total, true);
  view.setUint32(100, encoded.length, true);
  out[104] = format | 0x80; // the compression bit: LAS readers that do not decompress refuse the file
  view.setUint16(105, recordLength, true);
  scale.forEach((s, k) => view.setFloat64(131 + 8 * k, s, true));
  offset.forEach((o, k) => view.setFloat64(155 + 8 * k, o, true));
  let at = size;
  for (const v of encoded) {
    out.set(v, at);
    at += v.length;
  }
  return out;
}

/** Every point's extra dimensions, interleaved (extra_count doubles a point). */
function interleave(dims: LazExtraDimension[], count: number): Float64Array {
  const out = new Float64Array(dims.length * count);
  dims.forEach((d, j) => {
    for (let i = 0; i < count; i++) out[i * dims.length + j] = d.values[i];
  });
  return out;
}

/** Writes `points` as a LAZ file at `path`. Needs the CPU library (built by npm install). */
export function writeLaz(path: string, points: LazPoints, options: LazWriteOptions = {}, reader: NativeReader | undefined = nativeReader()): LazWritten {
  if (!reader) throw new NativeError('writing LAZ needs the native CPU library: rebuild it with `npm run build`');
  const count = points.xyz.length / 3;
  if (!Number.isInteger(count)) throw new RangeError('xyz must hold 3 numbers a point');
  const extra = points.extra ?? [];
  for (const [name, values] of [['intensity', points.intensity], ['returnNumber', points.returnNumber], ['returnCount', points.returnCount],
    ['classification', points.classification], ['gpsTime', points.gpsTime]] as const) {
    if (values && values.length !== count) throw new RangeError(`${name} must hold one value a point (${count})`);
  }
  if (points.rgb && points.rgb.length !== 3 * count) throw new RangeError(`rgb must hold 3 values a point (${3 * count})`);
  for (const d of extra) if (d.values.length !== count) throw new RangeError(`extra dimension ${d.name} must hold one value a point (${count})`);
  const format = options.pointFormat ?? ((points.gpsTime ? 1 : 0) | (points.rgb ? 2 : 0));
  const items: [number, number][] = [[ITEM_POINT10, 20]];
  if (format === 1 || format === 3) items.push([ITEM_GPSTIME11, 8]);
  if (format === 2 || format === 3) items.push([ITEM_RGB12, 6]);
  if (extra.length > 0) items.push([ITEM_BYTE, 8 * extra.length]);
  const recordLength = RECORD_LENGTHS[format] + 8 * extra.length;
  const scale = options.scale ?? [0.001, 0.001, 0.001];
  const offset = options.offset ?? defaultOffset(points.xyz);
  const header = headerBytes(points, format, options, scale, offset, recordLength, items);
  const job = {
    count,
    xyz: points.xyz,
    intensity: points.intensity ?? null,
    return_number: points.returnNumber ?? null,
    return_count: points.returnCount ?? null,
    classification: points.classification ?? null,
    gps_time: points.gpsTime ?? null,
    rgb: points.rgb ?? null,
    extra: extra.length > 0 ? interleave(extra, count) : null,
    extra_count: extra.length,
    point_format: format,
    scale,
    offset,
    chunk_size: options.chunkSize ?? 0,
    threads: options.threads ?? 0,
  };
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  const result = {} as RawLazWriteResult;
  const status = reader.writeLaz(temporary, header, header.length, job, result) as number;
  if (status !== 0) throw new NativeError(`writing ${path}: ${reader.lastError()}`);
  if (result.kind === XHD_LAZ_WRITE_OUT_OF_RANGE) {
    const axis = 'xyz'[result.axis];
    throw new OutputError(path, `point ${Number(result.point)}'s ${axis} ${result.value} does not fit LAS's 32-bit integers at scale ${scale[result.axis]} and offset ${offset[result.axis]}`);
  }
  if (result.kind !== XHD_LAZ_WRITE_OK) throw new OutputError(path, systemError(result.error_number).message.replace(': cannot read the file', ''));
  try {
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new OutputError(path, (error as Error).message);
  }
  return {
    bytes: Number(result.bytes),
    chunks: result.chunks,
    pointFormat: format,
    min: [result.min[0], result.min[1], result.min[2]],
    max: [result.max[0], result.max[1], result.max[2]],
  };
}
