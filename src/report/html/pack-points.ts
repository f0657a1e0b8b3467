// The points a report draws, packed small: coordinates as 16-bit steps of a box around all the drawn points
// (1/65,535 of its extent: far below a pixel at any zoom a report is read at) and distances as 16-bit
// fractions of the largest; each coordinate and the distances in planes of their own (x x x … y y y …),
// which deflate compresses better than interleaved records; then the whole as one raw deflate stream (coded, or
// in stored blocks where coding would save little). The page inflates it with the browser's DecompressionStream:
// no library, no network. Exact values (witnesses, worst regions, statistics) travel in the JSON beside it,
// unrounded.
import { constants as zlibConstants, deflateRawSync } from 'node:zlib';

import type { Coordinates } from '../../core/coordinates.js';

export interface PackBox {
  min: [number, number, number];
  /** Size of one 16-bit step per axis (0 on an axis without extent). */
  step: [number, number, number];
}

export const QUANT_STEPS = 65535;

/** The box around the chosen points of every set. */
export function packBox(sets: { points: Coordinates; indices: Uint32Array }[]): PackBox {
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (const { points, indices } of sets) {
    for (let k = 0; k < indices.length; k++) {
      const j = 3 * indices[k];
      const x = points[j], y = points[j + 1], z = points[j + 2];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (z < z0) z0 = z;
      if (z > z1) z1 = z;
    }
  }
  if (x0 === Infinity) return { min: [0, 0, 0], step: [0, 0, 0] };
  return { min: [x0, y0, z0], step: [(x1 - x0) / QUANT_STEPS, (y1 - y0) / QUANT_STEPS, (z1 - z0) / QUANT_STEPS] };
}

/**
 * Planes x, y, z of the chosen points as 16-bit steps of the box, then (with `withDistances`) a fourth of their
 * distances as quantizeDistances makes it, in the same pass. Each value is rounded to the nearest step as
 * ⌊x·(1/step) + ½⌋: a multiplication and a floor (Math.round and a division take twice as long here), exact
 * but for values within a rounding error of half way between two steps, which may go either way.
 */
export function quantizePoints(points: Coordinates, indices: Uint32Array, box: PackBox, withDistances?: { distances: Float64Array; max: number }): Uint16Array {
  const m = indices.length;
  const out = new Uint16Array((withDistances ? 4 : 3) * m);
  const [x0, y0, z0] = box.min;
  // A plane whose axis has no extent stays 0, as does the distances' when the largest is 0.
  const [ix, iy, iz] = box.step.map((s) => (s > 0 ? 1 / s : 0));
  const distances = withDistances?.distances, max = withDistances?.max ?? 0;
  const toSteps = distances && max > 0 ? QUANT_STEPS / max : 0;
  for (let k = 0; k < m; k++) {
    const i = indices[k], j = 3 * i;
    out[k] = Math.floor((points[j] - x0) * ix + 0.5);
    out[m + k] = Math.floor((points[j + 1] - y0) * iy + 0.5);
    out[2 * m + k] = Math.floor((points[j + 2] - z0) * iz + 0.5);
    if (toSteps) out[3 * m + k] = Math.floor(Math.min(distances![i], max) * toSteps + 0.5);
  }
  return out;
}

/** The chosen distances as 16-bit fractions of max (0 when max is 0). */
export function quantizeDistances(distances: Float64Array, indices: Uint32Array, max: number): Uint16Array {
  const out = new Uint16Array(indices.length);
  if (!(max > 0)) return out;
  const toSteps = QUANT_STEPS / max;
  for (let k = 0; k < indices.length; k++) out[k] = Math.floor(Math.min(distances[indices[k]], max) * toSteps + 0.5);
  return out;
}

/** The planes one after another, little-endian (as every browser reads them). */
function planeBytes(planes: Array<Uint16Array | Uint32Array>): Buffer {
  const bytes = planes.reduce((s, p) => s + p.byteLength, 0);
  const all = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const p of planes) {
    const b = Buffer.from(p.buffer, p.byteOffset, p.byteLength);
    if (isLittleEndian) b.copy(all, at);
    else if (p instanceof Uint16Array) for (let i = 0; i < p.length; i++) all.writeUInt16LE(p[i], at + 2 * i);
    else for (let i = 0; i < p.length; i++) all.writeUInt32LE(p[i], at + 4 * i);
    at += p.byteLength;
  }
  return all;
}

/**
 * The planes one after another, as a raw deflate stream in base64; the reader finds each plane by the counts
 * beside the data, 16-bit coordinates or 32-bit triangle indices. Run-length and Huffman coding only (no search
 * for longer repeats: 4 times faster than deflate's default level for the same size) where a sample of the
 * bytes shrinks by a fifth or more (triangle indices, points on a voxel grid); else stored blocks, which the
 * reader inflates alike: scattered points' low bytes are noise, and a million points' planes shrink by 4 to 10%
 * for 50 to 90 ms of coding on this project's 2-core machines, 5 to 10 times what the rest of packing costs.
 */
export function packPlanes(planes: Array<Uint16Array | Uint32Array>): string {
  const bytes = planeBytes(planes);
  const deflated = compressible(bytes) ? deflateRawSync(bytes, DEFLATE_OPTIONS) : storedDeflate(bytes);
  return deflated.toString('base64');
}

const DEFLATE_OPTIONS = { level: 1, strategy: zlibConstants.Z_RLE };

/** Pieces of the bytes deflated to decide, and their size. */
const SAMPLE_PIECES = 16, SAMPLE_PIECE_BYTES = 16 << 10;
/** Coding pays when it saves at least this share of the bytes. */
const WORTH_CODING = 0.2;

/** Whether pieces spread over the bytes deflate by WORTH_CODING or more (all of them, when they are few). */
export function compressible(bytes: Uint8Array): boolean {
  if (bytes.length <= SAMPLE_PIECES * SAMPLE_PIECE_BYTES) return deflateRawSync(bytes, DEFLATE_OPTIONS).length <= (1 - WORTH_CODING) * bytes.length;
  let coded = 0;
  const stride = Math.floor((bytes.length - SAMPLE_PIECE_BYTES) / (SAMPLE_PIECES - 1));
  for (let k = 0; k < SAMPLE_PIECES; k++) coded += deflateRawSync(bytes.subarray(k * stride, k * stride + SAMPLE_PIECE_BYTES), DEFLATE_OPTIONS).length;
  return coded <= (1 - WORTH_CODING) * SAMPLE_PIECES * SAMPLE_PIECE_BYTES;
}

/** Largest stored block (its length is 16 bits). */
const STORED_BLOCK = 65535;

/**
 * bytes as a raw deflate stream of stored blocks (RFC 1951, 3.2.4): each a header byte (BFINAL on the last,
 * BTYPE 00, the rest padding to the byte), LEN and its complement NLEN little-endian, then LEN bytes as they are.
 */
export function storedDeflate(bytes: Uint8Array): Buffer {
  const blocks = Math.max(1, Math.ceil(bytes.length / STORED_BLOCK));
  const out = Buffer.allocUnsafe(bytes.length + 5 * blocks);
  let at = 0;
  for (let k = 0; k < blocks; k++) {
    const start = k * STORED_BLOCK, length = Math.min(STORED_BLOCK, bytes.length - start);
    out[at] = k === blocks - 1 ? 1 : 0;
    out.writeUInt16LE(length, at + 1);
    out.writeUInt16LE(length ^ 0xffff, at + 3);
    out.set(bytes.subarray(start, start + length), at + 5);
    at += 5 + length;
  }
  return out;
}

const isLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
