// Many poses in one native call (MeshDistance.queryMany, xhd_distance_query_many) against one call per pose
// (query, xhd_distance_query): the same answers to the bit, every field but the time, on every backend here;
// cancelling a call part-way and cancelling a hierarchy build; the build's progress.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { probeBackend, type BackendChoice } from '../src/ops/backends.js';
import { CancelledError, UsageError } from '../src/core/errors.js';
import { MeshDistance, type DistanceMesh, type DistanceQuery, type MeshDistanceOptions, type Pose } from '../src/ops/mesh-distance.js';
import { pointsAsMesh } from '../src/ops/surface-distance.js';
import { SURVEY, shiftedBy, turnAbout } from './distance-pairs.js';
import { rng, uniform } from './random-points.js';
import { suiteUnless } from './skippable-suite.js';
import { cube, torus, triangleSoup, uvSphere } from './test-meshes.js';

const cuda = probeBackend('cuda');

function moved(mesh: DistanceMesh, dx: number, dy = 0, dz = 0): DistanceMesh {
  const positions = mesh.positions.map((v, i) => v + [dx, dy, dz][i % 3]);
  return { positions, triangles: mesh.triangles };
}

/** n poses turning B about z through its centre, moving it about and back: near, far, crossing, repeated. */
function posesAround(n: number, seed: number, centre: readonly number[] = [0, 0, 0]): Pose[] {
  const random = rng(seed);
  const poses: Pose[] = [];
  for (let k = 0; k < n; k++) {
    const t = [random() - 0.5, random() - 0.5, 0.5 * (random() - 0.5)];
    poses.push(k % 5 === 4 ? poses[k - 1] : turnAbout(centre, 360 * random(), t));
  }
  return poses;
}

const joined = (poses: Pose[]) => {
  const all = new Float64Array(12 * poses.length);
  poses.forEach((p, k) => all.set(p, 12 * k));
  return all;
};

/**
 * What must be equal: everything but queryMs, which is each query's own time; or, where the work counts may
 * differ from run to run, the distances with their pairs alone (on a GPU, threads prune against a bound that
 * others lower meanwhile; on several CPU threads, who finds what first differs).
 */
function answer(q: DistanceQuery, counts: boolean) {
  const { queryMs: _time, ...rest } = q;
  return counts ? rest : { min: q.min, max: q.max };
}

const random = rng(17);
const sphere = uvSphere(1, 20, 40), small = uvSphere(0.45, 12, 24);
const SCENES: [string, DistanceMesh, DistanceMesh, readonly number[]][] = [
  ['spheres', sphere, moved(small, 1.2), [0, 0, 0]],
  ['cubes touching and crossing (ties)', cube(0.5), moved(cube(0.5), 1), [0, 0, 0]],
  ['degenerate soups', triangleSoup(300, random), triangleSoup(200, random), [0.5, 0.5, 0.5]],
  ['a point cloud against a sphere', pointsAsMesh(Float32Array.from(uniform(200, 3, random, -1.5, 3))), sphere, [0, 0, 0]],
  ['doubles at survey coordinates', shiftedBy(sphere, SURVEY), shiftedBy(moved(small, 1.2), SURVEY), SURVEY],
];

/**
 * One context answers the poses one call each, another all in one call (in two calls, the second starting
 * where the first ended): the same answers to the bit, in order, min and max with their pairs, points and
 * flags, and with counts, the work counts and transfer times too (one CPU thread).
 */
async function assertManyEqualsSingles(backend: BackendChoice, options: MeshDistanceOptions, counts: boolean, count = 40) {
  for (const [name, a, b, centre] of SCENES) {
    const poses = posesAround(count, name.length, centre);
    const single = await MeshDistance.create(a, b, { ...options, backend });
    const many = await MeshDistance.create(a, b, { ...options, backend });
    try {
      const one: DistanceQuery[] = [];
      for (const pose of poses) one.push(await single.query(pose));
      const started = performance.now();
      const half = Math.ceil(count / 2);
      const all = [...await many.queryMany(joined(poses.slice(0, half))), ...await many.queryMany(joined(poses.slice(half)))];
      const wallMs = performance.now() - started;
      assert.equal(all.length, poses.length);
      for (let k = 0; k < poses.length; k++) assert.deepStrictEqual(answer(all[k], counts), answer(one[k], counts), `${name}, pose ${k}`);
      // Each time is that query's own: positive, and together no more than the calls took.
      assert.ok(all.every((q) => q.queryMs > 0), `${name}: every query timed`);
      assert.ok(all.reduce((s, q) => s + q.queryMs, 0) <= wallMs, `${name}: the times add up to no more than the calls`);
      if (name.startsWith('cubes')) assert.ok(one.some((q) => q.min?.intersecting), 'some poses cross');
    } finally {
      single.close();
      many.close();
    }
  }
}

