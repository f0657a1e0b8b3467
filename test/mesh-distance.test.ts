// Mesh–mesh minimum and maximum distance: the f12 hierarchies (CPU, and GPU where present) against the
// double-precision reference over every triangle pair, to the bit; analytic pairs; poses against
// pre-posed meshes; a reused context against fresh ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { UsageError } from '../src/core/errors.js';
import { MeshDistance, meshDistance, type Pose } from '../src/ops/mesh-distance.js';
import { pointsAsMesh, type TriangleMesh } from '../src/ops/surface-distance.js';
import { assertSamePair } from './distance-pairs.js';
import { withEnv } from './reader-test-tools.js';
import { rng, uniform } from './random-points.js';
import { cube, gridSheet, torus, triangleSoup, uvSphere } from './test-meshes.js';

const cuda = probeBackend('cuda');

function moved(mesh: TriangleMesh, dx: number, dy = 0, dz = 0, scale = 1): TriangleMesh {
  const positions = mesh.positions.map((v, i) => v * scale + [dx, dy, dz][i % 3]);
  return { positions, triangles: mesh.triangles };
}

/** B's vertices posed as the library does: each row summed left to right in double, rounded once. */
function posed(mesh: TriangleMesh, m: Pose): TriangleMesh {
  const p = mesh.positions, out = new Float32Array(p.length);
  for (let v = 0; v < p.length; v += 3)
    for (let r = 0; r < 3; r++) out[v + r] = ((m[4 * r] * p[v] + m[4 * r + 1] * p[v + 1]) + m[4 * r + 2] * p[v + 2]) + m[4 * r + 3];
  return { positions: out, triangles: mesh.triangles };
}

function rotationZ(deg: number, t: [number, number, number]): Pose {
  const c = Math.cos((deg * Math.PI) / 180), s = Math.sin((deg * Math.PI) / 180);
  return Float64Array.of(c, -s, 0, t[0], s, c, 0, t[1], 0, 0, 1, t[2]);
}

/** Poses one after another in one array, as queryMany takes them. */
function joined(list: Pose[]): Float64Array {
  const all = new Float64Array(12 * list.length);
  list.forEach((pose, k) => all.set(pose, 12 * k));
  return all;
}

/** A new context's answers to each pose in turn; the context is closed after them, whatever happens. */
async function answersOf(made: Promise<MeshDistance>, poses: Pose[]) {
  const context = await made;
  try {
    const answers = [];
    for (const pose of poses) answers.push(await context.query(pose));
    return answers;
  } finally {
    context.close();
  }
}

const random = rng(5);
const sphere = uvSphere(1, 24, 48);
const small = uvSphere(0.4, 16, 32);
const scenes: [string, TriangleMesh, TriangleMesh][] = [
  ['far apart', sphere, moved(small, 5, 1, 0)],
  ['close', sphere, moved(small, 1.45, 0, 0)],
  ['touching at a vertex', cube(1), moved(cube(1), 2, 2, 2)],
  ['intersecting', sphere, moved(small, 1, 0.2, 0)],
  ['nested', sphere, small],
  ['degenerate soups', triangleSoup(500, random), triangleSoup(400, random)],
  ['a point cloud against a mesh', pointsAsMesh(Float32Array.from(uniform(300, 3, random, -2, 4))), sphere],
];

