// Per-point distances between lattices (voxel centres), where the float search's value is itself exact below
// 2^(24 + 2e) for copies that are whole multiples of 2^e (PointFrame::exact_below, point_frame.h) and the pass in
// double is skipped: every distance must still be the double-precision brute force's to the bit, and the witness
// its (largest distance, smallest source index, smallest target index among equals). Lattices with many equal
// distances, at several spacings and offsets, a lattice too large beside its unit for the shortcut, and the same
// points off the lattice by a hair (no shortcut) are checked the same way; nearest indices too.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { pointsSearch } from '../src/ops/points-search.js';
import { rng } from './random-points.js';

/** Voxel centres of a blob's surface-ish shell: i·s + o for integer i in a ball's shell, in double. */
function shell(n: number, radius: number, centre: [number, number, number], spacing: [number, number, number],
               offset: [number, number, number], seed: number): Float64Array {
  const random = rng(seed);
  const out: number[] = [];
  for (let z = 0; z < n; z++) for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
    const r = Math.hypot(x - centre[0], y - centre[1], z - centre[2]);
    if (Math.abs(r - radius) < 0.9 || random() < 0.002) out.push(x * spacing[0] + offset[0], y * spacing[1] + offset[1], z * spacing[2] + offset[2]);
  }
  return Float64Array.from(out);
}

/** Each point of a: its nearest in b by exact_dist2's formula in double, ties to the smallest index. */
function brute(a: Float64Array, b: Float64Array): { d2: Float64Array; nearest: Int32Array } {
  const na = a.length / 3, nb = b.length / 3;
  const d2 = new Float64Array(na), nearest = new Int32Array(na);
  for (let i = 0; i < na; i++) {
    let best = Infinity, at = -1;
    for (let j = 0; j < nb; j++) {
      const dx = a[3 * i] - b[3 * j], dy = a[3 * i + 1] - b[3 * j + 1], dz = a[3 * i + 2] - b[3 * j + 2];
      const v = dx * dx + dy * dy + dz * dz;
      if (v < best) { best = v; at = j; }
    }
    d2[i] = best;
    nearest[i] = at;
  }
  return { d2, nearest };
}

function witness(r: { d2: Float64Array; nearest: Int32Array }): [number, number, number] {
  let from = 0;
  for (let i = 1; i < r.d2.length; i++) if (r.d2[i] > r.d2[from]) from = i;
  return [Math.sqrt(r.d2[from]), from, r.nearest[from]];
}

async function check(label: string, a: Float64Array, b: Float64Array): Promise<void> {
  const ab = brute(a, b), ba = brute(b, a);
  const distancesOnly = await pointsSearch(a, b, { backend: 'cpu', distances: true, threads: 3 });
  const withNearest = await pointsSearch(a, b, { backend: 'cpu', distances: true, nearest: true, threads: 3 });
  for (const [name, r] of [['distances', distancesOnly], ['with nearest', withNearest]] as const) {
    assert.deepEqual(r.perPoint!.ab.distances, ab.d2.map(Math.sqrt), `${label}, ${name}: A's distances`);
    assert.deepEqual(r.perPoint!.ba!.distances, ba.d2.map(Math.sqrt), `${label}, ${name}: B's distances`);
    assert.deepEqual([r.ab.distance, r.ab.fromIndex, r.ab.toIndex], witness(ab), `${label}, ${name}: A -> B witness`);
    assert.deepEqual([r.ba!.distance, r.ba!.fromIndex, r.ba!.toIndex], witness(ba), `${label}, ${name}: B -> A witness`);
  }
  assert.deepEqual(Array.from(withNearest.perPoint!.ab.nearest!, Number), Array.from(ab.nearest), `${label}: A's nearest, ties to the smallest`);
  assert.deepEqual(Array.from(withNearest.perPoint!.ba!.nearest!, Number), Array.from(ba.nearest), `${label}: B's nearest`);
}

test('lattice distances equal the double brute force at 1 mm, at 0.9375 × 0.9375 × 1.5 mm and at 2^-7 steps', async () => {
  const a1 = shell(22, 8, [10, 11, 10], [1, 1, 1], [-120, 40.5, 7], 1);
  const b1 = shell(22, 7, [11, 10, 10.5], [1, 1, 1], [-120, 40.5, 7], 2);
  await check('1 mm', a1, b1);
  const a2 = shell(20, 7, [9, 9, 9], [0.9375, 0.9375, 1.5], [-99.53125, 12.25, -30], 3);
  const b2 = shell(20, 6, [10, 9, 8], [0.9375, 0.9375, 1.5], [-99.53125, 12.25, -30], 4);
  await check('0.9375 mm', a2, b2);
  const s = 2 ** -7;
  const a3 = shell(18, 6, [8, 8, 8], [s, s, 3 * s], [1000, -2000.5, 3], 5);
  const b3 = shell(18, 5, [9, 8, 8], [s, s, 3 * s], [1000, -2000.5, 3], 6);
  await check('2^-7 steps far from 0', a3, b3);
});

test('lattice distances with many equal ones: a point at the centre of a shell, and a shell against its own copy', async () => {
  const ring = shell(15, 5, [7, 7, 7], [1, 1, 1], [0, 0, 0], 7);
  await check('centre against a shell', Float64Array.of(7, 7, 7, 7.5, 7, 7), ring);
  await check('a shell against itself', ring, ring.slice());
});

test('no shortcut where it would not be exact: a lattice spread far beside its unit, and points a hair off the lattice', async () => {
  // Copies up to 2^24 mm at a 1 mm unit (largest >= 2^(30 + e) does not hold for e = -1... so a finer unit: 2^-8
  // steps with a cluster 2^23 away), where the grid's placement could hide a nearer point.
  const s = 2 ** -8;
  const near = shell(12, 4, [6, 6, 6], [s, s, s], [0, 0, 0], 8);
  const far = Float64Array.of(2 ** 23, 0, 0, 2 ** 23 + s, 0, 0);
  const a = Float64Array.from([...near, ...far]);
  const b = shell(12, 3, [6, 5, 6], [s, s, s], [0, 0, 0], 9);
  await check('spread far', a, Float64Array.from([...b, ...far]));
  const off = Float64Array.from(shell(16, 6, [8, 8, 8], [1, 1, 1], [3, 4, 5], 10), (v, i) => (i === 7 ? v + 1e-9 : v));
  await check('a hair off', off, shell(16, 5, [8, 9, 8], [1, 1, 1], [3, 4, 5], 11));
});
