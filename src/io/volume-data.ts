// The voxel bytes of a text-headed volume (NRRD, MetaImage): their size checked against the header's before
// anything large is allocated, gzip / zlib streams inflated with a cap, and the values decoded in host byte order.
// NIfTI has its own (src/io/nifti.ts), whose helpers this shares.
import { constants as zlibConstants, gunzipSync, inflateSync } from 'node:zlib';

import { InputError, type FileLocation } from '../core/errors.js';
import { describeBytes, inflateChunkSize, isGzip, MAX_NIFTI_BYTES, reverseEach, type NiftiDatatypeName, type VoxelValues } from './nifti.js';

/** Bytes of one value of each type. */
export const TYPE_BYTES: Record<NiftiDatatypeName, 1 | 2 | 4 | 8> = {
  uint8: 1, int8: 1, uint16: 2, int16: 2, uint32: 4, int32: 4, int64: 8, uint64: 8, float32: 4, float64: 8,
};

const HOST_LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Where a header field was read, for error messages: the header file and its line. */
export interface FieldPlace {
  file: string;
  line: number;
  field: string;
}

/** Where a binary header's field was read (a DICOM tag): its byte offset, where one can be given. */
export interface TagPlace {
  file: string;
  byte?: number;
  field: string;
}

export function fieldError(place: FieldPlace | TagPlace, detail: string): InputError {
  const where: FileLocation = 'line' in place ? { line: place.line } : place.byte !== undefined ? { byte: place.byte } : {};
  return new InputError(place.file, where, `${place.field}: ${detail}`);
}

/** The byte count the grid needs, refused beyond what one volume may hold (before any allocation). */
export function neededBytes(dims: readonly number[], type: NiftiDatatypeName, place: FieldPlace | TagPlace): number {
  const voxels = dims.reduce((product, n) => product * n, 1);
  const bytes = voxels * TYPE_BYTES[type];
  if (bytes > MAX_NIFTI_BYTES) {
    throw fieldError(place, `${dims.join('×')} ${type} voxels need ${describeBytes(bytes)}; volumes over ${describeBytes(MAX_NIFTI_BYTES)} are not supported`);
  }
  return bytes;
}

/**
 * Inflates a gzip stream (or a zlib one: MetaImage writers use zlib) that must hold exactly `expected` bytes:
 * the output is capped just past that, so a lying header or a bomb cannot exhaust memory.
 */
export function inflateExactly(compressed: Uint8Array, expected: number, dataFile: string, sizes: FieldPlace): Uint8Array {
  const gzip = isGzip(compressed);
  let out: Uint8Array;
  try {
    const options = { maxOutputLength: expected + 1, finishFlush: zlibConstants.Z_FINISH, chunkSize: inflateChunkSize(compressed, expected + 1, expected) };
    out = gzip ? gunzipSync(compressed, options) : inflateSync(compressed, options);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      throw fieldError(sizes, `the grid needs ${describeBytes(expected)} of data, the compressed data holds more (${dataFile})`);
    }
    if (code === 'Z_BUF_ERROR') throw new InputError(dataFile, { byte: compressed.length }, `${gzip ? 'gzip' : 'zlib'} stream ends early (truncated data)`);
    throw new InputError(dataFile, {}, `corrupt ${gzip ? 'gzip' : 'zlib'} stream (${message})`);
  }
  if (out.length !== expected) {
    throw fieldError(sizes, `the grid needs ${describeBytes(expected)}, the decompressed data holds ${describeBytes(out.length)} (${dataFile})`);
  }
  return out;
}

/** The values of `raw` (exactly count × the type's bytes) in host byte order: a view when possible, else a copy. */
export function decodeValues(raw: Uint8Array, type: NiftiDatatypeName, littleEndian: boolean, dataFile: string, dataStart: number): VoxelValues {
  const width = TYPE_BYTES[type];
  const count = raw.length / width;
  let buffer: ArrayBufferLike = raw.buffer, offset = raw.byteOffset;
  const swap = width > 1 && littleEndian !== HOST_LITTLE_ENDIAN;
  if (swap || offset % width !== 0) { // typed arrays need aligned storage
    const copy = new Uint8Array(raw);
    if (swap) reverseEach(copy, width);
    buffer = copy.buffer;
    offset = 0;
  }
  switch (type) {
    case 'uint8': return new Uint8Array(buffer, offset, count);
    case 'int8': return new Int8Array(buffer, offset, count);
    case 'uint16': return new Uint16Array(buffer, offset, count);
    case 'int16': return new Int16Array(buffer, offset, count);
    case 'uint32': return new Uint32Array(buffer, offset, count);
    case 'int32': return new Int32Array(buffer, offset, count);
    case 'float32': return checkFinite(new Float32Array(buffer, offset, count), dataFile, dataStart);
    case 'float64': return checkFinite(new Float64Array(buffer, offset, count), dataFile, dataStart);
    case 'int64':
    case 'uint64': return wide(new Uint32Array(buffer, offset, 2 * count), type === 'int64', dataFile, dataStart);
  }
}

function checkFinite<T extends Float32Array | Float64Array>(values: T, dataFile: string, dataStart: number): T {
  for (let n = 0; n < values.length; n++) {
    const v = values[n];
    if (v - v !== 0) throw new InputError(dataFile, { byte: dataStart + n * values.BYTES_PER_ELEMENT }, `${v} voxel value (voxel ${n})`);
  }
  return values;
}

/** 64-bit integers as doubles; beyond ±2^53 they would change, so they are refused. */
function wide(halves: Uint32Array, signed: boolean, dataFile: string, dataStart: number): Float64Array {
  const low = HOST_LITTLE_ENDIAN ? 0 : 1, high = 1 - low;
  const values = new Float64Array(halves.length / 2);
  for (let n = 0; n < values.length; n++) {
    const lo = halves[2 * n + low];
    let hi = halves[2 * n + high];
    if (signed) hi |= 0;
    if (hi < -0x200000 || hi > 0x200000 || (hi === 0x200000 && lo !== 0)) {
      throw new InputError(dataFile, { byte: dataStart + 8 * n }, `${signed ? 'int64' : 'uint64'} voxel value (voxel ${n}) is beyond ±2^53 and cannot be held exactly`);
    }
    values[n] = hi * 0x100000000 + lo;
  }
  return values;
}
