// Mesh–mesh distance over double inputs is exact over the doubles: at survey coordinates the f12 searches
// (CPU, and GPU where present) equal the brute force over the input's doubles to the bit, near-ties that
// float32 copies cannot tell apart included; the same meshes at the origin and at survey coordinates give
// the same distances and triangles; poses at survey coordinates equal pre-posed doubles.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { MeshDistance, meshDistance, type DistanceMesh, type MeshDistanceOptions, type Pose } from '../src/ops/mesh-distance.js';
import { pointsAsMesh } from '../src/ops/surface-distance.js';
import { assertSamePair, liftedGrids, nearTieShell, onDyadicGrid, preposed64, shiftedBy, SURVEY, turnAbout } from './distance-pairs.js';
import { rng, uniform } from './random-points.js';
import { cube, torus, triangleSoup, uvSphere } from './test-meshes.js';

const cuda = probeBackend('cuda');
const both = { min: true, max: true } as const;

type Scene = [string, DistanceMesh, DistanceMesh];

/** Scenes with no exact ties, their vertices on a dyadic grid, at the origin. */
function originScenes(): Scene[] {
  const random = rng(17);
  const grid = (m: DistanceMesh, d: number[] = [0, 0, 0]) => onDyadicGrid(shiftedBy(m, d));
  return [
    ['close spheres', grid(uvSphere(1, 24, 48)), grid(uvSphere(0.4, 16, 32), [1.45, 0.013, 0.021])],
    ['nested spheres', grid(uvSphere(1, 20, 40)), grid(uvSphere(0.5, 12, 24), [0.21, -0.07, 0.1])],
    ['interlocked rings', grid(torus(1, 0.2, 64, 16)), onDyadicGrid(preposed64(torus(1, 0.2, 48, 12), Float64Array.of(1, 0, 0, 1, 0, 0, -1, 0.003, 0, 1, 0, 0.001)))],
    ['degenerate soups', grid(triangleSoup(500, random)), grid(triangleSoup(400, random), [0.31, 0.2, -0.1])],
    ['a point cloud against a cube', grid(pointsAsMesh(Float32Array.from(uniform(300, 3, random, -2, 4)))), grid(cube(0.7), [0.05, 0.1, 0])],
  ];
}

/** The same scenes moved to survey coordinates (exactly: their vertices are on the dyadic grid). */
const surveyScenes = (): Scene[] => originScenes().map(([name, a, b]) => [name, shiftedBy(a, SURVEY), shiftedBy(b, SURVEY)]);

/** The scene's extent: the largest side of the box around both meshes. */
function extent(a: DistanceMesh, b: DistanceMesh): number {
  let side = 0;
  for (let k = 0; k < 3; k++) {
    let lo = Infinity, hi = -Infinity;
    for (const p of [a.positions, b.positions]) for (let i = k; i < p.length; i += 3) (lo = Math.min(lo, p[i])), (hi = Math.max(hi, p[i]));
    side = Math.max(side, hi - lo);
  }
  return side;
}

/** Poses of B about its own centre at survey coordinates: turns, and moves of a few centimetres. */
function surveyPoses(b: DistanceMesh): Pose[] {
  const centre = [0, 1, 2].map((k) => {
    let lo = Infinity, hi = -Infinity;
    for (let i = k; i < b.positions.length; i += 3) (lo = Math.min(lo, b.positions[i])), (hi = Math.max(hi, b.positions[i]));
    return 0.5 * lo + 0.5 * hi;
  });
  return [turnAbout(centre, 0), turnAbout(centre, 17, [0.01, -0.02, 0]), turnAbout(centre, -40, [0.03, 0.01, 0.02]), turnAbout(centre, 93.5, [-0.04, 0, 0.01])];
}

async function reference(a: DistanceMesh, b: DistanceMesh, pose?: Pose) {
  return meshDistance(a, b, { ...both, backend: 'cpu', method: 'brute' }, pose);
}

