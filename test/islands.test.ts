// Point sets in groups far apart (two buildings of one scan, a second object placed far off): searched an island
// at a time, each in a frame and grid of its own (kernels/geometry/island_compare.h). One frame over both put each
// group into a few cells of a grid sized by the whole span: 200,000 points in two cubes 1e7 apart took 87 s on the
// CPU against 0.4 s for one cube. An island of one set alone (a far cluster of stray returns, an object in one epoch
// only) is searched against the other set's targets in double (island_orphans.h). The answers must stay the double
// brute force's, per point and witnesses included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { CancelledError, hausdorff, type HausdorffResult } from '../src/ops/hausdorff.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { assertExact, bruteNearest } from './exact-cases.js';
import { rng } from './random-points.js';
import { suiteUnless } from './skippable-suite.js';

type Points = Float32Array | Float64Array;
type Typed = Float32ArrayConstructor | Float64ArrayConstructor;

/** n points of A in a unit cube (a square when flat), B = A moved by a little noise, each point then moved by the
 *  offset of its group: group g holds the points i with i % offsets.length === g. */
function groups(n: number, seed: number, offsets: number[][], Kind: Typed = Float64Array, flat = false): [Points, Points] {
  const random = rng(seed);
  const a = new Kind(3 * n), b = new Kind(3 * n);
  for (let i = 0; i < n; i++) {
    const at = offsets[i % offsets.length];
    for (let k = 0; k < 3; k++) {
      if (flat && k === 2) continue;
      const v = random();
      a[3 * i + k] = at[k] + v;
      b[3 * i + k] = at[k] + v + 0.004 * (random() - 0.5);
    }
  }
  return [a, b];
}

/** Whether a compare of groups at 0 and (1e7, 1e7, 0) ran in an island's frame: its origin inside one of them. */
function inAnIsland(r: HausdorffResult): boolean {
  const [x, y, z] = r.coordinateOrigin;
  return Math.hypot(x, y, z) < 10 || Math.hypot(x - 1e7, y - 1e7, z) < 10;
}

type IslandCase = [string, () => [Points, Points]];

const CASES: IslandCase[] = [
  ['two groups 1e7 apart on a diagonal', () => groups(3000, 1, [[0, 0, 0], [1e7, 1e7, 0]])],
  ['three groups, two of them cut apart only after the first cut', () => groups(3000, 2, [[0, 0, 0], [0, -5e4, 3e4], [1e6, 0, 0]])],
  ['float32 inputs (their own truth)', () => groups(3000, 3, [[0, 0, 0], [3e6, 0, 0]], Float32Array)],
  ['flat groups (z = 0)', () => groups(3000, 4, [[0, 0, 0], [0, 400, 0]], Float64Array, true)],
  ['groups 30 apart, the nearest the split takes', () => groups(3000, 5, [[0, 0, 0], [30, 0, 0]])],
  ['copies and exact ties across a group (duplicates are dropped inside each island)', () => {
    const [a, b] = groups(3000, 6, [[0, 0, 0], [-2e5, 0, 0]]);
    for (let i = 100; i < 160; i++) b.copyWithin(3 * i, 3 * 40, 3 * 41);  // B's copies of one point
    for (let i = 1; i < 30; i++) a.copyWithin(3 * (2 * i), 0, 3);           // A's copies of one point
    for (let i = 200; i < 240; i++) a.copyWithin(3 * i, 3 * (i + 1000), 3 * (i + 1001));  // equal to other A points
    return [a, b];
  }],
  ['a group of A with no B near it (an island of A alone: its queries searched against B\'s targets)', () => {
    const [a, b] = groups(3000, 7, [[0, 0, 0], [5e6, 0, 0]]);
    for (let i = 1; i < 3000; i += 2) b.set([0.5, 0.5, 0.5 + i * 1e-5], 3 * i);  // B's far group moved home
    return [a, b];
  }],
  ['5% of A in a cluster at 1e9, with no B there, and copies of B\'s nearest point to it', () => {
    const [a, b] = groups(3000, 12, [[0, 0, 0]]);
    for (let i = 0; i < 3000; i += 20) a.set([1e9 + (i % 7) * 1e-4, 1e9 + (i % 11) * 1e-4, 1e9 + (i % 13) * 1e-4], 3 * i);
    for (let i = 5; i < 3000; i += 300) b.set([1.5, 1.5, 1.5], 3 * i);  // ties for every query of the cluster
    return [a, b];
  }],
  ['a group of each set alone: one of A, one of B, far from the shared group and each other', () => {
    const [a, b] = groups(3000, 13, [[0, 0, 0], [1e6, 0, 0], [1e6, 3e4, 0]]);
    for (let i = 1; i < 3000; i += 3) b.set([0.2, 0.3, 0.4], 3 * i);  // B leaves A's group at (1e6, 0, 0)
    for (let i = 2; i < 3000; i += 3) a.set([0.6, 0.7, 0.1], 3 * i);  // A leaves B's group at (1e6, 3e4, 0)
    return [a, b];
  }],
  ['a row of five groups evenly spaced (no one cut parts it; a row of cuts does)', () =>
    groups(3000, 16, [0, 1, 2, 3, 4].map((g) => [g * 2e3, 0, 0]))],
  ['a lattice of 2 x 2 x 2 groups, float32', () =>
    groups(3200, 17, [0, 1, 2, 3, 4, 5, 6, 7].map((g) => [(g % 2) * 500, (Math.floor(g / 2) % 2) * 500, Math.floor(g / 4) * 500]), Float32Array)],
  ['A and B far apart from each other: every query an orphan', () => {
    const [a, b] = groups(2000, 14, [[0, 0, 0]], Float32Array);
    for (let i = 0; i < b.length; i += 3) b[i] += 4e6;
    return [a, b];
  }],
];

