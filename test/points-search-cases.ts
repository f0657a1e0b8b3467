// The cases and the exactness check of the per-point search's tests (points-search.test.ts and
// points-search-far.test.ts): every awkward shape both backends run, and the search's answers against
// xhd_hausdorff, xhd_nearest_points and the TypeScript brute force.
import assert from 'node:assert/strict';

import { probeBackend } from '../src/ops/backends.js';
import { hausdorff, type Method } from '../src/ops/hausdorff.js';
import { nearestDistances } from '../src/ops/nearest.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { AGREEMENT_CASES } from './agreement-cases.js';
import { bruteNearest, utmExactTies, utmNearTies, utmShiftedTile } from './exact-cases.js';
import { clustered, rng, uniform, withDuplicates } from './random-points.js';

export type Points = Float32Array | Float64Array;

const cuda = probeBackend('cuda');
export const noGpu = cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`;

/** The search on `backend` against xhd_hausdorff (CPU brute and the same backend's grid), xhd_nearest_points
 * and the TypeScript brute force, both directions. */
export async function assertSearchExact(label: string, a: Points, b: Points, backend: 'cpu' | 'cuda', method: Method = 'grid'): Promise<void> {
  const r = await pointsSearch(a, b, { backend, method, distances: true, nearest: true, threads: 3 });
  assert.equal(r.backend, backend, label);
  assert.ok(r.perPoint && r.perPoint.ba, label);
  const reference = await hausdorff(a, b, { backend: 'cpu', method: 'brute', threads: 2 });
  const sameBackend = await hausdorff(a, b, { backend, method: method === 'brute' ? 'brute' : 'grid' });
  for (const [got, want, plain, name] of [[r.ab, reference.ab, sameBackend.ab, 'A→B'], [r.ba!, reference.ba!, sameBackend.ba!, 'B→A']] as const) {
    const triple = (d: { distance: number; fromIndex: number; toIndex: number }) => [d.distance, d.fromIndex, d.toIndex];
    assert.deepEqual(triple(got), triple(want), `${label} ${backend} ${name}: witness against the brute force`);
    assert.deepEqual(triple(got), triple(plain), `${label} ${backend} ${name}: witness against xhd_hausdorff`);
  }
  assert.equal(r.hd, reference.hd, label);
  for (const [from, to, out, name] of [[a, b, r.perPoint.ab, 'A→B'], [b, a, r.perPoint.ba, 'B→A']] as const) {
    const native = await nearestDistances(from, to, { indices: true, threads: 2 });
    assert.deepEqual(out.distances, native.distances, `${label} ${backend} ${name}: distances against xhd_nearest_points`);
    assert.deepEqual(out.nearest, native.nearest, `${label} ${backend} ${name}: indices against xhd_nearest_points`);
    const brute = bruteNearest(from, to);
    assert.deepEqual(out.distances, brute.d2.map(Math.sqrt), `${label} ${backend} ${name}: distances against the brute force`);
    assert.deepEqual(Array.from(out.nearest!, Number), Array.from(brute.index), `${label} ${backend} ${name}: indices against the brute force`);
  }
}

/** Far outliers in both sets (loose points, far beyond the bulk the searches' float frame covers). */
export function withOutliers(n: number, seed: number): [Float64Array, Float64Array] {
  const random = rng(seed);
  const a = new Float64Array(3 * n), b = new Float64Array(3 * n);
  for (let i = 0; i < 3 * n; i++) (a[i] = random()), (b[i] = a[i] + 0.004 * (random() - 0.5));
  a.set([1e9, 0, 0], 3 * 7);
  b.set([1e9, 0, 1], 3 * 3);
  a.set([-3e8, 5, 5], 3 * 100);
  b.set([0.5, 0.5, 7e8], 3 * (n - 1));
  return [a, b];
}

/** Float32 coordinates at survey scale: the float32 file's own values are the truth. */
export function surveyFloats(n: number, seed: number): [Float32Array, Float32Array] {
  const random = rng(seed);
  const a = new Float32Array(3 * n), b = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    a.set([5e5 + 100 * random(), 4.2e6 + 100 * random(), 100 + 10 * random()], 3 * i);
    b.set([a[3 * i] + 0.0625, a[3 * i + 1] - 0.125 * random(), a[3 * i + 2]], 3 * i);
  }
  return [a, b];
}

/** Every case both backends run: [label, A, B]. */
export function cases(): Array<[string, Points, Points]> {
  const out: Array<[string, Points, Points]> = [];
  for (const dims of [3, 2] as const) {
    for (const c of AGREEMENT_CASES) {
      for (const n of [1, 17, 1500]) {
        const [a, b] = c.make(n, dims, 77 * n + dims);
        out.push([`${c.name}, ${dims}D, ${n} points`, a, b]);
      }
    }
  }
  const same = clustered(900, 3, rng(3));
  out.push(['A = B (every point coincident)', same, same.slice()]);
  out.push(['all points of each set identical', new Float32Array(3 * 40).fill(0.25), new Float32Array(3 * 30).fill(0.75)]);
  const r = rng(9);
  out.push(['duplicates on both sides', withDuplicates(uniform(300, 3, r), 3, r), withDuplicates(uniform(200, 3, r), 5, r)]);
  out.push(['one point against a cloud', new Float64Array([0.5, 0.25, 0.125]), Float64Array.from(uniform(800, 3, r))]);
  out.push(['survey tile moved 12 mm (double)', ...utmShiftedTile(1200, 4)]);
  out.push(['survey near-ties (double)', ...utmNearTies(800, 5)]);
  out.push(['survey exact ties (double)', ...utmExactTies(800, 6)]);
  out.push(['survey coordinates (float32)', ...surveyFloats(1000, 7)]);
  out.push(['far outliers (double)', ...withOutliers(2000, 8)]);
  const [fa, fb] = withOutliers(2000, 10);
  out.push(['far outliers (float32)', Float32Array.from(fa), Float32Array.from(fb)]);
  // Two short segments a million units apart: every query's reach spans far more cells than grid stepping takes.
  const near = new Float64Array(3 * 400), far = new Float64Array(3 * 400);
  for (let i = 0; i < 400; i++) near.set([i * 1e-3, 0, 0], 3 * i), far.set([1e6 + i * 1e-3, 0.5, 0], 3 * i);
  out.push(['sets a million units apart (double)', near, far]);
  // Every point in a box of side 1e-6 (one crowded cell) and one point 40 away.
  const crowded = uniform(20000, 3, r, 0.5, 1e-6);
  crowded.set([40, -3, 7], 3 * 19999);
  out.push(['one crowded cell and an outlier (float32)', crowded, uniform(3000, 3, r, 0.5, 1e-6)]);
  out.push(['float32 A against double B', uniform(700, 3, r), Float64Array.from(uniform(600, 3, r, 0.2))]);
  return out;
}

