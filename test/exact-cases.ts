// Point sets at survey-style coordinates (x ≈ 5e5, y ≈ 4.2e6) where float32 alone gives wrong answers,
// and a double-precision brute force over the very doubles the tests pass: the reference every method and
// backend must equal exactly, witnesses included (ties to the smallest index).
import assert from 'node:assert/strict';

import type { HausdorffResult } from '../src/ops/hausdorff.js';
import { rng } from './random-points.js';

export const UTM_OFFSET: [number, number, number] = [500_000, 4_200_000, 100];

/** A's nearest neighbour in B for every point, by every pair in double (ties to the smallest index). */
export function bruteNearest(a: ArrayLike<number>, b: ArrayLike<number>): { d2: Float64Array; index: Int32Array } {
  const n = a.length / 3, m = b.length / 3;
  const d2 = new Float64Array(n), index = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const x = a[3 * i], y = a[3 * i + 1], z = a[3 * i + 2];
    let best = Infinity, at = -1;
    for (let j = 0; j < m; j++) {
      const dx = x - b[3 * j], dy = y - b[3 * j + 1], dz = z - b[3 * j + 2];
      const s = dx * dx + dy * dy + dz * dz;
      if (s < best) (best = s), (at = j);
    }
    d2[i] = best;
    index[i] = at;
  }
  return { d2, index };
}

export interface DirectedReference {
  distance: number;
  fromIndex: number;
  toIndex: number;
}

/** The directed Hausdorff distance by brute force in double, ties to the smallest indices. */
export function bruteDirected(a: ArrayLike<number>, b: ArrayLike<number>): DirectedReference {
  const { d2, index } = bruteNearest(a, b);
  let worst = 0;
  for (let i = 1; i < d2.length; i++) if (d2[i] > d2[worst]) worst = i;
  return { distance: Math.sqrt(d2[worst]), fromIndex: worst, toIndex: index[worst] };
}

/** Asserts a result equals the brute force bit for bit: distances and witnesses, both directions. */
export function assertExact(r: HausdorffResult, a: ArrayLike<number>, b: ArrayLike<number>, label: string): void {
  const ab = bruteDirected(a, b), ba = bruteDirected(b, a);
  assert.deepEqual({ distance: r.ab.distance, fromIndex: r.ab.fromIndex, toIndex: r.ab.toIndex }, ab, `${label} A→B`);
  assert.ok(r.ba, `${label}: B→A missing`);
  assert.deepEqual({ distance: r.ba.distance, fromIndex: r.ba.fromIndex, toIndex: r.ba.toIndex }, ba, `${label} B→A`);
  assert.equal(r.hd, Math.max(ab.distance, ba.distance), `${label} hd`);
}

/** Rounds to `decimals` places as a `%.Nf` text file would, parsed back to the nearest double. */
function asText(v: number, decimals: number): number {
  return Number(v.toFixed(decimals));
}

/** A 100 m survey tile, and B = A moved 12 mm along x: the case, written with 4 decimals. */
export function utmShiftedTile(n: number, seed: number, dims: 2 | 3 = 3): [Float64Array, Float64Array] {
  const random = rng(seed);
  const a = new Float64Array(3 * n), b = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const x = UTM_OFFSET[0] + 100 * random(), y = UTM_OFFSET[1] + 100 * random();
    const z = dims === 3 ? UTM_OFFSET[2] + 10 * random() : 0;
    a.set([asText(x, 4), asText(y, 4), asText(z, 4)], 3 * i);
    b.set([asText(x + 0.012, 4), asText(y, 4), asText(z, 4)], 3 * i);
  }
  return [a, b];
}

/**
 * Near-ties: each point of A has its own partner in B at 0.5 m minus a few tenths of a micrometre, so the
 * nearest distances differ by less than float32 resolves at these coordinates (even after moving them
 * near the origin, a float32 step at 50 m is 4 µm): only the double search can name the witness.
 */
export function utmNearTies(n: number, seed: number, dims: 2 | 3 = 3): [Float64Array, Float64Array] {
  const random = rng(seed);
  const a = new Float64Array(3 * n), b = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    // A coarse lattice keeps other points of B farther than the partner.
    const cell = [i % 20, Math.floor(i / 20) % 20, Math.floor(i / 400)];
    const p = [UTM_OFFSET[0] + 5 * cell[0] + random(), UTM_OFFSET[1] + 5 * cell[1] + random(),
      dims === 3 ? UTM_OFFSET[2] + 5 * cell[2] + random() : 0];
    const angle = 2 * Math.PI * random();
    const r = 0.5 - 1e-7 * random();
    a.set(p, 3 * i);
    b.set([p[0] + r * Math.cos(angle), p[1] + r * Math.sin(angle), p[2]], 3 * i);
  }
  return [a, b];
}

/** Exact ties: B = A moved by exactly 1/8 along x (exact in double at these magnitudes): every distance ties. */
export function utmExactTies(n: number, seed: number): [Float64Array, Float64Array] {
  const random = rng(seed);
  const a = new Float64Array(3 * n), b = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const p = [UTM_OFFSET[0] + Math.round(1e4 * random()) / 64, UTM_OFFSET[1] + Math.round(1e4 * random()) / 64,
      UTM_OFFSET[2] + Math.round(1e3 * random()) / 64];
    a.set(p, 3 * i);
    b.set([p[0] + 0.125, p[1], p[2]], 3 * i);
  }
  return [a, b];
}

/** The same points moved by `offset` (exact when the coordinates are multiples of a power of two). */
export function translated(p: Float64Array, offset: [number, number, number]): Float64Array {
  const out = new Float64Array(p.length);
  for (let i = 0; i < p.length; i += 3) for (let k = 0; k < 3; k++) out[i + k] = p[i + k] + offset[k];
  return out;
}

/** Points on a grid of 2^-10 m in a 64 m box: every translation by whole metres is exact in double. */
export function dyadicCloud(n: number, seed: number): Float64Array {
  const random = rng(seed);
  const p = new Float64Array(3 * n);
  for (let i = 0; i < 3 * n; i++) p[i] = Math.floor(random() * 65536) / 1024;
  return p;
}
