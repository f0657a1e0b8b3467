// The search and the statistics of its distances in one native call (xhd_points_compare_stats): the same numbers
// as the search with its distances brought back and then xhd_distance_stats, and as the TypeScript statistics from
// the definitions, on the CPU library and on the GPU (where the distances stay on the device), with the distances
// returned or not, directed, with far outliers settled on the host, and under a memory limit that cuts the target
// into tiles, with and without room to keep the distances on the device.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { pointsSearch } from '../src/ops/points-search.js';
import { nativeDistanceStats } from '../src/ops/distance-stats-native.js';
import { distanceStats, type StatsOptions } from '../src/metrics/distance-stats.js';
import { noGpu, withOutliers } from './points-search-cases.js';
import { clustered, rng, uniform, withDuplicates } from './random-points.js';

type Points = Float32Array | Float64Array;
type Backend = 'cpu' | 'cuda';

const ASKED: StatsOptions = { percentile: 95, percentileVariant: 'max-of-directed' };
const POOLED: StatsOptions = { percentile: 90, percentileVariant: 'pooled' };
const TAUS = [0, 0.01, 0.05, 0.2];

/** Within counts from the definition: how many of d are <= tau. */
function within(d: Float64Array, tau: number): number {
  let n = 0;
  for (const v of d) if (v <= tau) n++;
  return n;
}

async function assertFused(label: string, a: Points, b: Points, backend: Backend, options: StatsOptions,
                           { directed = false, returned = false, taus = TAUS } = {}): Promise<void> {
  const tolerances = directed ? undefined : taus;
  const fused = await pointsSearch(a, b, { backend, directed, distances: returned, threads: 3, stats: { options, tolerances } });
  const plain = await pointsSearch(a, b, { backend, directed, distances: true, threads: 3 });
  const ab = plain.perPoint!.ab.distances!, ba = plain.perPoint!.ba?.distances ?? null;
  // The CPU library's xhd_distance_stats: the same bits as the GPU's (distance-stats-native.test.ts), and bound by
  // no device memory limit.
  const separate = await nativeDistanceStats(ab, ba, options, { backend: 'cpu', threads: 3, tolerances });
  assert.ok(fused.stats, `${label}: statistics came back`);
  assert.deepEqual(fused.stats.stats, separate.stats, `${label} ${backend}: the fused statistics against search + xhd_distance_stats`);
  assert.deepEqual(fused.stats.within, separate.within, `${label} ${backend}: counts within τ`);
  assert.deepEqual(fused.stats.stats, distanceStats(ab, ba, options), `${label} ${backend}: against the TypeScript statistics`);
  if (tolerances) {
    assert.deepEqual(fused.stats.within, { ab: tolerances.map((t) => within(ab, t)), ba: tolerances.map((t) => within(ba!, t)) },
      `${label} ${backend}: counts within τ from the definition`);
  }
  // The search's own answers do not change with the statistics asked for.
  const answers = (r: typeof plain) => [r.hd, ...[r.ab, r.ba].map((d) => d && [d.distance, d.fromIndex, d.toIndex])];
  assert.deepEqual(answers(fused), answers(plain), `${label} ${backend}: the Hausdorff answers`);
  if (returned) {
    assert.deepEqual(fused.perPoint!.ab.distances, ab, `${label} ${backend}: A's distances returned`);
    if (!directed) assert.deepEqual(fused.perPoint!.ba!.distances, ba, `${label} ${backend}: B's distances returned`);
  } else {
    assert.equal(fused.perPoint, null, `${label} ${backend}: no distances asked back`);
  }
}

function cases(): Array<[string, Points, Points]> {
  const random = rng(43);
  const [oa, ob] = withOutliers(3000, 7);
  const doubles = (p: Float32Array) => Float64Array.from(p, (v) => v + 1e-9 * random());
  return [
    ['uniform doubles', doubles(uniform(5000, 3, random)), doubles(uniform(4000, 3, random))],
    ['clustered floats', clustered(6000, 3, random), clustered(5000, 3, random)],
    ['duplicates', withDuplicates(uniform(1000, 3, random), 3, random), uniform(2000, 3, random)],
    ['far outliers (settled on the host)', oa, ob],
    ['one point', Float64Array.of(random(), random(), random()), doubles(uniform(100, 3, random))],
  ];
}

for (const backend of ['cpu', 'cuda'] as const) {
  test(`${backend}: the search's statistics equal those of its distances summed up apart`, { skip: backend === 'cuda' && noGpu }, async () => {
    for (const [label, a, b] of cases()) {
      await assertFused(label, a, b, backend, ASKED);
      await assertFused(`${label}, pooled, distances returned`, a, b, backend, POOLED, { returned: true });
      await assertFused(`${label}, directed`, a, b, backend, {}, { directed: true });
    }
  });
}

test('cuda: the same statistics when the target is searched in tiles, with the distances kept on the device or not',
  { skip: noGpu }, async () => {
    // A 24 MiB budget cuts a target of 330,000 points into tiles (as in placement-cuda.test.ts). 350,000 distances
    // (2.8 MB) stay within an eighth of it and are kept on the device; 900,000 (7.2 MB) are not: they come back and
    // are summed up on the host. The budget also binds the search's one-time cost probe: it is taken first, unbound.
    const random = rng(11);
    await pointsSearch(uniform(1000, 3, random), uniform(1000, 3, random), { backend: 'cuda' });
    for (const [na, nb] of [[20_000, 330_000], [500_000, 400_000]]) {
      const a = uniform(na, 3, random), b = uniform(nb, 3, random, 0.1);
      process.env.XHD_CUDA_MEMORY_LIMIT = String(24 << 20);
      try {
        await assertFused(`${na} + ${nb} points in 24 MiB`, a, b, 'cuda', ASKED);
        await assertFused(`${na} + ${nb} points in 24 MiB, returned`, a, b, 'cuda', POOLED, { returned: true });
      } finally {
        delete process.env.XHD_CUDA_MEMORY_LIMIT;
      }
    }
  });

test('a bad statistics request is refused before any search, naming what is wrong', async () => {
  const random = rng(12);
  const a = uniform(100, 3, random), b = uniform(100, 3, random);
  await assert.rejects(pointsSearch(a, b, { backend: 'cpu', stats: { options: ASKED, tolerances: [-1] } }), /tolerance 0 is negative/);
});
