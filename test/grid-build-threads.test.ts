// The CPU grid is built by all the threads asked for (a parallel stable sort of the points by cell, then
// chunks, cell table and, on first use, the chunk tree): its answers must not depend on how many there
// are. Same distances, same witnesses and same nearest indices (ties to the smallest index, which needs
// the points of a cell in input order) as one thread, and as the double-precision brute force.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { hausdorff, type HausdorffResult } from '../src/ops/hausdorff.js';
import { nearestDistances } from '../src/ops/nearest.js';
import { assertWitnesses } from './assert-hausdorff.js';
import { clustered, rng, sphereSurface, uniform, withDuplicates } from './random-points.js';

// More threads than this machine may have cores, and an odd count that splits nothing evenly.
const MANY_THREADS = [4, 7];

// Large enough that every pass of the build is cut into several ranges (32k and 64k points each).
const TARGETS = 240_000;

/** Queries around and inside the targets' box, copies of some targets (distance 0; a duplicated target
 * must be found at its smallest index), and far-away points, which leave the ring search for the chunk tree. */
function probes(targets: Float32Array, random: () => number): Float32Array {
  const around = uniform(1500, 3, random, -0.2, 1.4);
  for (let i = 1; i < around.length; i += 3) around[i] -= 0.2;
  for (let i = 2; i < around.length; i += 3) around[i] -= 0.2;
  const far = uniform(400, 3, random, 6, 1);
  const copies = new Float32Array(3 * 400);
  for (let k = 0; k < 400; k++) {
    const t = Math.floor(random() * (targets.length / 3));
    copies.set(targets.subarray(3 * t, 3 * t + 3), 3 * k);
  }
  const all = new Float32Array(around.length + far.length + copies.length);
  all.set(around);
  all.set(far, around.length);
  all.set(copies, around.length + far.length);
  return all;
}

function directed(r: HausdorffResult) {
  return [r.hd, r.ab.distance, r.ab.fromIndex, r.ab.toIndex, r.ba!.distance, r.ba!.fromIndex, r.ba!.toIndex];
}

describe('grid built by several threads answers as one thread and as brute force', () => {
  const cases: [string, (random: () => number) => Float32Array][] = [
    ['uniform, every point twice (ties)', (random) => withDuplicates(uniform(TARGETS / 2, 3, random), 2, random)],
    ['sphere surface (mostly empty cells)', (random) => sphereSurface(TARGETS, random)],
    ['clustered (crowded cells)', (random) => clustered(TARGETS, 3, random)],
  ];

  for (const [name, make] of cases) {
    it(`${name}: nearest distances and indices, ${TARGETS} targets`, async () => {
      const random = rng(TARGETS + name.length);
      const targets = make(random);
      const queries = probes(targets, random);
      const reference = await nearestDistances(queries, targets, { method: 'brute', threads: 2, indices: true });
      // The copies of targets sit at distance 0 (a check that the probes are what they claim).
      assert.equal(reference.distances[reference.distances.length - 1], 0);
      for (const threads of [1, ...MANY_THREADS]) {
        const grid = await nearestDistances(queries, targets, { method: 'grid', threads, indices: true });
        assert.deepEqual(grid.distances, reference.distances, `${name}: distances with ${threads} threads`);
        assert.deepEqual(grid.nearest, reference.nearest, `${name}: nearest indices with ${threads} threads`);
      }
    });
  }

  it('sphere surfaces of two radii: Hausdorff distance and witnesses for every thread count', async () => {
    const random = rng(31);
    const a = sphereSurface(200_000, random), b = sphereSurface(200_000, random, 0.49);
    const one = await hausdorff(a, b, { threads: 1 });
    assertWitnesses(one, a, b, 'spheres');
    assert.ok(one.hd >= 0.01 && one.hd < 0.02, `the radii differ by 0.01, the gaps between points are small: ${one.hd}`);
    for (const threads of MANY_THREADS) {
      const many = await hausdorff(a, b, { threads });
      assert.deepEqual(directed(many), directed(one), `spheres with ${threads} threads`);
    }
  });

  for (const [name, make] of [
    ['uniform', (r: () => number) => uniform(160_000, 3, r)],
    ['clustered', (r: () => number) => clustered(160_000, 3, r)],
  ] as const) {
    it(`${name}, 160k points: 1 and 3 threads, and eb`, async () => {
      const r = rng(160);
      const a = make(r), b = make(r);
      const one = await hausdorff(a, b, { threads: 1 });
      const three = await hausdorff(a, b, { threads: 3 });
      const eb = await hausdorff(a, b, { method: 'eb', threads: 2 }); // fast here: no near-ties
      assert.deepEqual(directed(three), directed(one), `${name} with 3 threads`);
      assert.deepEqual(directed(eb), directed(one), `${name} eb against grid`);
      assertWitnesses(three, a, b, name);
    });
  }
});