describe('mesh distance on the CPU', () => {
  it('the f12 search equals the reference over every triangle pair, minimum and maximum', async () => {
    for (const [name, a, b] of scenes) {
      const fast = await meshDistance(a, b, { min: true, max: true, backend: 'cpu', method: 'bvh' });
      const reference = await meshDistance(a, b, { min: true, max: true, backend: 'cpu', method: 'brute' });
      assertSamePair(fast.min, reference.min, `${name} min`);
      assertSamePair(fast.max, reference.max, `${name} max`);
      assert.ok(fast.trianglePairs < reference.trianglePairs, `${name}: the hierarchy tests fewer pairs`);
    }
  });

  it('gives the analytic answers: parallel triangles, crossing triangles, skew edges, farthest corners', async () => {
    const tri = (...v: number[]): TriangleMesh => ({ positions: Float32Array.from(v), triangles: Uint32Array.of(0, 1, 2) });
    const base = tri(0, 0, 0, 1, 0, 0, 0, 1, 0);
    const above = await meshDistance(base, tri(0, 0, 0.5, 1, 0, 0.5, 0, 1, 0.5), { min: true, max: true, backend: 'cpu' });
    assert.equal(above.min!.distance, 0.5);
    assert.equal(above.min!.intersecting, false);
    assert.ok(Math.abs(above.max!.distance - Math.sqrt(2.25)) < 1e-15, 'farthest corners (1,0,0)-(0,1,0.5)');
    const crossing = await meshDistance(base, tri(0.25, 0.25, -1, 0.25, 0.25, 1, 2, 2, 0), { backend: 'cpu' });
    assert.equal(crossing.min!.distance, 0);
    assert.equal(crossing.min!.intersecting, true);
    // The first crossing found: A's edge from (1,0,0) to (0,1,0) through B's plane x = y.
    assert.deepEqual(crossing.min!.pointA, [0.5, 0.5, 0]);
    assert.deepEqual(crossing.min!.pointB, crossing.min!.pointA);
    // Two needles along x and along y, 2 apart in z: their edges are skew lines.
    const skew = await meshDistance(tri(-1, 0, 0, 1, 0, 0, 1, 0, 0), tri(0, -1, 2, 0, 1, 2, 0, 1, 2), { backend: 'cpu' });
    assert.equal(skew.min!.distance, 2);
    assert.deepEqual([skew.min!.pointA, skew.min!.pointB], [[0, 0, 0], [0, 0, 2]]);
  });

  it('a pose equals the pre-posed mesh, and a reused context equals fresh ones', async () => {
    const a = uvSphere(1, 20, 40), b = moved(uvSphere(0.5, 12, 24), 1.2);
    const context = await MeshDistance.create(a, b, { min: true, max: true, backend: 'cpu' });
    try {
      for (const [k, pose] of [rotationZ(0, [0, 0, 0]), rotationZ(30, [0.2, 0, 0]), rotationZ(200, [1, 1, 0.5]), rotationZ(91, [0.3, -0.1, 0])].entries()) {
        const frame = await context.query(pose);
        for (const method of ['bvh', 'brute'] as const) {
          const fresh = await meshDistance(a, posed(b, pose), { min: true, max: true, backend: 'cpu', method });
          assertSamePair(frame.min, fresh.min, `frame ${k} min (${method})`);
          assertSamePair(frame.max, fresh.max, `frame ${k} max (${method})`);
        }
      }
    } finally {
      context.close();
    }
  });

  it('a context starting from its last answer gives the same pairs as fresh ones, ties included, in any order of poses', async () => {
    // At the identity, B's face is parallel to A's, 0.5 away: every pair of their triangles ties for the
    // minimum (and corners tie for the maximum), and the answer is the tie with the smallest triangle
    // indices. Tilted poses each pick one pair of those faces, which the identity then starts from.
    const a = cube(1), b = moved(cube(1), 2.5);
    const tie = rotationZ(0, [0, 0, 0]);
    const tilted = [rotationZ(4, [0, 0, 0]), rotationZ(-4, [0, 0, 0]), rotationZ(4, [0, 0, 0.4]), rotationZ(-4, [0, 0.3, -0.4]), rotationZ(180, [-4, 0, 0.25])];
    const poses = tilted.flatMap((pose) => [pose, tie]);
    const fresh = [];
    for (const pose of poses) fresh.push(await meshDistance(a, posed(b, pose), { min: true, max: true, backend: 'cpu' }));
    for (const threads of [1, 3]) {
      const context = await MeshDistance.create(a, b, { min: true, max: true, backend: 'cpu', threads });
      try {
        for (const [k, pose] of poses.entries()) {
          const frame = await context.query(pose);
          assertSamePair(frame.min, fresh[k].min, `pose ${k} min, ${threads} threads`);
          assertSamePair(frame.max, fresh[k].max, `pose ${k} max, ${threads} threads`);
        }
      } finally {
        context.close();
      }
    }
  });

  it('queries begun together run one at a time, and close() waits for them', async () => {
    const a = uvSphere(1, 20, 40), b = moved(uvSphere(0.5, 12, 24), 1.2);
    const poses = [rotationZ(0, [0, 0, 0]), rotationZ(30, [0.2, 0, 0]), rotationZ(200, [1, 1, 0.5]), rotationZ(91, [0.3, -0.1, 0])];
    const fresh = [];
    for (const pose of poses) fresh.push(await meshDistance(a, posed(b, pose), { min: true, max: true, backend: 'cpu' }));
    const context = await MeshDistance.create(a, b, { min: true, max: true, backend: 'cpu' });
    const frames = Promise.all(poses.map((pose) => context.query(pose)));
    context.close();
    await assert.rejects(context.query(poses[0]), UsageError);
    for (const [k, frame] of (await frames).entries()) {
      assertSamePair(frame.min, fresh[k].min, `pose ${k} min`);
      assertSamePair(frame.max, fresh[k].max, `pose ${k} max`);
    }
  });

  it('curved surfaces a hair apart under rigid poses (where the oriented boxes prune) equal the reference', async () => {
    // Interlocked rings, and a ring hugging a sphere: whole bands of triangle pairs lie within a few
    // percent of the minimum, the case a too-eager bound would get wrong.
    const ring = torus(1, 0.2, 96, 24), link = torus(1, 0.2, 80, 20);
    const link_pose = (deg: number): Pose => {
      const c = Math.cos((deg * Math.PI) / 180), s = Math.sin((deg * Math.PI) / 180);
      // B stands in the xz-plane through A's hole, spun by deg about its own axis.
      return Float64Array.of(c, -s, 0, 1, 0, 0, -1, 0, s, c, 0, 0);
    };
    const cases: [string, TriangleMesh, TriangleMesh, Pose[]][] = [
      ['interlocked rings', ring, link, [link_pose(0), link_pose(7), link_pose(41), link_pose(-100)]],
      ['a ring around a sphere', uvSphere(0.79, 30, 60), ring, [rotationZ(0, [0, 0, 0]), rotationZ(17, [0.001, 0.002, 0])]],
    ];
    // One thread, and more threads than this machine has cores: those searches go past the caller's
    // solo start (its first dive), so threads steal from each other's heaps while the bound tightens.
    for (const threads of [1, 5]) {
      let largest = 0;
      for (const [name, a, b, poses] of cases) {
        const context = await MeshDistance.create(a, b, { backend: 'cpu', threads });
        try {
          for (const [k, pose] of poses.entries()) {
            const frame = await context.query(pose);
            const reference = await meshDistance(a, posed(b, pose), { backend: 'cpu', method: 'brute' });
            assertSamePair(frame.min, reference.min, `${name}, frame ${k}, ${threads} threads`);
            assert.ok(frame.trianglePairs < reference.trianglePairs / 20, `${name}, frame ${k}: pruned`);
            largest = Math.max(largest, frame.boxPairs);
          }
        } finally {
          context.close();
        }
      }
      assert.ok(largest > 4096, `searches of ${largest} box pairs at most: too small to go parallel`);
    }
  });

  it('refuses bad poses, closed contexts and empty requests with usage errors', async () => {
    const context = await MeshDistance.create(cube(1), cube(1), { backend: 'cpu' });
    await assert.rejects(context.query(Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)), UsageError);
    await assert.rejects(context.query(Float64Array.of(1, 0, 0, NaN, 0, 1, 0, 0, 0, 0, 1, 0)), UsageError);
    await assert.rejects(context.query(Float64Array.of(1e39, 0, 0, 0, 0, 1e39, 0, 0, 0, 0, 1e39, 0)), /beyond the float range/);
    context.close();
    await assert.rejects(context.query(), /closed/);
    await assert.rejects(MeshDistance.create(cube(1), cube(1), { min: false, max: false }), UsageError);
    const outside: TriangleMesh = { positions: new Float32Array(9), triangles: Uint32Array.of(0, 1, 5) };
    await assert.rejects(MeshDistance.create(cube(1), outside, { backend: 'cpu' }), /uses vertex 5/);
  });
});

