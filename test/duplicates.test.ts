// Exact duplicates (issue 30): copies of a point lie at exactly the same distance from every query, so no
// float bound separates them, and the exact pass used to evaluate every copy in double for every query that
// reached them (O(N * M) for M copies). The fast methods now search the first copy of each group, so a set
// with copies must cost what its first copies alone cost (the native work counters, never a timing), and
// give the double-precision brute force's answers: distances, witnesses and per-point nearest indices, ties
// to the smallest index, for every thread count. Copies are equal in double: points whose float copies
// coincide but whose doubles differ stay apart.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { hausdorff, type HausdorffResult } from '../src/ops/hausdorff.js';
import { nearestDistances } from '../src/ops/nearest.js';
import { firstCopies, rng, uniform, withCopiesOf, withDuplicates } from './random-points.js';

const COPIES = 20_000;

function witnesses(r: HausdorffResult) {
  return [r.hd, r.ab.distance, r.ab.fromIndex, r.ab.toIndex, r.ba!.distance, r.ba!.fromIndex, r.ba!.toIndex];
}

function evals(r: HausdorffResult): number {
  return r.ab.distanceEvals + r.ba!.distanceEvals;
}

/** Queries spread over the unit box, and as many crowded around `point` (each of them reaches its copies). */
function queriesAround(point: [number, number, number], random: () => number): Float32Array {
  const spread = uniform(1000, 3, random);
  const near = uniform(1000, 3, random, 0, 2e-3);
  for (let i = 0; i < near.length; i += 3) for (let k = 0; k < 3; k++) near[i + k] += point[k] - 1e-3;
  const all = new Float32Array(spread.length + near.length);
  all.set(spread);
  all.set(near, spread.length);
  return all;
}

/**
 * Work with copies against work on the first copies alone. The two runs frame their sets from different
 * samples (the full set, the unique one), so their float copies, and the float search's counts, may differ
 * a little (1% seen on the H100 machine); copies that were not dropped would cost thousands of times more.
 */
function costsNoMore(withCopies: number, unique: number, label: string): void {
  assert.ok(withCopies <= 1.1 * unique + 100, `${label}: ${withCopies} distances evaluated, ${unique} without the copies`);
}

describe('exact duplicates cost what their first copies cost', () => {
  // 50,000 targets: more than the detection samples, so it has to find the copies from its sample.
  const point: [number, number, number] = [0.3, 0.6, 0.2];
  const targets = withCopiesOf(uniform(30_000, 3, rng(1)), point, COPIES, 15_000);
  const queries = queriesAround(point, rng(2));

  it(`nearest distances: ${COPIES} copies of one target among 30,000 others`, async () => {
    const reference = await nearestDistances(queries, targets, { method: 'brute', threads: 2, indices: true });
    const unique = await nearestDistances(queries, firstCopies(targets), { method: 'grid', threads: 1 });
    // The copies are the nearest target of the crowded queries, found at the first copy's index.
    assert.ok(reference.nearest!.filter((j) => j === 15_000n).length > 500, 'the copies are the nearest of many queries');
    for (const threads of [1, 2, 3]) {
      const grid = await nearestDistances(queries, targets, { method: 'grid', threads, indices: true });
      assert.deepEqual(grid.distances, reference.distances, `distances, ${threads} threads`);
      assert.deepEqual(grid.nearest, reference.nearest, `nearest indices, ${threads} threads`);
      // Before: every crowded query evaluated all 20,000 copies in double (over 2e7 in all).
      costsNoMore(grid.distanceEvals, unique.distanceEvals, `${threads} threads`);
    }
  });

  it(`hausdorff grid and eb: ${COPIES} copies in A, and in B copies of another point and of points of A`, async () => {
    const a = withCopiesOf(uniform(3000, 3, rng(3)), [0.9, 0.1, 0.5], COPIES, 0);
    const b = withCopiesOf(withDuplicates(a.subarray(3 * COPIES, 3 * (COPIES + 500)).slice(), 4, rng(4)),
      [0.25, 0.25, 0.25], COPIES, 1000);
    const reference = await hausdorff(a, b, { method: 'brute', threads: 2 });
    for (const method of ['grid', 'eb'] as const) {
      // One thread: the float searches are then deterministic, and so is what they cost.
      const unique = await hausdorff(firstCopies(a), firstCopies(b), { method, threads: 1 });
      for (const threads of [1, 2]) {
        const r = await hausdorff(a, b, { method, threads });
        assert.deepEqual(witnesses(r), witnesses(reference), `${method}, ${threads} threads`);
        if (threads === 1) costsNoMore(evals(r), evals(unique), method);
      }
    }
  });

  it('groups of copies scattered through 180,000 points: the same answers for 1, 2 and 7 threads', async () => {
    const random = rng(5);
    const targets = withDuplicates(uniform(60_000, 3, random), 3, random);
    const queries = uniform(1500, 3, random, -0.1, 1.2);
    const reference = await nearestDistances(queries, targets, { method: 'brute', threads: 2, indices: true });
    const unique = await nearestDistances(queries, firstCopies(targets), { method: 'grid', threads: 1 });
    for (const threads of [1, 2, 7]) {
      const grid = await nearestDistances(queries, targets, { method: 'grid', threads, indices: true });
      assert.deepEqual(grid.nearest, reference.nearest, `nearest indices, ${threads} threads`);
      assert.deepEqual(grid.distances, reference.distances, `distances, ${threads} threads`);
      costsNoMore(grid.distanceEvals, unique.distanceEvals, `${threads} threads`);
    }
  });
});