/** The old way: both meshes rounded to float32 about the centre of their box, measured over those floats. */
async function overFloatCopies(a: DistanceMesh, b: DistanceMesh) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const p of [a.positions, b.positions]) {
    p.forEach((v, i) => {
      lo[i % 3] = Math.min(lo[i % 3], v);
      hi[i % 3] = Math.max(hi[i % 3], v);
    });
  }
  const centre = [0, 1, 2].map((k) => 0.5 * lo[k] + 0.5 * hi[k]);
  const copy = (p: Float32Array | Float64Array) => Float32Array.from(p, (v, i) => v - centre[i % 3]);
  return meshDistance({ positions: copy(a.positions), triangles: a.triangles }, { positions: copy(b.positions), triangles: b.triangles }, { ...both, backend: 'cpu' });
}

/** Checks one backend's f12 search against the reference on everything above. */
function agreementCases(options: MeshDistanceOptions) {
  const label = options.backend ?? 'auto';

  it(`${label}: the f12 search equals the brute force over the doubles at survey coordinates`, async () => {
    for (const [name, a, b] of surveyScenes()) {
      const fast = await meshDistance(a, b, { ...both, ...options });
      const exact = await reference(a, b);
      assertSamePair(fast.min, exact.min, `${name} min`);
      assertSamePair(fast.max, exact.max, `${name} max`);
      assert.ok(fast.trianglePairs < exact.trianglePairs, `${name}: the hierarchy tests fewer pairs`);
    }
  });

  it(`${label}: near-ties that float32 copies cannot tell apart go to the exact pair`, async () => {
    for (const axis of [0, 1, 2] as const) {
      const { a, b, trapMin, trapMax } = liftedGrids(24, axis, SURVEY);
      const exact = await reference(a, b);
      // The trap works: over float32 copies the lifted triangles tie with their neighbours and win on index.
      const floats = await overFloatCopies(a, b);
      assert.equal(floats.min!.triangleB, trapMin, `axis ${axis}: float32 copies pick the lifted triangle for the minimum`);
      assert.equal(floats.max!.triangleB, trapMax - 1, `axis ${axis}: float32 copies pick the triangle beside the lifted one for the maximum`);
      assert.equal(exact.min!.distance, 1, `axis ${axis}: the facing grids are 1 apart`);
      assert.notEqual(exact.min!.triangleB, trapMin, `axis ${axis}: the lifted triangle is not the nearest`);
      assert.equal(exact.max!.triangleB, trapMax, `axis ${axis}: the lifted corner triangle is the farthest`);
      const fast = await meshDistance(a, b, { ...both, ...options });
      assertSamePair(fast.min, exact.min, `axis ${axis} min`);
      assertSamePair(fast.max, exact.max, `axis ${axis} max`);
    }
  });

  it(`${label}: points a float32 step apart in distance, at the origin and at survey coordinates, go to the exact pair`, async () => {
    // At the origin the rounding of the float copies (not of the exact distances) is what the searches must
    // allow for; at survey coordinates too, once the scene is large (radius 100).
    for (const [r, centre] of [[1, [0, 0, 0]], [100, [0, 0, 0]], [1, SURVEY], [100, SURVEY]] as const) {
      const { a, b } = nearTieShell(3000, r, centre, rng(r + centre[0]));
      for (const [first, second] of [[a, b], [b, a]]) {
        const fast = await meshDistance(first, second, { ...both, ...options });
        const exact = await reference(first, second);
        const what = `radius ${r} at ${centre.join(',')}${first === b ? ', the point as A' : ''}`;
        assertSamePair(fast.min, exact.min, `${what}: min`);
        assertSamePair(fast.max, exact.max, `${what}: max`);
      }
    }
  });

  it(`${label}: poses at survey coordinates equal the brute force and pre-posed doubles`, async () => {
    for (const [name, a, b] of surveyScenes().slice(0, 3)) {
      const context = await MeshDistance.create(a, b, { ...both, ...options });
      try {
        for (const [k, pose] of surveyPoses(b).entries()) {
          const frame = await context.query(pose);
          const exact = await reference(a, b, pose);
          assertSamePair(frame.min, exact.min, `${name}, pose ${k}, min`);
          assertSamePair(frame.max, exact.max, `${name}, pose ${k}, max`);
          const preposed = await meshDistance(a, preposed64(b, pose), { ...both, ...options });
          assertSamePair(preposed.min, exact.min, `${name}, pose ${k}, pre-posed min`);
          assertSamePair(preposed.max, exact.max, `${name}, pose ${k}, pre-posed max`);
        }
      } finally {
        context.close();
      }
    }
  });

  it(`${label}: a float32 mesh beside a double one, either way round and posed, equals the reference`, async () => {
    // A float32 B posed at survey coordinates rounds to float32 there (its truth, xhd.h): up to 0.25 m, which
    // the searches allow for, so they prune little here. One pose besides the identity is enough.
    const [, a, b] = surveyScenes()[0];
    const single = (m: DistanceMesh) => ({ positions: Float32Array.from(m.positions), triangles: m.triangles });
    for (const [what, ma, mb] of [['float A', single(a), b], ['float B', a, single(b)]] as const) {
      for (const [k, pose] of [undefined, surveyPoses(b)[2]].entries()) {
        const fast = await meshDistance(ma, mb, { ...both, ...options }, pose);
        const exact = await reference(ma, mb, pose);
        assertSamePair(fast.min, exact.min, `${what}, pose ${k}, min`);
        assertSamePair(fast.max, exact.max, `${what}, pose ${k}, max`);
      }
    }
  });
}