describe('islands: a compare split by far groups equals the double brute force', () => {
  for (const [name, make] of CASES) {
    it(name, async () => {
      const [a, b] = make();
      for (const method of ['grid', 'eb'] as const) {
        for (const threads of [1, 3]) assertExact(await hausdorff(a, b, { method, threads, backend: 'cpu' }), a, b, `${name} ${method} ${threads}`);
      }
      const searched = await pointsSearch(a, b, { backend: 'cpu', distances: true, nearest: true, threads: 2 });
      assertExact(searched, a, b, `${name} per point`);
      for (const [side, queries, targets] of [['ab', a, b], ['ba', b, a]] as const) {
        const want = bruteNearest(queries, targets);
        const got = searched.perPoint![side]!;
        assert.deepEqual(Array.from(got.nearest!, Number), Array.from(want.index), `${name} ${side}: nearest indices`);
        assert.deepEqual(Array.from(got.distances!), Array.from(want.d2, Math.sqrt), `${name} ${side}: distances`);
      }
    });
  }
});

describe('islands: the work of far groups is the work of each alone', () => {
  const work = (r: HausdorffResult) => r.ab.distanceEvals + r.ba!.distanceEvals;

  /** 10,000 points in one cube, and 20,000 in two cubes `apart` apart (from the same seed): their evaluations. */
  async function oneAndTwo(apart: number[], seed: number): Promise<[HausdorffResult, HausdorffResult]> {
    const [a1, b1] = groups(10000, seed, [[0, 0, 0]]);
    const [a2, b2] = groups(20000, seed, [[0, 0, 0], apart]);
    return [await hausdorff(a1, b1, { backend: 'cpu', threads: 2 }), await hausdorff(a2, b2, { backend: 'cpu', threads: 2 })];
  }

  it('two groups 1e7 apart cost about twice one group (before: every pair of a group)', async () => {
    const [one, two] = await oneAndTwo([1e7, 1e7, 0], 8);
    assert.ok(work(two) <= 2.6 * work(one), `evaluations ${work(two)} for two groups, ${work(one)} for one`);
    // Each island's frame is its own: the origin reported is inside a group, not half way between them.
    assert.ok(inAnIsland(two), `origin ${two.coordinateOrigin}`);
  });

  it('5% of A in a far cluster with no B there costs the rest\'s work and a tree search each (before: 50 s)', async () => {
    const [a, b] = groups(20000, 15, [[0, 0, 0]]);
    const plain = await hausdorff(a, b, { backend: 'cpu', threads: 2 });
    const clustered = a.slice();
    for (let i = 0; i < 20000; i += 20) clustered.set([1e9 + (i % 7) * 1e-4, 1e9 + (i % 11) * 1e-4, 1e9 + (i % 13) * 1e-4], 3 * i);
    const r = await hausdorff(clustered, b, { backend: 'cpu', threads: 2 });
    assertExact(r, clustered, b, 'far cluster');
    assert.ok(work(r) <= work(plain) + 200 * 1000, `evaluations ${work(r)} with the cluster, ${work(plain)} without`);
  });

  it('a lattice of 4 x 4 x 4 groups costs about what one group of as many points costs (86 times searched whole)', async () => {
    const lattice = Array.from({ length: 64 }, (_, g) => [(g % 4) * 1e3, (Math.floor(g / 4) % 4) * 1e3, Math.floor(g / 16) * 1e3]);
    const [a1, b1] = groups(64000, 18, [[0, 0, 0]]);
    const [a64, b64] = groups(64000, 18, lattice);
    const one = await hausdorff(a1, b1, { backend: 'cpu', threads: 2 });
    const split = await hausdorff(a64, b64, { backend: 'cpu', threads: 2 });
    assert.ok(work(split) <= 3 * work(one), `evaluations ${work(split)} on the lattice, ${work(one)} in one group`);
  });

  it('groups 300 apart, within one grid\'s reach before, cost no more than twice one group', async () => {
    const [one, two] = await oneAndTwo([300, 300, 0], 9);
    assert.ok(work(two) <= 2.6 * work(one), `evaluations ${work(two)} for two groups, ${work(one)} for one`);
  });
});

