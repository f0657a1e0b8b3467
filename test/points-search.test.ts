// xhd_points_compare (src/ops/points-search.ts): one search gives the Hausdorff distance with its witnesses and
// every point's nearest distance and index. Its answers must be, bit for bit, xhd_hausdorff's (distance and
// both witness indices), xhd_nearest_points's per-point values, and the double-precision brute force's, on
// float32 and double inputs of every awkward shape; on the CPU always, on the CUDA backend where a GPU is usable
// (its suites skip with the reason otherwise).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { hausdorff, type Method } from '../src/ops/hausdorff.js';
import { nearestDistances } from '../src/ops/nearest.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { AGREEMENT_CASES } from './agreement-cases.js';
import { bruteNearest, utmExactTies, utmNearTies, utmShiftedTile } from './exact-cases.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { clustered, rng, uniform, withDuplicates } from './random-points.js';
import { suiteUnless } from './skippable-suite.js';

type Points = Float32Array | Float64Array;

const cuda = probeBackend('cuda');
const noGpu = cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`;

/** The search on `backend` against xhd_hausdorff (CPU brute and the same backend's grid), xhd_nearest_points
 * and the TypeScript brute force, both directions. */
async function assertSearchExact(label: string, a: Points, b: Points, backend: 'cpu' | 'cuda', method: Method = 'grid'): Promise<void> {
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
function withOutliers(n: number, seed: number): [Float64Array, Float64Array] {
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
function surveyFloats(n: number, seed: number): [Float32Array, Float32Array] {
  const random = rng(seed);
  const a = new Float32Array(3 * n), b = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    a.set([5e5 + 100 * random(), 4.2e6 + 100 * random(), 100 + 10 * random()], 3 * i);
    b.set([a[3 * i] + 0.0625, a[3 * i + 1] - 0.125 * random(), a[3 * i + 2]], 3 * i);
  }
  return [a, b];
}

/** Every case both backends run: [label, A, B]. */
function cases(): Array<[string, Points, Points]> {
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

describe('points search on the CPU', () => {
  for (const [label, a, b] of cases()) {
    it(label, async () => assertSearchExact(label, a, b, 'cpu'));
  }

  it('eb and brute give the same per-point values and witnesses', async () => {
    const [a, b] = utmNearTies(400, 11);
    await assertSearchExact('near-ties, eb', a, b, 'cpu', 'eb');
    await assertSearchExact('near-ties, brute', a, b, 'cpu', 'brute');
  });

  it('without per-point outputs it is xhd_hausdorff (the pruned search)', async () => {
    const a = clustered(3000, 3, rng(12)), b = clustered(2500, 3, rng(24));
    const r = await pointsSearch(a, b, { backend: 'cpu' });
    const h = await hausdorff(a, b, { backend: 'cpu' });
    assert.equal(r.perPoint, null);
    assert.deepEqual([r.hd, r.ab.fromIndex, r.ab.toIndex, r.ba!.fromIndex, r.ba!.toIndex], [h.hd, h.ab.fromIndex, h.ab.toIndex, h.ba!.fromIndex, h.ba!.toIndex]);
    assert.ok(r.ab.prunedQueries > 0, 'the pruned search ran');
  });

  it('directed, distances only: A → B alone, no indices', async () => {
    const [a, b] = utmNearTies(500, 13);
    const r = await pointsSearch(a, b, { backend: 'cpu', directed: true, distances: true });
    assert.equal(r.ba, null);
    assert.equal(r.perPoint!.ba, null);
    assert.equal(r.perPoint!.ab.nearest, null);
    assert.deepEqual(r.perPoint!.ab.distances, bruteNearest(a, b).d2.map(Math.sqrt));
    assert.equal(r.ab.exactChecks, 500);
  });

  it('reports progress over every point and honours an abort', async () => {
    const a = uniform(20000, 3, rng(14)), b = uniform(20000, 3, rng(15));
    let last = [0, 0];
    await pointsSearch(a, b, { backend: 'cpu', distances: true, onProgress: (done, total) => (last = [done, total]) });
    assert.deepEqual(last, [40000, 40000]);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(pointsSearch(a, b, { backend: 'cpu', distances: true, signal: controller.signal }), { name: 'CancelledError' });
  });
});

suiteUnless(noGpu, 'points search on the CUDA backend', () => {
  for (const [label, a, b] of cases()) {
    it(label, async () => assertSearchExact(label, a, b, 'cuda'));
  }

  it('both directions at once (sets below 2^22 points) and one after the other: the same values and witnesses', async () => {
    for (const [a, b] of [utmNearTies(3000, 21), [uniform(50_000, 3, rng(22)), clustered(40_000, 3, rng(23))]] as const) {
      const together = await pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true });
      process.env.XHD_CUDA_CONCURRENT_DIRECTIONS = '0';
      let apart;
      try {
        apart = await pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true });
      } finally {
        delete process.env.XHD_CUDA_CONCURRENT_DIRECTIONS;
      }
      assert.deepEqual([together.ab, together.ba].map((d) => [d!.distance, d!.fromIndex, d!.toIndex]),
        [apart.ab, apart.ba].map((d) => [d!.distance, d!.fromIndex, d!.toIndex]));
      assert.deepEqual(together.perPoint, apart.perPoint);
    }
  });

  it('eb measures every point through the grid too', async () => {
    const [a, b] = utmNearTies(400, 16);
    await assertSearchExact('near-ties, eb', a, b, 'cuda', 'eb');
  });

  it('a million points each way: the CPU values bit for bit', async () => {
    for (const [a, b] of [[uniform(1_000_000, 3, rng(17)), clustered(700_000, 3, rng(18))], utmShiftedTile(400_000, 19)] as const) {
      const gpu = await pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true });
      const cpu = await pointsSearch(a, b, { backend: 'cpu', distances: true, nearest: true });
      assert.deepEqual([gpu.ab.distance, gpu.ab.fromIndex, gpu.ab.toIndex, gpu.ba!.distance, gpu.ba!.fromIndex, gpu.ba!.toIndex],
        [cpu.ab.distance, cpu.ab.fromIndex, cpu.ab.toIndex, cpu.ba!.distance, cpu.ba!.fromIndex, cpu.ba!.toIndex]);
      assert.deepEqual(gpu.perPoint, cpu.perPoint);
    }
  });

  it('in chunks under a 40 MiB budget: the same values', async () => {
    // As the Hausdorff search's chunk test (chunked-cuda.ts): a target that fits the budget, a source that does not.
    const [a, partners] = utmShiftedTile(300_000, 20);
    const b = partners.slice(0, 3 * 50_000);
    const cpu = await pointsSearch(a, b, { backend: 'cpu', directed: true, distances: true, nearest: true });
    process.env.XHD_CUDA_MEMORY_LIMIT = String(40 << 20);
    try {
      const gpu = await pointsSearch(a, b, { backend: 'cuda', directed: true, distances: true, nearest: true });
      assert.ok(gpu.queryChunks > 1, `expected several chunks, got ${gpu.queryChunks}`);
      assert.deepEqual([gpu.ab.distance, gpu.ab.fromIndex, gpu.ab.toIndex], [cpu.ab.distance, cpu.ab.fromIndex, cpu.ab.toIndex]);
      assert.equal(gpu.ba, null);
      assert.deepEqual(gpu.perPoint, cpu.perPoint);
    } finally {
      delete process.env.XHD_CUDA_MEMORY_LIMIT;
    }
  });

  it('the brute method stays on the CPU: refused by the CUDA library', async () => {
    const a = uniform(10, 3, rng(21));
    await assert.rejects(pointsSearch(a, a, { backend: 'cuda', method: 'brute', distances: true }));
  });

  it('xhd compare --backend cuda --stats --export: the CPU report and export', () => {
    const dir = scratchDir();
    const pa = join(dir, 'a.xyz'), pb = join(dir, 'b.xyz');
    writeXyz(pa, clustered(20000, 3, rng(22)));
    writeXyz(pb, clustered(15000, 3, rng(23)));
    const run = (backend: string) => {
      const out = join(dir, `${backend}.csv`);
      const r = runXhd(['compare', pa, pb, '--backend', backend, '--percentile', '95', '--export', out, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const json = JSON.parse(r.stdout);
      // What says how it ran differs; every distance, statistic and witness must not.
      for (const key of ['backend', 'threads', 'device', 'peak_device_memory_bytes', 'query_chunks', 'timings_ms', 'coordinate_origin', 'notes']) delete json[key];
      return { json, csv: readFileSync(out, 'utf8') };
    };
    assert.deepEqual(run('cuda'), run('cpu'));
  });
});