describe('mesh distance over doubles on the CPU', () => {
  it('the same meshes at the origin and at survey coordinates: the same distances (1e-9 of the extent), triangles and points', async () => {
    for (const [[name, a, b], [, sa, sb]] of originScenes().map((s, k) => [s, surveyScenes()[k]] as const)) {
      const tolerance = 1e-9 * extent(a, b);
      for (const method of ['bvh', 'brute'] as const) {
        const here = await meshDistance(a, b, { ...both, backend: 'cpu', method });
        const there = await meshDistance(sa, sb, { ...both, backend: 'cpu', method });
        for (const which of ['min', 'max'] as const) {
          const [p, q] = [here[which]!, there[which]!];
          const what = `${name} ${which} (${method})`;
          assert.ok(Math.abs(p.distance - q.distance) <= tolerance, `${what}: ${p.distance} at the origin, ${q.distance} there`);
          assert.equal(q.triangleA, p.triangleA, `${what}: triangle of A`);
          assert.equal(q.triangleB, p.triangleB, `${what}: triangle of B`);
          for (let k = 0; k < 3; k++) {
            assert.ok(Math.abs(q.pointA[k] - SURVEY[k] - p.pointA[k]) <= tolerance, `${what}: point on A in the input's coordinates`);
            assert.ok(Math.abs(q.pointB[k] - SURVEY[k] - p.pointB[k]) <= tolerance, `${what}: point on B in the input's coordinates`);
          }
        }
      }
    }
  });

  agreementCases({ backend: 'cpu' });

  it('one thread and several give the brute force over doubles', async () => {
    const [, a, b] = surveyScenes()[2];
    const exact = await reference(a, b);
    for (const threads of [1, 3]) {
      const fast = await meshDistance(a, b, { ...both, backend: 'cpu', threads });
      assertSamePair(fast.min, exact.min, `${threads} threads, min`);
      assertSamePair(fast.max, exact.max, `${threads} threads, max`);
    }
  });
});

describe('mesh distance over doubles on the GPU equals the brute force', { skip: cuda.available ? false : 'no usable CUDA GPU' }, () => {
  // Each tree the GPU builds is also checked against the host's build (f12_build_gpu.h): the float copies of
  // survey coordinates and their truths gathered on the device.
  const saved = process.env.XHD_CHECK_GPU_BUILD;
  before(() => { process.env.XHD_CHECK_GPU_BUILD = '1'; });
  after(() => {
    if (saved === undefined) delete process.env.XHD_CHECK_GPU_BUILD;
    else process.env.XHD_CHECK_GPU_BUILD = saved;
  });
  agreementCases({ backend: 'cuda' });
});