const quiet = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('queryMany on the CPU', () => {
  it('equals one query per pose, bit for bit: the f12 search, minimum and maximum', async () => {
    await assertManyEqualsSingles('cpu', { min: true, max: true, threads: 1 }, true);
  });

  it('equals one query per pose: the reference over every pair, and the minimum alone on several threads', async () => {
    await assertManyEqualsSingles('cpu', { min: true, max: true, method: 'brute', threads: 1 }, true, 6);
    // On several threads only the distances and pairs are fixed (the counts depend on who found what first).
    const a = sphere, b = moved(small, 1.2), poses = posesAround(30, 3);
    const single = await MeshDistance.create(a, b, { backend: 'cpu', threads: 3 });
    const many = await MeshDistance.create(a, b, { backend: 'cpu', threads: 3 });
    try {
      const all = await many.queryMany(joined(poses));
      for (const [k, pose] of poses.entries()) {
        const q = await single.query(pose);
        assert.deepStrictEqual([all[k].min, all[k].max], [q.min, q.max], `pose ${k}`);
      }
    } finally {
      single.close();
      many.close();
    }
  });

  it('continues a context\'s sequence: single queries, a batch, single queries give what single queries alone give', async () => {
    const poses = posesAround(12, 9);
    const singles = await MeshDistance.create(sphere, moved(small, 1.2), { threads: 1, backend: 'cpu', min: true, max: true });
    const mixed = await MeshDistance.create(sphere, moved(small, 1.2), { threads: 1, backend: 'cpu', min: true, max: true });
    try {
      const want: DistanceQuery[] = [];
      for (const pose of poses) want.push(await singles.query(pose));
      const got = [await mixed.query(poses[0]), await mixed.query(poses[1]), ...await mixed.queryMany(joined(poses.slice(2, 10)))];
      for (const pose of poses.slice(10)) got.push(await mixed.query(pose));
      for (let k = 0; k < poses.length; k++) assert.deepStrictEqual(answer(got[k], true), answer(want[k], true), `pose ${k}`);
    } finally {
      singles.close();
      mixed.close();
    }
  });

  it('no poses give no answers; bad poses and closed contexts are refused', async () => {
    const context = await MeshDistance.create(cube(1), cube(1), { backend: 'cpu' });
    assert.deepEqual(await context.queryMany(new Float64Array(0)), []);
    await assert.rejects(context.queryMany(new Float64Array(13)), UsageError);
    const bad = joined([turnAbout([0, 0, 0], 10), turnAbout([0, 0, 0], 20)]);
    bad[14] = NaN;
    await assert.rejects(context.queryMany(bad), UsageError);
    // The library's own refusal, of the second pose, after the first was answered: a usage error as for query().
    const far = joined([turnAbout([0, 0, 0], 10), Float64Array.of(1e39, 0, 0, 0, 0, 1e39, 0, 0, 0, 0, 1e39, 0)]);
    await assert.rejects(context.queryMany(far), /beyond the float range/);
    context.close();
    await assert.rejects(context.queryMany(joined([turnAbout([0, 0, 0], 10)])), /closed/);
  });

  it('a signal stops a call between poses: CancelledError, the context still answers, and is freed on close', async () => {
    const open = MeshDistance.open;
    const a = uvSphere(1, 40, 80), b = moved(uvSphere(0.5, 30, 60), 1.3);
    const context = await MeshDistance.create(a, b, { backend: 'cpu', threads: 1, min: true, max: true });
    assert.equal(MeshDistance.open, open + 1);
    const poses = joined(posesAround(200_000, 4));
    const abort = new AbortController();
    const seen: [number, number][] = [];
    const call = context.queryMany(poses, {
      signal: abort.signal,
      onProgress: (done, total) => {
        seen.push([done, total]);
        if (done > 0) abort.abort();
      },
    });
    await assert.rejects(call, CancelledError);
    // Stopped part-way: the library had answered some poses of the call, not all.
    const [done, total] = seen[seen.length - 1];
    assert.equal(total, 200_000);
    assert.ok(done > 0 && done < total, `stopped after ${done} of ${total}`);
    // The context is as good as before: its next answer is a fresh context's.
    const pose = turnAbout([0, 0, 0], 33, [0.1, 0, 0]);
    const fresh = await MeshDistance.create(a, b, { backend: 'cpu', threads: 1, min: true, max: true });
    try {
      assert.deepStrictEqual([(await context.query(pose)).min, (await context.query(pose)).max],
        [(await fresh.query(pose)).min, (await fresh.query(pose)).max]);
    } finally {
      fresh.close();
    }
    // An already aborted signal runs nothing.
    await assert.rejects(context.queryMany(poses.subarray(0, 24), { signal: AbortSignal.abort() }), CancelledError);
    context.close();
    await quiet();
    assert.equal(MeshDistance.open, open, 'every context freed');
  });
});

