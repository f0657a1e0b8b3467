// The points a report draws, packed small: coordinates as 16-bit steps of a box around all the drawn points
// (1/65,535 of its extent: far below a pixel at any zoom a report is read at) and distances as 16-bit
// fractions of the largest; each coordinate and the distances in planes of their own (x x x … y y y …),
// which deflate compresses better than interleaved records; then the whole deflated once. The page
// inflates it with the browser's DecompressionStream: no library, no network. Exact values (witnesses,
// worst regions, statistics) travel in the JSON beside it, unrounded.
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
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (const { points, indices } of sets) {
    for (const i of indices) {
      for (let c = 0; c < 3; c++) {
        const v = points[3 * i + c];
        if (v < min[c]) min[c] = v;
        if (v > max[c]) max[c] = v;
      }
    }
  }
  if (min[0] === Infinity) return { min: [0, 0, 0], step: [0, 0, 0] };
  return { min, step: [0, 1, 2].map((c) => (max[c] - min[c]) / QUANT_STEPS) as [number, number, number] };
}

/** Planes x, y, z of the chosen points as 16-bit steps of the box. */
export function quantizePoints(points: Coordinates, indices: Uint32Array, box: PackBox): Uint16Array {
  const m = indices.length;
  const out = new Uint16Array(3 * m);
  for (let c = 0; c < 3; c++) {
    const lo = box.min[c], step = box.step[c];
    for (let k = 0; k < m; k++) out[c * m + k] = step > 0 ? Math.round((points[3 * indices[k] + c] - lo) / step) : 0;
  }
  return out;
}

/** The chosen distances as 16-bit fractions of max (0 when max is 0). */
export function quantizeDistances(distances: Float64Array, indices: Uint32Array, max: number): Uint16Array {
  const out = new Uint16Array(indices.length);
  if (!(max > 0)) return out;
  for (let k = 0; k < indices.length; k++) out[k] = Math.round((Math.min(distances[indices[k]], max) / max) * QUANT_STEPS);
  return out;
}

/**
 * The planes one after another (little-endian, as every browser reads them), deflated and in base64. The
 * reader finds each plane by the counts beside the data, 16-bit coordinates or 32-bit triangle indices.
 */
export function packPlanes(planes: Array<Uint16Array | Uint32Array>): string {
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
  // Run-length and Huffman coding only (no searching for longer repeats): the planes' bytes repeat little
  // beyond runs (a 1M-point report's 8 MB of planes deflate by 1% at any level, the low bytes being noise),
  // and this codes them 4 times faster than deflate's default level for the same size.
  return deflateRawSync(all, { level: 1, strategy: zlibConstants.Z_RLE }).toString('base64');
}

const isLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
