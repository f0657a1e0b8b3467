// The CUDA per-point search's queries far from every target (kernels/cuda/hard_queries.cuh): the first pass
// (nearest_group.cuh) lists a query whose nearest lies beyond the rings of cells it steps over, and passes
// that share its work among many threads settle it, or a one-thread descent of the grid's tree when there
// are too many. Whichever path settles a query, its distance and nearest index must be the CPU's and the
// brute force's, bit for bit. The rings and the cap are set through XHD_CUDA_STEP_RINGS and
// XHD_CUDA_BRUTE_CAP, which the library reads at each call.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { pointsSearch } from '../src/ops/points-search.js';
import { utmShiftedTile } from './exact-cases.js';
import { assertSearchExact, cases, noGpu } from './points-search-cases.js';
import { clustered, rng, uniform } from './random-points.js';
import { withEnv } from './reader-test-tools.js';
import { suiteUnless } from './skippable-suite.js';

const EVERY_QUERY_SLICED = { XHD_CUDA_STEP_RINGS: '0' };
const EVERY_QUERY_BACK_TO_THE_GRID = { XHD_CUDA_STEP_RINGS: '0', XHD_CUDA_BRUTE_CAP: '0' };
const ONE_RING = { XHD_CUDA_STEP_RINGS: '1' };

/** A surface-like pair as a segmentation gives: two shells a voxel or two apart, and an island of B far
 * from every point of A (its queries are the far ones). Lattice coordinates in double, 1 mm apart. */
function shellsWithIsland(): [Float64Array, Float64Array] {
  const shell = (cx: number, r: number, out: number[]) => {
    for (let x = -r - 1; x <= r + 1; x++)
      for (let y = -r - 1; y <= r + 1; y++)
        for (let z = -r - 1; z <= r + 1; z++) {
          const d = Math.hypot(x, y, z);
          if (d <= r && d > r - 1) out.push(cx + x, y, z);
        }
  };
  const a: number[] = [], b: number[] = [];
  shell(0, 18, a);
  shell(1, 19, b);
  shell(60, 4, b);  // the island: about 40 mm from A
  return [Float64Array.from(a), Float64Array.from(b)];
}

suiteUnless(noGpu, 'points search on the CUDA backend: queries far from every target', () => {
  for (const [mode, settings] of [
    ['every query listed and settled by the slice passes', EVERY_QUERY_SLICED],
    ['every query listed and left to the one-thread pass', EVERY_QUERY_BACK_TO_THE_GRID],
    ['one ring of cells (listed and stepped queries in one launch)', ONE_RING],
  ] as const) {
    for (const [label, a, b] of cases()) {
      it(`${mode}: ${label}`, () => withEnv(settings, () => assertSearchExact(label, a, b, 'cuda')));
    }
  }

  it('the slice passes ran: each listed query was measured against every target; in the one-thread pass, far fewer', async () => {
    const a = clustered(6000, 3, rng(31)), b = clustered(5000, 3, rng(32));
    const sliced = await withEnv(EVERY_QUERY_SLICED, () => pointsSearch(a, b, { backend: 'cuda', distances: true }));
    assert.ok(sliced.ab.distanceEvals >= 6000 * 5000, `A→B evaluated ${sliced.ab.distanceEvals} distances`);
    assert.ok(sliced.ba!.distanceEvals >= 5000 * 6000, `B→A evaluated ${sliced.ba!.distanceEvals} distances`);
    const grid = await withEnv(EVERY_QUERY_BACK_TO_THE_GRID, () => pointsSearch(a, b, { backend: 'cuda', distances: true }));
    assert.ok(grid.ab.distanceEvals < 6000 * 5000 / 10, `A→B evaluated ${grid.ab.distanceEvals} distances`);
    assert.deepEqual(sliced.perPoint, grid.perPoint);
  });

  it('shells with a far island, at the default rings: the CPU values and witnesses bit for bit', async () => {
    const [a, b] = shellsWithIsland();
    await assertSearchExact('shells with a far island', a, b, 'cuda');
    const sliced = await withEnv(EVERY_QUERY_SLICED, () => pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true }));
    const plain = await pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true });
    assert.deepEqual(plain.perPoint, sliced.perPoint);
  });

  it('listed queries in chunks and target tiles under a 40 MiB budget: the CPU values', async () => {
    const [a, partners] = utmShiftedTile(300_000, 33);
    const b = partners.slice(0, 3 * 50_000);
    const cpu = await pointsSearch(a, b, { backend: 'cpu', directed: true, distances: true, nearest: true });
    const settings = { XHD_CUDA_MEMORY_LIMIT: String(40 << 20), XHD_CUDA_STEP_RINGS: '1', XHD_CUDA_BRUTE_CAP: String(1e12) };
    const gpu = await withEnv(settings, () => pointsSearch(a, b, { backend: 'cuda', directed: true, distances: true, nearest: true }));
    assert.ok(gpu.queryChunks > 1, `expected several chunks, got ${gpu.queryChunks}`);
    assert.deepEqual([gpu.ab.distance, gpu.ab.fromIndex, gpu.ab.toIndex], [cpu.ab.distance, cpu.ab.fromIndex, cpu.ab.toIndex]);
    assert.deepEqual(gpu.perPoint, cpu.perPoint);
    const [ta, tb] = [uniform(200_000, 3, rng(34)), uniform(150_000, 3, rng(35))];
    const tiledCpu = await pointsSearch(ta, tb, { backend: 'cpu', distances: true, nearest: true });
    const { XHD_CUDA_MEMORY_LIMIT: _, ...budgetOnly } = settings;
    const tiled = await withEnv(budgetOnly, () =>
      pointsSearch(ta, tb, { backend: 'cuda', distances: true, nearest: true, memoryLimit: 24 << 20 }));
    assert.ok(tiled.placement.targetTiles > 1, `expected tiles, got ${tiled.placement.targetTiles}`);
    assert.deepEqual(tiled.perPoint, tiledCpu.perPoint);
    const triple = (d: { distance: number; fromIndex: number; toIndex: number }) => [d.distance, d.fromIndex, d.toIndex];
    assert.deepEqual([triple(tiled.ab), triple(tiled.ba!)], [triple(tiledCpu.ab), triple(tiledCpu.ba!)]);
  });
});