describe('islands: progress and cancellation pass through to each island', () => {
  it('reports progress up to every query, counted once over the islands', async () => {
    const [a, b] = groups(6000, 10, [[0, 0, 0], [1e7, 1e7, 0]]);
    const seen: Array<[number, number]> = [];
    const r = await hausdorff(a, b, { backend: 'cpu', onProgress: (done, total) => seen.push([done, total]) });
    assert.ok(inAnIsland(r), `origin ${r.coordinateOrigin}: searched by islands`);
    assert.deepEqual(seen.at(-1), [12000, 12000]);
    for (const [done, total] of seen) assert.ok(done <= total, `${done} of ${total}`);
  });

  it('an abort signal reaches the islands\' searches', async () => {
    // eb on near-ties is quadratic within each island: minutes if it were not cancelled.
    const [a, b] = groups(400_000, 11, [[0, 0, 0], [1e7, 1e7, 0]]);
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(hausdorff(a, b, { method: 'eb', backend: 'cpu', signal: controller.signal }), CancelledError);
    assert.ok(performance.now() - started < 5000, 'cancellation took effect promptly');
  });
});

const cuda = probeBackend('cuda');
suiteUnless(cuda.available ? false : 'no usable CUDA GPU', 'islands on the GPU: X-HD, EB and per point equal the CPU reference', () => {
  for (const [name, make] of CASES) {
    it(name, async () => {
      const [a, b] = make();
      for (const method of ['grid', 'eb'] as const) assertExact(await hausdorff(a, b, { method, backend: 'cuda' }), a, b, `${name} ${method}`);
      const want = await pointsSearch(a, b, { backend: 'cpu', distances: true, nearest: true });
      const got = await pointsSearch(a, b, { backend: 'cuda', distances: true, nearest: true });
      for (const side of ['ab', 'ba'] as const) {
        assert.deepEqual(got.perPoint![side]!.distances, want.perPoint![side]!.distances, `${name} ${side}: distances`);
        assert.deepEqual(got.perPoint![side]!.nearest, want.perPoint![side]!.nearest, `${name} ${side}: nearest`);
      }
      const options = { percentile: 95, percentileVariant: 'max-of-directed' as const };
      const statsCpu = await pointsSearch(a, b, { backend: 'cpu', stats: { options, tolerances: [0.001, 0.01] } });
      const statsGpu = await pointsSearch(a, b, { backend: 'cuda', stats: { options, tolerances: [0.001, 0.01] } });
      assert.deepEqual(statsGpu.stats!.stats, statsCpu.stats!.stats, `${name}: statistics`);
      assert.deepEqual(statsGpu.stats!.within, statsCpu.stats!.within, `${name}: counts within`);
    });
  }
});
