// The library entry point: argument checks before any native call, options, and cancellation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CancelledError, hausdorff } from '../src/ops/hausdorff.js';
import { UsageError } from '../src/core/errors.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { rng, shifted, uniform } from './random-points.js';

describe('hausdorff() arguments', () => {
  const ok = uniform(10, 3, rng(1));

  it('rejects what is not a Float32Array of whole points', async () => {
    await assert.rejects(hausdorff([0, 0, 0] as unknown as Float32Array, ok), (e: unknown) => e instanceof UsageError && /Float32Array/.test(e.message));
    await assert.rejects(hausdorff(new Float32Array(0), ok), /at least one point/);
    await assert.rejects(hausdorff(ok, new Float32Array(4)), /at least one point/);
  });

  it('rejects NaN and infinite coordinates, naming the point (the native call checks them)', async () => {
    const bad = ok.slice();
    bad[3 * 4 + 1] = Number.NaN;
    await assert.rejects(hausdorff(bad, ok), (e: unknown) => e instanceof UsageError && /point 4 of set A has a non-finite coordinate/.test(e.message));
    bad[3 * 4 + 1] = Number.POSITIVE_INFINITY;
    await assert.rejects(hausdorff(ok, bad), /point 4 of set B has a non-finite coordinate/);
    bad[3 * 4 + 1] = 2e15;
    await assert.rejects(pointsSearch(ok, bad, { distances: true }), /point 4 of set B has a coordinate beyond \+-1e15/);
  });

  it('rejects unknown methods and bad thread counts', async () => {
    await assert.rejects(hausdorff(ok, ok, { method: 'fast' as never }), /grid, eb, brute/);
    await assert.rejects(hausdorff(ok, ok, { threads: 0 }), /threads/);
    await assert.rejects(hausdorff(ok, ok, { threads: 1.5 }), /threads/);
  });

  it('coordinates beyond ±1e15 (float or double) are refused by the native library with its message', async () => {
    const huge = ok.slice();
    huge[0] = 3e15;
    await assert.rejects(hausdorff(huge, ok), /point 0 of set A has a coordinate beyond \+-1e15/);
    const hugeDoubles = Float64Array.from(ok);
    hugeDoubles[4] = -2e15;
    await assert.rejects(hausdorff(ok, hugeDoubles), /point 1 of set B has a coordinate beyond \+-1e15/);
  });

  it('the check, split among threads, still names the first point beyond ±1e15', async () => {
    const big = uniform(300_000, 3, rng(3));
    big[3 * 250_000 + 2] = 5e15;  // in a later block, checked first by some thread
    big[3 * 70_000 + 1] = -4e15;
    for (const threads of [1, 4]) {
      await assert.rejects(hausdorff(big, ok, { threads }), /point 70000 of set A has a coordinate beyond \+-1e15/, `${threads} threads`);
    }
  });
});

describe('hausdorff() options', () => {
  const r = rng(2);
  const a = uniform(3000, 3, r);
  const b = shifted(uniform(3000, 3, r), 0.05);

  it('directed computes A → B only', async () => {
    const both = await hausdorff(a, b);
    const directed = await hausdorff(a, b, { directed: true });
    assert.equal(directed.ba, null);
    assert.equal(directed.hd, directed.ab.distance);
    assert.equal(directed.ab.distance, both.ab.distance);
  });

  // Threads and cell sizes as the CPU backend takes them (the GPU rounds cells to powers of two per axis).
  it('thread count and seed change nothing in the answer', async () => {
    const one = await hausdorff(a, b, { threads: 1, seed: 1, backend: 'cpu' });
    const two = await hausdorff(a, b, { threads: 2, seed: 99, backend: 'cpu' });
    const eb = await hausdorff(a, b, { method: 'eb', threads: 3, seed: 5, backend: 'cpu' });
    assert.equal(one.hd, two.hd);
    assert.equal(one.ab.fromIndex, two.ab.fromIndex);
    assert.equal(eb.hd, one.hd);
    assert.equal(one.threads, 1);
  });

  it('an explicit cell size is used and still gives the exact answer', async () => {
    const auto = await hausdorff(a, b, { backend: 'cpu' });
    for (const cellSize of [0.05, 0.9, 10]) {
      const r2 = await hausdorff(a, b, { cellSize, backend: 'cpu' });
      assert.equal(r2.hd, auto.hd, `cell ${cellSize}`);
      assert.equal(r2.ab.cellSize, Math.fround(cellSize));
    }
    // So fine a grid would need ~4e7 cells for 3000 points: the size is raised to respect the cell cap.
    const capped = await hausdorff(a, b, { cellSize: 0.003, backend: 'cpu' });
    assert.equal(capped.hd, auto.hd);
    assert.ok(capped.ab.cellSize > 0.003);
    assert.ok(capped.ab.gridDims[0] * capped.ab.gridDims[1] * capped.ab.gridDims[2] <= 4 * 3000);
  });

  it('reports progress up to the total', async () => {
    const seen: Array<[number, number]> = [];
    await hausdorff(a, b, { onProgress: (done, total) => seen.push([done, total]) });
    const last = seen.at(-1)!;
    assert.deepEqual(last, [6000, 6000]);
  });

  it('an abort signal stops the native work', async () => {
    const big = uniform(400_000, 3, rng(3));
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 50);
    // eb on near-ties is quadratic: minutes if it were not cancelled.
    await assert.rejects(hausdorff(big, shifted(big, 1e-3), { method: 'eb', signal: controller.signal }), CancelledError);
    assert.ok(performance.now() - started < 5000, 'cancellation took effect promptly');
  });

  it('an already aborted signal rejects before any work', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(hausdorff(a, b, { signal: controller.signal }), CancelledError);
  });
});
