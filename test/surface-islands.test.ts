// Surfaces in groups far apart (two objects in one mesh, kilometres apart): each direction's samples are measured
// an island at a time against the island's own triangles (kernels/geometry/surface_islands.h), where one triangle
// grid over both took fandisk and its copy 1e7 away 44 s against the same pair moved 0.001, and 0.25 s with islands.
// The distances must stay the whole search's, bit for bit: the per-point reference over every triangle, and the
// brute-force method, on the CPU and on a GPU.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { computeBounds, type Geometry } from '../src/io/geometry.js';
import { compareSurfaces, type SurfaceCompareOptions, type SurfaceOutcome } from '../src/ops/surface-compare.js';
import type { TriangleMesh } from '../src/ops/surface-distance.js';
import { referenceCompare } from './surface-compare-reference.js';
import { uvSphere } from './test-meshes.js';
import { suiteUnless } from './skippable-suite.js';

const FAR: [number, number, number] = [1e7, 1e7, 0];

/** The mesh and a copy of it moved by `by`, in one mesh of doubles, the whole moved by `shift` along x. */
function twoObjects(m: TriangleMesh, by: number[], shift = 0): Geometry {
  const n = m.positions.length / 3;
  const positions = new Float64Array(6 * n);
  for (let i = 0; i < 3 * n; i++) {
    positions[i] = m.positions[i] + (i % 3 === 0 ? shift : 0);
    positions[3 * n + i] = positions[i] + by[i % 3];
  }
  const triangles = new Uint32Array(2 * m.triangles.length);
  triangles.set(m.triangles);
  for (let t = 0; t < m.triangles.length; t++) triangles[m.triangles.length + t] = m.triangles[t] + n;
  return { positions, count: 2 * n, dims: 3, triangles, bounds: computeBounds(positions), format: 'off', notes: [] };
}

const a = twoObjects(uvSphere(1, 24, 48), FAR);
const b = twoObjects(uvSphere(1.01, 20, 40), FAR, 0.002);
// One object far off in A alone: B's half is moved home, so A's far samples have no triangle of B near them.
const lonely = twoObjects(uvSphere(1.01, 20, 40), [0, 0, 0.5], 0.002);

const base = { method: 'grid', directed: false, sampling: 'area', seed: 5, backend: 'cpu', threads: 2, samples: 4000 } as const;

function assertSameDistances(got: SurfaceOutcome, want: { ab: unknown; ba: unknown; distancesAb: Float64Array; distancesBa: Float64Array | null }, label: string) {
  assert.deepStrictEqual(got.ab, want.ab, `${label}: A → B`);
  assert.deepStrictEqual(got.ba, want.ba, `${label}: B → A`);
  assert.deepStrictEqual(got.distancesAb, want.distancesAb, `${label}: A → B distances`);
  assert.deepStrictEqual(got.distancesBa, want.distancesBa, `${label}: B → A distances`);
}

/** Whether the search ran in an island's frame: its origin inside one of the two objects, not between them. */
function inAnIsland(o: SurfaceOutcome): boolean {
  const [x, y, z] = o.origin;
  return Math.hypot(x, y, z) < 10 || Math.hypot(x - FAR[0], y - FAR[1], z - FAR[2]) < 10;
}

describe('surface islands: two objects far apart in each mesh', () => {
  it('give the per-point reference and the brute force, bit for bit, searched island by island', async () => {
    for (const threads of [1, 2]) {
      const options = { ...base, threads } as SurfaceCompareOptions;
      const got = await compareSurfaces(a, b, options);
      assert.ok(inAnIsland(got), `origin ${got.origin}`);
      assertSameDistances(got, await referenceCompare(a, b, { ...options, backend: 'cpu' }), `${threads} threads against the reference`);
      assertSameDistances(got, await compareSurfaces(a, b, { ...options, method: 'brute' }), `${threads} threads against brute`);
      assert.ok(got.ab.hd < 0.1 && got.ba!.hd < 0.1, `every sample near its own object: ${got.ab.hd}, ${got.ba!.hd}`);
    }
  });

  it('an object of A with none of B near it: that direction is searched whole, with the same answers', async () => {
    const options = base as SurfaceCompareOptions;
    const got = await compareSurfaces(a, lonely, options);
    assertSameDistances(got, await referenceCompare(a, lonely, { ...options, backend: 'cpu' }), 'against the reference');
    assert.ok(got.ab.hd > 1e6, `A's far samples measured to B's home objects: ${got.ab.hd}`);
  });

  it('a triangle bridging the two objects keeps the direction whole, with the same answers', async () => {
    const n = b.count / 2;
    const bridged: Geometry = { ...b, triangles: Uint32Array.from([...b.triangles!, 0, 1, n + 2]) };
    const options = base as SurfaceCompareOptions;
    const got = await compareSurfaces(a, bridged, { ...options, directed: true });
    assert.ok(!inAnIsland(got), `origin ${got.origin}: one frame over both objects`);
    assertSameDistances(got, await referenceCompare(a, bridged, { ...options, directed: true, backend: 'cpu' }), 'against the reference');
  });

  it('a point cloud as the target (its points as one-point triangles) parts the same way', async () => {
    const cloud: Geometry = { ...b, triangles: undefined };
    const options = base as SurfaceCompareOptions;
    const got = await compareSurfaces(a, cloud, options);
    assertSameDistances(got, await referenceCompare(a, cloud, { ...options, backend: 'cpu' }), 'against the reference');
  });
});

const cuda = probeBackend('cuda');
suiteUnless(cuda.available ? false : 'no usable CUDA GPU', 'surface islands on the GPU equal the CPU brute force', () => {
  it('two objects far apart in each mesh, and an object of A alone', async () => {
    for (const target of [b, lonely]) {
      const want = await compareSurfaces(a, target, { ...base, method: 'brute' } as SurfaceCompareOptions);
      const got = await compareSurfaces(a, target, { ...base, backend: 'cuda' } as SurfaceCompareOptions);
      assertSameDistances(got, want, target === b ? 'two objects' : 'an object of A alone');
    }
  });
});
