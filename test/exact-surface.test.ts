// Point-to-surface distances are exact over the input's own coordinates: on double meshes at survey
// coordinates, the grid and hierarchy searches (CPU and GPU) give the double brute force's distances,
// triangles and closest points; near-ties that float32 copies cannot separate go to the truly nearer
// triangle; and a mesh moved by (5e5, 4.2e6, 100) gives the distances it gives at the origin, to the bit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { pointSurfaceDistances, type TriangleMesh } from '../src/ops/surface-distance.js';
import { translated, UTM_OFFSET } from './exact-cases.js';
import { rng } from './random-points.js';
import { uvSphere } from './test-meshes.js';

const STEP = 2 ** -20;
const dyadic = (v: number) => Math.round(v / STEP) * STEP;

/** A unit UV sphere with its vertices on a 2^-20 grid: moved by whole metres, its doubles move exactly. */
function dyadicSphere(): TriangleMesh {
  const m = uvSphere(1, 24, 48);
  return { positions: Float64Array.from(m.positions, dyadic), triangles: m.triangles };
}

/** Points on the same grid around the unit sphere: most near it (the grid's case), some far (the hierarchy's). */
function queriesAround(n: number, seed: number): Float64Array {
  const random = rng(seed);
  const p = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const z = 2 * random() - 1, phi = 2 * Math.PI * random(), s = Math.sqrt(1 - z * z);
    const r = i % 10 === 0 ? 3 + 2 * random() : 0.9 + 0.2 * random();
    [s * Math.cos(phi) * r, s * Math.sin(phi) * r, z * r].forEach((v, k) => (p[3 * i + k] = dyadic(v)));
  }
  return p;
}

const moved = (m: TriangleMesh): TriangleMesh => ({ positions: translated(m.positions as Float64Array, UTM_OFFSET), triangles: m.triangles });

const cuda = probeBackend('cuda');
const backends = cuda.available ? (['cpu', 'cuda'] as const) : (['cpu'] as const);