/**
 * The GPU search's ways, each set for a context's life (undefined: as by default): XHD_GPU_DEVICE_LOOP=0, a launch a
 * step, the front's size read back between them; XHD_MESH_FRONT_CAPACITY, fronts of more than 16,384 pairs cut into
 * chunks (the device loop stops there and the host goes on); XHD_GPU_LEAF_WARPS=0, the device loop's final fronts
 * a thread a triangle pair, never a warp a pair (lanes a test); XHD_GPU_DOP=1, the hierarchies built with DOPs and
 * node pairs near the cut bounded by them too; XHD_GPU_RESIDENT=0, the device loop launched for each call instead of
 * staying on the GPU between calls; XHD_GPU_RESIDENT_IDLE_US=20, the resident loop leaving after 20 us without a
 * call, so that most calls find it gone (or leaving as the call is posted) and start it again; XHD_GPU_HULL=1, node
 * pairs near the cut bounded by their corners' hulls where both hold at most XHD_GPU_HULL_TRIANGLES triangles (32 by
 * default; 256, the CPU's size, as well), alone and with the DOPs; XHD_GPU_CUT=0, touching frames never searched
 * from the last one's cut in one block; XHD_GPU_CUT_PAIRS=2, no cut small enough to keep (every touching frame from
 * the root); XHD_GPU_CUT_ROUND=4, a block's rounds that outgrow it (the frame handed to the grid). The default way
 * first.
 */