describe('only points equal in double are copies', () => {
  // p and q differ by 1e-9 in x: their float copies (relative to the centre of a unit box) are equal, their
  // doubles are not, and a query nearer q than p must be given q's index even though p's copies come first.
  // (0, 0.25, 0.75) and (-0, 0.25, 0.75) are one point: equal, at equal distance from everything.
  const p = [0.5, 0.5, 0.5], q = [0.5 + 1e-9, 0.5, 0.5];
  const random = rng(6);
  const rows: number[] = [];
  for (let i = 0; i < 300; i++) rows.push(random(), random(), random());
  for (let i = 0; i < 2000; i++) rows.push(...p);
  for (let i = 0; i < 2000; i++) rows.push(...q);
  for (let i = 0; i < 2000; i++) rows.push(i % 2 === 0 ? -0 : 0, 0.25, 0.75);
  for (let i = 0; i < 2000; i++) rows.push(...p);
  const targets = Float64Array.from(rows);
  const probes: number[] = [];
  for (const dx of [-1e-6, -1e-10, 0, 4e-10, 5e-10, 6e-10, 1e-9, 2e-9, 1e-6]) probes.push(0.5 + dx, 0.5, 0.5);
  for (const x of [-1e-3, -0, 0, 1e-12]) probes.push(x, 0.25, 0.75);
  for (let i = 0; i < 200; i++) probes.push(random(), random(), random());
  const queries = Float64Array.from(probes);

  it('nearest indices and distances equal the brute force', async () => {
    const reference = await nearestDistances(queries, targets, { method: 'brute', threads: 2, indices: true });
    // Both p (index 300) and q (index 2300) are the nearest of some probe: the case is what it claims.
    assert.ok(reference.nearest!.includes(300n) && reference.nearest!.includes(2300n));
    for (const threads of [1, 2]) {
      const grid = await nearestDistances(queries, targets, { method: 'grid', threads, indices: true });
      assert.deepEqual(grid.nearest, reference.nearest, `nearest indices, ${threads} threads`);
      assert.deepEqual(grid.distances, reference.distances, `distances, ${threads} threads`);
    }
  });

  it('hausdorff witnesses equal the brute force, both ways', async () => {
    for (const [a, b, label] of [[queries, targets, 'probes → targets'], [targets, queries, 'targets → probes']] as const) {
      const reference = await hausdorff(a, b, { method: 'brute', threads: 2 });
      for (const method of ['grid', 'eb'] as const) {
        const r = await hausdorff(a, b, { method, threads: 2 });
        assert.deepEqual(witnesses(r), witnesses(reference), `${label}, ${method}`);
      }
    }
  });
});