describe('point-to-surface distance over double coordinates', () => {
  const sphere = dyadicSphere(), far = moved(sphere);
  const points = queriesAround(3000, 5), farPoints = translated(points, UTM_OFFSET);

  for (const backend of backends) {
    it(`${backend}: grid and bvh give the double brute force's answers at survey coordinates`, async () => {
      const reference = await pointSurfaceDistances(farPoints, far, { backend: 'cpu', method: 'brute' });
      for (const method of ['grid', 'bvh'] as const) {
        const r = await pointSurfaceDistances(farPoints, far, { backend, method });
        assert.deepEqual(r.distances, reference.distances, `${method}: distances`);
        assert.deepEqual(r.triangles, reference.triangles, `${method}: triangles`);
        assert.deepEqual(r.closest, reference.closest, `${method}: closest points`);
        assert.ok(Math.abs(r.origin[1] - UTM_OFFSET[1]) < 2, `${method}: the filters ran near the data, origin ${r.origin}`);
      }
    });
  }

  it('a mesh and its points moved by (5e5, 4.2e6, 100) keep every distance and triangle to the bit', async () => {
    for (const method of ['grid', 'bvh', 'brute'] as const) {
      const here = await pointSurfaceDistances(points, sphere, { backend: 'cpu', method });
      const there = await pointSurfaceDistances(farPoints, far, { backend: 'cpu', method });
      assert.deepEqual(there.distances, here.distances, method);
      assert.deepEqual(there.triangles, here.triangles, method);
      // Closest points are reported where the file puts the mesh: moved, within the rounding of a double at 4.2e6.
      for (let i = 0; i < here.closest.length; i++) {
        const expected = here.closest[i] + UTM_OFFSET[i % 3];
        assert.ok(Math.abs(there.closest[i] - expected) <= 2 ** -29, `${method}: closest coordinate ${i}`);
      }
    }
  });

  it('settles near-ties that float32 copies cannot see: the truly nearer triangle, not the smaller index', async () => {
    // Two squares (two triangles each) at z = 100 and z = 102 + 2^-30, and points at z = 101: the lower square
    // is nearer by 2^-30 m. One more point at z = 90 puts the frame's origin at z = 96 + 2^-31, where the
    // float32 copies are 4, 6 and 5 (steps of 2^-21 there): both squares 1 away, so a float search alone
    // would name the upper square, whose triangle indices are smaller.
    const delta = 2 ** -30;
    const [x0, y0, z0] = UTM_OFFSET;
    const square = (z: number) => [[-1, -1], [1, -1], [1, 1], [-1, 1]].flatMap(([x, y]) => [x0 + x, y0 + y, z]);
    const mesh: TriangleMesh = {
      positions: Float64Array.from([...square(z0 + 2 + delta), ...square(z0)]),
      triangles: Uint32Array.from([0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7]),
    };
    const n = 500, random = rng(17);
    const queries = new Float64Array(3 * n);
    queries.set([x0, y0, z0 - 10]);
    for (let i = 1; i < n; i++) queries.set([x0 + dyadic(1.6 * random() - 0.8), y0 + dyadic(1.6 * random() - 0.8), z0 + 1], 3 * i);
    const reference = await pointSurfaceDistances(queries, mesh, { backend: 'cpu', method: 'brute' });
    for (const backend of backends) {
      for (const method of ['grid', 'bvh'] as const) {
        const r = await pointSurfaceDistances(queries, mesh, { backend, method });
        assert.equal(r.distances[0], 10);
        for (let i = 0; i < n; i++) assert.ok(r.triangles[i] >= 2, `${backend} ${method}: point ${i} went to the farther square`);
        for (let i = 1; i < n; i++) assert.equal(r.distances[i], 1, `${backend} ${method}: point ${i}`);
        assert.deepEqual(r.triangles, reference.triangles, `${backend} ${method}`);
        assert.deepEqual(r.distances, reference.distances, `${backend} ${method}`);
      }
    }
  });

  it('long degenerate slivers: the grid gives way to the hierarchy, never testing more triangles than the brute force', async () => {
    // 3,000 zero-area triangles along the cube's diagonal, most of them spanning it: listed in every cell
    // they cross, each would be tested again and again per query (24 million tests before, 6 million brute).
    const n = 3000, v = 2 * n + 2;
    const positions = new Float64Array(3 * v);
    for (let i = 0; i < v; i++) positions.fill(i / (v - 1), 3 * i, 3 * i + 3);
    const triangles = new Uint32Array(3 * n);
    for (let k = 0; k < n; k++) triangles.set([k, v - 1 - k, k + 1], 3 * k);
    const mesh = { positions, triangles };
    const random = rng(23);
    const queries = Float64Array.from({ length: 3 * 1000 }, () => dyadic(random()));
    const reference = await pointSurfaceDistances(queries, mesh, { backend: 'cpu', method: 'brute' });
    for (const backend of backends) {
      const r = await pointSurfaceDistances(queries, mesh, { backend, method: 'grid' });
      assert.deepEqual(r.distances, reference.distances, backend);
      assert.deepEqual(r.triangles, reference.triangles, backend);
      assert.ok(r.triangleTests <= reference.triangleTests, `${backend}: ${r.triangleTests} tests, brute ${reference.triangleTests}`);
    }
  });

  it('collinear slivers that all tie: past the first blocks the CPU scans every triangle, with the same answers', async () => {
    // 2,000 collinear triangles spanning random stretches of one segment: a query's foot on the segment lies
    // in most of them, all at one distance, so the hierarchy can prune almost nothing and a plain scan is
    // cheaper (surface_grid.cpp). 6,000 queries: several blocks, so the later ones take the scan.
    const n = 2000, random = rng(29);
    const positions = new Float64Array(9 * n), triangles = new Uint32Array(3 * n);
    for (let t = 0; t < n; t++) {
      const u = [random(), random(), random()].sort((x, y) => x - y);
      for (let c = 0; c < 3; c++) {
        positions.set([u[c] - 0.5, 0.7 * u[c] - 0.35, 0.3 * u[c] - 0.15], 9 * t + 3 * c);
        triangles[3 * t + c] = 3 * t + c;
      }
    }
    const mesh = { positions, triangles };
    const queries = Float64Array.from({ length: 3 * 6000 }, () => random() - 0.5);
    const reference = await pointSurfaceDistances(queries, mesh, { backend: 'cpu', method: 'brute' });
    const r = await pointSurfaceDistances(queries, mesh, { backend: 'cpu', method: 'grid', threads: 2 });
    assert.deepEqual(r.distances, reference.distances);
    assert.deepEqual(r.triangles, reference.triangles);
    assert.deepEqual(r.closest, reference.closest);
    assert.ok(r.triangleTests <= reference.triangleTests, `${r.triangleTests} tests, brute ${reference.triangleTests}`);
  });
});