const DEFAULT_WAY = {
  XHD_GPU_DEVICE_LOOP: undefined, XHD_MESH_FRONT_CAPACITY: undefined, XHD_GPU_LEAF_WARPS: undefined, XHD_GPU_DOP: undefined,
  XHD_GPU_RESIDENT: undefined, XHD_GPU_RESIDENT_IDLE_US: undefined, XHD_GPU_HULL: undefined, XHD_GPU_HULL_TRIANGLES: undefined,
  XHD_GPU_CUT: undefined, XHD_GPU_CUT_PAIRS: undefined, XHD_GPU_CUT_ROUND: undefined,
};
const SEARCH_WAYS: [string, Record<string, string | undefined>][] = [
  ['device loop', DEFAULT_WAY],
  ['host-driven', { ...DEFAULT_WAY, XHD_GPU_DEVICE_LOOP: '0' }],
  ['device loop, chunks', { ...DEFAULT_WAY, XHD_MESH_FRONT_CAPACITY: '16384' }],
  ['host-driven, chunks', { ...DEFAULT_WAY, XHD_GPU_DEVICE_LOOP: '0', XHD_MESH_FRONT_CAPACITY: '16384' }],
  ['device loop, leaf pairs a thread each', { ...DEFAULT_WAY, XHD_GPU_LEAF_WARPS: '0' }],
  ['device loop, the DOPs\' bound too', { ...DEFAULT_WAY, XHD_GPU_DOP: '1' }],
  ['device loop, a launch a call', { ...DEFAULT_WAY, XHD_GPU_RESIDENT: '0' }],
  ['device loop, chunks, a launch a call', { ...DEFAULT_WAY, XHD_GPU_RESIDENT: '0', XHD_MESH_FRONT_CAPACITY: '16384' }],
  ['device loop, leaving when idle 20 us', { ...DEFAULT_WAY, XHD_GPU_RESIDENT_IDLE_US: '20' }],
  ['device loop, the hulls\' bound too', { ...DEFAULT_WAY, XHD_GPU_HULL: '1' }],
  ['device loop, the hulls\' bound of nodes up to 256 triangles and the DOPs\'', { ...DEFAULT_WAY, XHD_GPU_HULL: '1', XHD_GPU_HULL_TRIANGLES: '256', XHD_GPU_DOP: '1' }],
  ['host-driven, the hulls\' bound too', { ...DEFAULT_WAY, XHD_GPU_DEVICE_LOOP: '0', XHD_GPU_HULL: '1' }],
  ['device loop, never from the cut', { ...DEFAULT_WAY, XHD_GPU_CUT: '0' }],
  ['device loop, no cut kept', { ...DEFAULT_WAY, XHD_GPU_CUT_PAIRS: '2' }],
  ['device loop, rounds outgrowing the block', { ...DEFAULT_WAY, XHD_GPU_CUT_ROUND: '4' }],
];

