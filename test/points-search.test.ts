// xhd_points_compare (src/ops/points-search.ts): one search gives the Hausdorff distance with its witnesses and
// every point's nearest distance and index. Its answers must be, bit for bit, xhd_hausdorff's (distance and
// both witness indices), xhd_nearest_points's per-point values, and the double-precision brute force's, on
// float32 and double inputs of every awkward shape; on the CPU always, on the CUDA backend where a GPU is usable
// (its suites skip with the reason otherwise).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { hausdorff } from '../src/ops/hausdorff.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { bruteNearest, utmNearTies, utmShiftedTile } from './exact-cases.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { assertSearchExact, cases, noGpu } from './points-search-cases.js';
import { clustered, rng, uniform } from './random-points.js';
import { suiteUnless } from './skippable-suite.js';

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