describe('building a context', () => {
  // Two tori of 400,000 triangles each, built on one thread: seconds here, long enough to cancel anywhere.
  const big = torus(1, 0.3, 800, 250);
  const bigB = moved(big, 0.5, 0.1, 0);

  it('reports progress up to its total, for every choice of distances', async () => {
    for (const which of [{ min: true, max: false }, { min: false, max: true }, { min: true, max: true }]) {
      const seen: [number, number][] = [];
      const context = await MeshDistance.create(cube(1), moved(cube(1), 3), { ...which, backend: 'cpu', onProgress: (done, total) => seen.push([done, total]) });
      context.close();
      const [done, total] = seen[seen.length - 1];
      assert.ok(total > 0 && done === total, `${JSON.stringify(which)}: ended at ${done} of ${total}`);
    }
  });

  it('a signal stops the build part-way: CancelledError, and no context is left', async () => {
    const open = MeshDistance.open;
    const abort = new AbortController();
    const seen: [number, number][] = [];
    const building = MeshDistance.create(big, bigB, {
      backend: 'cpu', threads: 1, min: true, max: true, signal: abort.signal,
      onProgress: (done, total) => {
        seen.push([done, total]);
        abort.abort();
      },
    });
    await assert.rejects(building, CancelledError);
    assert.ok(seen.length > 0, 'the build reported before it was stopped');
    const [done, total] = seen[0];
    assert.ok(total > 0 && done < total, `stopped at ${done} of ${total}`);
    await assert.rejects(MeshDistance.create(big, bigB, { backend: 'cpu', signal: AbortSignal.abort() }), CancelledError);
    await quiet();
    assert.equal(MeshDistance.open, open, 'no context made');
  });
});

suiteUnless(cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`, 'queryMany on the GPU', () => {
  it('equals one query per pose, bit for bit: distances, pairs, points and flags', async () => {
    // 150 poses in two calls of 75: each call two launches (64 frames, then 11).
    await assertManyEqualsSingles('cuda', { min: true, max: true }, false, 150);
  });

  it('a pose refused within a launch\'s batch: the call is refused, and the context answers on as a fresh one', async () => {
    const a = sphere, b = moved(small, 1.2);
    const context = await MeshDistance.create(a, b, { backend: 'cuda', min: true, max: true });
    const fresh = await MeshDistance.create(a, b, { backend: 'cuda', min: true, max: true });
    try {
      const poses = posesAround(70, 5);
      const far = Float64Array.of(1e39, 0, 0, 0, 0, 1e39, 0, 0, 0, 0, 1e39, 0);
      await assert.rejects(context.queryMany(joined([...poses.slice(0, 40), far, ...poses.slice(40)])), /beyond the float range/);
      const pose = turnAbout([0, 0, 0], 33, [0.1, 0, 0]);
      const [got, want] = [await context.query(pose), await fresh.query(pose)];
      assert.deepStrictEqual([got.min, got.max], [want.min, want.max]);
    } finally {
      context.close();
      fresh.close();
    }
  });

  it('a signal stops the build and a call part-way', async () => {
    const abort = new AbortController();
    const big = torus(1, 0.3, 800, 250);
    // The hierarchies are built on the GPU in a few milliseconds, before any report; the host's build of the same
    // context (XHD_GPU_BUILD=0) on one thread lasts past the first report, and stops there.
    await assert.rejects(MeshDistance.create(big, moved(big, 0.5), { backend: 'cuda', signal: AbortSignal.abort() }),
      CancelledError);
    const saved = process.env.XHD_GPU_BUILD;
    process.env.XHD_GPU_BUILD = '0';
    try {
      await assert.rejects(MeshDistance.create(big, moved(big, 0.5), {
        backend: 'cuda', threads: 1, signal: abort.signal, onProgress: () => abort.abort(),
      }), CancelledError);
    } finally {
      if (saved === undefined) delete process.env.XHD_GPU_BUILD;
      else process.env.XHD_GPU_BUILD = saved;
    }
    const context = await MeshDistance.create(big, moved(big, 0.5), { backend: 'cuda' });
    try {
      const stop = new AbortController();
      let last = [0, 0];
      await assert.rejects(context.queryMany(joined(posesAround(100_000, 8)), {
        signal: stop.signal,
        onProgress: (done, total) => {
          last = [done, total];
          if (done > 0) stop.abort();
        },
      }), CancelledError);
      assert.ok(last[0] > 0 && last[0] < last[1], `stopped after ${last[0]} of ${last[1]}`);
    } finally {
      context.close();
    }
  });
});