describe('mesh distance on the GPU equals the CPU', { skip: cuda.available ? false : 'no usable CUDA GPU' }, () => {
  it('on every scene, posed, and on two 200k-triangle meshes', async () => {
    const big = uvSphere(1, 250, 400);
    const all: [string, TriangleMesh, TriangleMesh][] = [...scenes, ['200k spheres', big, moved(big, 2.05, 0.3, 0.1, 0.999)]];
    for (const [name, a, b] of all) {
      for (const pose of [undefined, rotationZ(33, [0.1, 0.2, 0])]) {
        const gpu = await meshDistance(a, b, { min: true, max: true, backend: 'cuda' }, pose);
        const cpu = await meshDistance(a, b, { min: true, max: true, backend: 'cpu' }, pose);
        assert.equal(gpu.backend, 'cuda');
        assertSamePair(gpu.min, cpu.min, `${name} min${pose ? ' posed' : ''}`);
        assertSamePair(gpu.max, cpu.max, `${name} max${pose ? ' posed' : ''}`);
      }
    }
  });

  it("builds on the GPU the host's hierarchy (order and boxes to the bit), oriented boxes and DOPs holding every corner", async () => {
    // XHD_CHECK_GPU_BUILD=1 makes the library build each tree on the host too and compare (f12_build_gpu.h); a
    // difference is an internal error, which rejects. With XHD_GPU_DOP=1 the trees get DOPs, checked too.
    // A flat grid: many centroids share each coordinate (ties by index).
    const grid = (n: number) => gridSheet(n, (i, j) => [i, j, 0]);
    const few = (count: number): TriangleMesh => ({ positions: small.positions, triangles: small.triangles.slice(0, 3 * count) });
    const big = uvSphere(1, 250, 400);
    const cases: [string, TriangleMesh, TriangleMesh][] = [
      ...scenes,
      ['a grid of ties', grid(37), moved(grid(20), 3, 1, 0.5)],
      ['one, two and three triangles', few(1), few(2)],
      ['three against five', few(3), few(5)],
      ['200k spheres', big, moved(big, 2.05, 0.3, 0.1, 0.999)],
    ];
    for (const [name, a, b] of cases) {
      const cpu = await meshDistance(a, b, { min: true, max: true, backend: 'cpu' }, rotationZ(10, [0.1, 0, 0]));
      for (const dops of [undefined, '1']) {
        const gpu = await withEnv({ XHD_CHECK_GPU_BUILD: '1', XHD_GPU_DOP: dops },
          () => meshDistance(a, b, { min: true, max: true, backend: 'cuda' }, rotationZ(10, [0.1, 0, 0])));
        assertSamePair(gpu.min, cpu.min, `${name} min${dops ? ', DOPs' : ''}`);
        assertSamePair(gpu.max, cpu.max, `${name} max${dops ? ', DOPs' : ''}`);
      }
    }
  });

  it('the search driven by the host, fronts searched in chunks, and leaf pairs a thread each give the same pairs as the device loop', async () => {
    const big = uvSphere(1, 250, 400);
    const cases: [string, TriangleMesh, TriangleMesh][] = [...scenes, ['200k spheres', big, moved(big, 2.05, 0.3, 0.1, 0.999)]];
    for (const [name, a, b] of cases) {
      const pose = rotationZ(33, [0.1, 0.2, 0]);
      const cpu = await meshDistance(a, b, { min: true, max: true, backend: 'cpu' }, pose);
      for (const [setting, vars] of SEARCH_WAYS.slice(1)) {
        const gpu = await withEnv(vars, () => meshDistance(a, b, { min: true, max: true, backend: 'cuda' }, pose));
        assertSamePair(gpu.min, cpu.min, `${name} min, ${setting}`);
        assertSamePair(gpu.max, cpu.max, `${name} max, ${setting}`);
      }
    }
  });

  it("a context's later queries, bounded by the last answer (no start phase), equal the CPU's in every way of the search", async () => {
    // After its first query a GPU context searches from the last answer under the new pose, in the record the
    // search before cleared for it; a front handed to the host's chunks gets that answer as its bound when the
    // device loop stops. Every frame's pair must be the CPU's, in each way of the search.
    const big = uvSphere(1, 250, 400);
    const cases: [string, TriangleMesh, TriangleMesh][] = [...scenes, ['200k spheres', big, moved(big, 2.05, 0.3, 0.1, 0.999)]];
    const poses = [0, 1, 2, 3, 4, 5].map((k) => rotationZ(7 * k, [0.05 * k, 0.2 - 0.03 * k, 0.01 * k]));
    for (const [name, a, b] of cases) {
      const expected = await answersOf(MeshDistance.create(a, b, { min: true, max: true, backend: 'cpu' }), poses);
      for (const [setting, vars] of SEARCH_WAYS) {
        // The ways are read when the context is made; its queries follow them.
        const gpu = await withEnv(vars, () => MeshDistance.create(a, b, { min: true, max: true, backend: 'cuda' }));
        try {
          for (const [k, pose] of poses.entries()) {
            const got = await gpu.query(pose);
            assertSamePair(got.min, expected[k].min, `${name} min, ${setting}, frame ${k}`);
            assertSamePair(got.max, expected[k].max, `${name} max, ${setting}, frame ${k}`);
          }
        } finally {
          gpu.close();
        }
      }
    }
  });

  it("touching frames searched from the last one's cut in one block: the CPU's pairs among ties, far fewer box pairs", async () => {
    // A flat grid and an upright one crossing it: every frame touches, several triangle pairs at 0, and the answer is
    // the smallest (triangle of A, triangle of B) among them. B turns about z and slides, so the crossing moves
    // across A and the cut each frame begins from must grow where boxes come to overlap. A short crossing (only B's
    // sheared corner dips below A) is searched from the cut, with far fewer box pairs than the grid's tens of
    // thousands a frame; a long one (B's middle row of corners in A's plane in every third frame) has more leaf
    // pairs than the block measures and goes to the grid. Frames one at a time and in batches.
    const flat = gridSheet(100, (i, j) => [i, j, 0]);
    const crossings: [string, TriangleMesh][] = [
      ['a short crossing', gridSheet(30, (i, j) => [i + 12, 20.5, 0.5 * i + j - 0.3])],
      ['a long crossing', gridSheet(16, (i, j) => [i + 12, 20.5, j - 8])],
    ];
    const poses = Array.from({ length: 24 }, (_, k) => rotationZ(0.75 * k, [0.05 * k, -0.1 * k, 0.02 * (k % 3)]));
    for (const [name, upright] of crossings) {
      const expected = await answersOf(MeshDistance.create(flat, upright, { min: true, backend: 'cpu' }), poses);
      assert.ok(expected.every((q) => q.min!.distance === 0), `${name}: every frame touches`);
      const boxPairs: Record<string, number> = {};
      for (const [setting, vars] of [['by default', DEFAULT_WAY], ['never from the cut', { ...DEFAULT_WAY, XHD_GPU_CUT: '0' }],
        ['no cut kept', { ...DEFAULT_WAY, XHD_GPU_CUT_PAIRS: '2' }], ['rounds outgrowing the block', { ...DEFAULT_WAY, XHD_GPU_CUT_ROUND: '4' }],
        ['a launch a call', { ...DEFAULT_WAY, XHD_GPU_RESIDENT: '0' }]] as const) {
        const one = await answersOf(withEnv(vars, () => MeshDistance.create(flat, upright, { min: true, backend: 'cuda' })), poses);
        const gpu = await withEnv(vars, () => MeshDistance.create(flat, upright, { min: true, backend: 'cuda' }));
        let many: Awaited<ReturnType<MeshDistance['query']>>[];
        try {
          many = [await gpu.query(poses[0]), ...await gpu.queryMany(joined(poses.slice(1, 15))), ...await gpu.queryMany(joined(poses.slice(15)))];
        } finally {
          gpu.close();
        }
        for (const [k, want] of expected.entries()) {
          assertSamePair(one[k].min, want.min, `${name}, ${setting}, frame ${k}`);
          assertSamePair(many[k].min, want.min, `${name}, ${setting}, batched, frame ${k}`);
        }
        // The first frame is the grid's in every way (no answer to begin from).
        boxPairs[setting] = [...one.slice(1), ...many.slice(1)].reduce((sum, q) => sum + q.boxPairs, 0);
      }
      if (name !== 'a short crossing') continue;
      const report = `${name}, box pairs over the later frames: ${JSON.stringify(boxPairs)}`;
      assert.ok(boxPairs['by default'] * 10 < boxPairs['never from the cut'], report);
      assert.ok(boxPairs['a launch a call'] * 10 < boxPairs['never from the cut'], report);
    }
  });

  it("the hulls' bound (XHD_GPU_HULL=1) cuts node pairs the boxes keep: fewer triangle pairs, the CPU's answers", async () => {
    // Two linked rings whose centre circles stay 1 apart all around (A's in the xy plane, B's in the xz plane
    // through A's centre): their tubes face each other along whole arcs, so many pairs of small curved patches lie
    // near the cut, where the boxes overreach and the hulls do not. Were the hull test never run, the GPU would test
    // as many triangle pairs with it as without.
    const ring = torus(1, 0.2, 240, 48);
    const linked = { positions: ring.positions.map((v, i, all) => (i % 3 === 0 ? v + 1 : i % 3 === 1 ? -all[i + 1] : all[i - 1])), triangles: ring.triangles };
    const poses = [0, 1, 2, 3].map((k) => rotationZ(2 * k, [0, 0.01 * k, 0]));
    const run = (backend: 'cpu' | 'cuda', vars: Record<string, string | undefined>) =>
      answersOf(withEnv(vars, () => MeshDistance.create(ring, linked, { min: true, backend })), poses);
    const cpu = await run('cpu', DEFAULT_WAY);
    const pairs = (frames: typeof cpu) => frames.reduce((sum, f) => sum + f.trianglePairs, 0);
    const counts: Record<string, number> = {};
    for (const [setting, vars] of [['boxes', DEFAULT_WAY], ['hulls', { ...DEFAULT_WAY, XHD_GPU_HULL: '1' }],
      ['hulls of 256', { ...DEFAULT_WAY, XHD_GPU_HULL: '1', XHD_GPU_HULL_TRIANGLES: '256' }]] as const) {
      const gpu = await run('cuda', vars);
      for (const [k, frame] of gpu.entries()) assertSamePair(frame.min, cpu[k].min, `${setting}, frame ${k}`);
      counts[setting] = pairs(gpu);
    }
    // On an H200: 148,479 without, 8,101 with (7,542 of 256), the CPU 1,168.
    assert.ok(counts.hulls < counts.boxes, `triangle pairs over ${poses.length} frames: ${JSON.stringify(counts)}, CPU ${pairs(cpu)}`);
  });

  it('frames answered in batches (a launch for up to 64) equal the CPU\'s frame by frame in every way of the search', async () => {
    // queryMany hands a GPU context's poses to its search 64 at a time: each frame after the first in a launch is
    // bounded by the pair its predecessor found, measured on the device under the new pose, in a record the frame
    // before that cleared; a front handed to the host's chunks stops the launch there, and the next launch goes
    // on after it. Single queries and batches, and batches that are not multiples of 64, interleaved.
    const big = uvSphere(1, 250, 400);
    const cases: [string, TriangleMesh, TriangleMesh][] = [...scenes, ['200k spheres', big, moved(big, 2.05, 0.3, 0.1, 0.999)]];
    const poses = Array.from({ length: 150 }, (_, k) => rotationZ(2.5 * k, [0.3 * Math.sin(k / 7), 0.2 - 0.002 * k, 0.01 * (k % 5)]));
    for (const [name, a, b] of cases) {
      const cpu = await MeshDistance.create(a, b, { min: true, max: true, backend: 'cpu' });
      let expected: Awaited<ReturnType<MeshDistance['query']>>[];
      try {
        expected = await cpu.queryMany(joined(poses));
      } finally {
        cpu.close();
      }
      for (const [setting, vars] of SEARCH_WAYS) {
        const gpu = await withEnv(vars, () => MeshDistance.create(a, b, { min: true, max: true, backend: 'cuda' }));
        try {
          const got = [await gpu.query(poses[0])];
          const started = performance.now();
          const batch = await gpu.queryMany(joined(poses.slice(1, 131)));
          const wallMs = performance.now() - started;
          got.push(...batch, await gpu.query(poses[131]), ...await gpu.queryMany(joined(poses.slice(132))));
          assert.equal(got.length, poses.length);
          for (const [k, q] of got.entries()) {
            assertSamePair(q.min, expected[k].min, `${name} min, ${setting}, frame ${k}`);
            assertSamePair(q.max, expected[k].max, `${name} max, ${setting}, frame ${k}`);
          }
          // Each frame's time: its own plus a share of its batch's rest, together no more than the call took.
          assert.ok(batch.every((q) => q.queryMs > 0), `${name}, ${setting}: every frame timed`);
          const total = batch.reduce((sum, q) => sum + q.queryMs, 0);
          assert.ok(total <= wallMs, `${name}, ${setting}: ${total} ms of frames in a ${wallMs} ms call`);
        } finally {
          gpu.close();
        }
      }
    }
  });

  it('two contexts on one GPU, called in turn and at once, take the device from each other and equal the CPU', async () => {
    // Each context's device loop stays on the GPU between its calls and holds every multiprocessor; a context
    // starting its loop asks the other's to leave once idle. Calls in turn hand the GPU back and forth at every
    // call; calls at once make one context's launch wait for the other's loop to leave. A loop that never left
    // would hang this test.
    const big = uvSphere(1, 250, 400);
    const pairs: [TriangleMesh, TriangleMesh][] = [[big, moved(big, 2.05, 0.3, 0.1, 0.999)], [scenes[0][1], scenes[0][2]]];
    const poses = Array.from({ length: 12 }, (_, k) => rotationZ(4 * k, [0.2 * Math.sin(k), 0.1, 0.01 * k]));
    const expected = await Promise.all(pairs.map(([a, b]) => answersOf(MeshDistance.create(a, b, { min: true, max: true, backend: 'cpu' }), poses)));
    const contexts = await Promise.all(pairs.map(([a, b]) => MeshDistance.create(a, b, { min: true, max: true, backend: 'cuda' })));
    try {
      for (const [k, pose] of poses.entries()) {
        const inTurn = k % 2 === 0;
        const got = inTurn
          ? [await contexts[0].query(pose), await contexts[1].query(pose)]
          : await Promise.all(contexts.map((c) => c.query(pose)));
        for (const c of [0, 1]) {
          assertSamePair(got[c].min, expected[c][k].min, `context ${c} min, frame ${k}${inTurn ? '' : ', at once'}`);
          assertSamePair(got[c].max, expected[c][k].max, `context ${c} max, frame ${k}${inTurn ? '' : ', at once'}`);
        }
      }
    } finally {
      for (const c of contexts) c.close();
    }
    // Closed, each context's loop left before its memory was freed: a loop still reading it would fault, and the
    // device's next job would fail with it.
    const after = await meshDistance(pairs[1][0], pairs[1][1], { min: true, max: true, backend: 'cuda' }, poses[3]);
    assertSamePair(after.min, expected[1][3].min, 'a job after the contexts closed');
  });

  it('a build the device memory cannot hold on the GPU is made on the host, with the same answers', async () => {
    // The GPU's build holds about twice the host's build's device memory; a limit between the two peaks makes it
    // run short, and the context builds on the host instead. (Small front buffers, so that the searches fit.)
    const big = uvSphere(1, 250, 400), b = moved(big, 2.05, 0.3, 0.1, 0.999);
    const keys = ['XHD_GPU_BUILD', 'XHD_MESH_FRONT_CAPACITY', 'XHD_CUDA_MEMORY_LIMIT'] as const;
    const saved = keys.map((k) => process.env[k]);
    const peak = async (env: Record<string, string>) => {
      for (const [k, v] of Object.entries(env)) process.env[k] = v;
      const context = await MeshDistance.create(big, b, { min: true, max: true, backend: 'cuda' });
      try {
        const r = await context.query(rotationZ(10, [0.1, 0, 0]));
        return { r, peak: r.peakDeviceBytes };
      } finally {
        context.close();
      }
    };
    try {
      process.env.XHD_MESH_FRONT_CAPACITY = '16384';
      const host = await peak({ XHD_GPU_BUILD: '0' });
      delete process.env.XHD_GPU_BUILD;
      const device = await peak({});
      assert.ok(device.peak > host.peak, `GPU build ${device.peak} B, host build ${host.peak} B`);
      const limited = await peak({ XHD_CUDA_MEMORY_LIMIT: String(Math.floor((host.peak + device.peak) / 2)) });
      const cpu = await meshDistance(big, b, { min: true, max: true, backend: 'cpu' }, rotationZ(10, [0.1, 0, 0]));
      for (const r of [host.r, device.r, limited.r]) {
        assertSamePair(r.min, cpu.min, 'min');
        assertSamePair(r.max, cpu.max, 'max');
      }
    } finally {
      keys.forEach((k, i) => (saved[i] === undefined ? delete process.env[k] : (process.env[k] = saved[i])));
    }
  });

  it('refuses the brute method, which is the CPU reference', async () => {
    await assert.rejects(MeshDistance.create(cube(1), cube(1), { backend: 'cuda', method: 'brute' }), /CPU reference/);
  });
});
