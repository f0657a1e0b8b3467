// Point-to-surface distance (grid and BVH against the double-precision brute force, analytic answers), the
// sampling generator, and `xhd compare` on meshes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { Random } from '../src/sampling/random.js';
import { sampleMesh, triangleAreas } from '../src/sampling/sample-mesh.js';
import { computeBounds, type Geometry } from '../src/io/geometry.js';
import { pointsAsMesh, pointSurfaceDistances, type TriangleMesh } from '../src/ops/surface-distance.js';
import { compareSurfaces } from '../src/ops/surface-compare.js';
import { readGeometry } from '../src/io/read.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { sharedData } from './helpers.js';
import { rng, uniform } from './random-points.js';
import { cube, sphereSagitta, triangleSoup, uvSphere, writeOff } from './test-meshes.js';
import { suiteUnless } from './skippable-suite.js';

/** Points near and far from the soup, plus its own vertices and edge midpoints (exact ties). */
function probes(mesh: TriangleMesh, random: () => number): Float32Array {
  const near = uniform(400, 3, random, -0.2, 1.4);
  const far = uniform(50, 3, random, 5, 3);
  const t = mesh.triangles, p = mesh.positions;
  const on: number[] = [];
  for (let k = 0; k < Math.min(t.length, 300); k += 3) {
    const a = 3 * t[k], b = 3 * t[k + 1];
    on.push(p[a], p[a + 1], p[a + 2], (p[a] + p[b]) / 2, (p[a + 1] + p[b + 1]) / 2, (p[a + 2] + p[b + 2]) / 2);
  }
  return Float32Array.from([...near, ...far, ...on]);
}

describe('point-to-surface distance', () => {
  it('the grid and the BVH equal the brute force on triangle soups with degenerate triangles', async () => {
    for (const seed of [1, 2, 3]) {
      const random = rng(seed);
      const mesh = triangleSoup(600, random);
      const points = probes(mesh, random);
      const reference = await pointSurfaceDistances(points, mesh, { backend: 'cpu', method: 'brute' });
      assert.equal(reference.backend, 'cpu');
      for (const method of ['grid', 'bvh'] as const) {
        const fast = await pointSurfaceDistances(points, mesh, { backend: 'cpu', method });
        for (let i = 0; i < points.length / 3; i++) {
          assert.equal(fast.distances[i], reference.distances[i], `${method} seed ${seed} point ${i}: distance`);
          assert.equal(fast.triangles[i], reference.triangles[i], `${method} seed ${seed} point ${i}: nearest triangle`);
        }
        assert.ok(fast.triangleTests < reference.triangleTests / 5, `${method} prunes most triangles`);
      }
    }
  });

  it('the grid equals the BVH near a surface, far from it, and on flat and needle-thin meshes', async () => {
    const random = rng(11);
    const sphere = uvSphere(1, 60, 120);
    const plane: TriangleMesh = { // a flat strip: zero extent along z
      positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0, 1, 2, 0]),
      triangles: new Uint32Array([0, 1, 2, 1, 3, 2, 2, 3, 4, 3, 5, 4]),
    };
    // Needles: long thin triangles crossing many cells, two corners a micron apart.
    const needleCorners: number[] = [];
    for (let k = 0; k < 200; k++) {
      const a = [random(), random(), random()], dir = [random() - 0.5, random() - 0.5, random() - 0.5];
      needleCorners.push(...a, a[0] + 1e-6, a[1], a[2], ...a.map((v, j) => v + dir[j]));
    }
    const needles: TriangleMesh = { positions: Float32Array.from(needleCorners), triangles: Uint32Array.from(needleCorners.slice(0, 600).map((_, i) => i)) };
    for (const [name, mesh, points] of [
      ['sphere samples', sphere, sampleMesh(sphere, { mode: 'area', count: 20_000, seed: 4 }).map((v) => v * 1.001)],
      ['points far outside', sphere, uniform(2000, 3, random, 20, 40)],
      ['points inside', sphere, uniform(2000, 3, random, -0.5, 1)],
      ['flat strip', plane, uniform(2000, 3, random, -1, 3)],
      ['needles', needles, probes(needles, random)],
    ] as const) {
      const grid = await pointSurfaceDistances(points, mesh, { backend: 'cpu', method: 'grid' });
      const bvh = await pointSurfaceDistances(points, mesh, { backend: 'cpu', method: 'bvh' });
      for (let i = 0; i < points.length / 3; i++) {
        assert.equal(grid.distances[i], bvh.distances[i], `${name} point ${i}: distance`);
        assert.equal(grid.triangles[i], bvh.triangles[i], `${name} point ${i}: triangle`);
      }
    }
  });

  it('gives the analytic answer in each region of a triangle and on degenerate ones', async () => {
    const mesh: TriangleMesh = {
      positions: new Float32Array([0, 0, 0, 4, 0, 0, 0, 4, 0, /* zero area: */ 10, 0, 0, 12, 0, 0, 14, 0, 0, /* a point: */ 0, 20, 0]),
      triangles: new Uint32Array([0, 1, 2, 3, 4, 5, 6, 6, 6]),
    };
    const cases: Array<[number[], number, number, number[]]> = [
      [[1, 1, 3], 3, 0, [1, 1, 0]], // above the face
      [[1, 1, -2], 2, 0, [1, 1, 0]], // below the face
      [[-3, -4, 0], 5, 0, [0, 0, 0]], // beyond vertex 0
      [[2, -1, 0], 1, 0, [2, 0, 0]], // beyond edge 0-1
      [[3, 3, 0], Math.SQRT2, 0, [2, 2, 0]], // beyond the hypotenuse
      [[2, 0, 0], 0, 0, [2, 0, 0]], // on an edge
      [[13, 1, 0], 1, 1, [13, 0, 0]], // over a collinear (zero-area) triangle: its segment
      [[16, 0, 0], 2, 1, [14, 0, 0]], // beyond its end
      [[0, 23, 4], 5, 2, [0, 20, 0]], // a one-point triangle
    ];
    const points = Float32Array.from(cases.flatMap((c) => c[0]));
    for (const method of ['grid', 'bvh', 'brute'] as const) {
      const r = await pointSurfaceDistances(points, mesh, { backend: 'cpu', method });
      cases.forEach(([p, d, tri, at], i) => {
        assert.ok(Math.abs(r.distances[i] - d) <= 1e-12 * Math.max(1, d), `${method} ${p}: distance ${r.distances[i]} != ${d}`);
        assert.equal(r.triangles[i], tri, `${method} ${p}: triangle`);
        at.forEach((v, k) => assert.ok(Math.abs(r.closest[3 * i + k] - v) <= 1e-12, `${method} ${p}: closest point`));
      });
    }
  });

  it('a point cloud as one-point triangles gives nearest-neighbour distances', async () => {
    const random = rng(7);
    const cloud = uniform(500, 3, random);
    const queries = uniform(200, 3, random);
    const r = await pointSurfaceDistances(queries, pointsAsMesh(cloud), { backend: 'cpu' });
    for (let i = 0; i < 200; i++) {
      let best = Infinity, index = -1;
      for (let j = 0; j < 500; j++) {
        const d = Math.hypot(queries[3 * i] - cloud[3 * j], queries[3 * i + 1] - cloud[3 * j + 1], queries[3 * i + 2] - cloud[3 * j + 2]);
        if (d < best) [best, index] = [d, j];
      }
      assert.ok(Math.abs(r.distances[i] - best) <= 1e-12, `query ${i}`);
      assert.equal(r.triangles[i], index);
    }
  });

  it('refuses out-of-range indices and non-finite vertices with a usage error', async () => {
    const points = new Float32Array([0, 0, 0]);
    await assert.rejects(pointSurfaceDistances(points, { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 3]) }, { backend: 'cpu' }),
      /triangle 0 uses vertex 3, outside 0\.\.2/);
    await assert.rejects(pointSurfaceDistances(points, { positions: new Float32Array([0, 0, 0, NaN, 0, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 2]) }, { backend: 'cpu' }),
      /point 1 has a NaN or infinite one/);
  });
});

describe('surface sampling', () => {
  it('xoshiro128** matches the reference algorithm (64-bit integer arithmetic)', () => {
    const r = Random.fromState([1, 2, 3, 4]);
    const s = [1n, 2n, 3n, 4n];
    const M = 0xffffffffn;
    const rotl = (x: bigint, k: bigint) => ((x << k) | (x >> (32n - k))) & M;
    for (let i = 0; i < 1000; i++) {
      const expected = (rotl((s[1] * 5n) & M, 7n) * 9n) & M;
      const t = (s[1] << 9n) & M;
      s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = rotl(s[3], 11n);
      assert.equal(r.nextUint32(), Number(expected), `draw ${i}`);
    }
  });

  it('is reproducible for a seed, differs between seeds, and lies on the surface', async () => {
    const mesh = uvSphere(1, 12, 24);
    for (const mode of ['area', 'vertices+edges+faces'] as const) {
      const a = sampleMesh(mesh, { mode, count: 5000, seed: 11 });
      const again = sampleMesh(mesh, { mode, count: 5000, seed: 11 });
      const other = sampleMesh(mesh, { mode, count: 5000, seed: 12 });
      assert.deepEqual(again, a);
      assert.notDeepEqual(other, a);
      const d = await pointSurfaceDistances(a, mesh, { backend: 'cpu' });
      assert.ok(Math.max(...d.distances) < 1e-6, `${mode}: samples lie on the mesh`);
    }
  });

  it('area sampling picks triangles in proportion to their area', () => {
    // Two triangles, areas 1/2 and 3/2, far apart: count the samples on each.
    const mesh: TriangleMesh = {
      positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0, 10, 0, 0, 13, 0, 0, 10, 1, 0]),
      triangles: new Uint32Array([0, 1, 2, 3, 4, 5]),
    };
    assert.deepEqual(Array.from(triangleAreas(mesh)), [0.5, 1.5]);
    const samples = sampleMesh(mesh, { mode: 'area', count: 100_000, seed: 5 });
    let onSecond = 0;
    for (let i = 0; i < 100_000; i++) if (samples[3 * i] >= 10) onSecond++;
    assert.ok(Math.abs(onSecond / 100_000 - 0.75) < 0.01, `fraction on the larger triangle: ${onSecond / 100_000}`);
  });

  it('vertices+edges+faces keeps every vertex and reaches the requested count', () => {
    const mesh = cube(1);
    const samples = sampleMesh(mesh, { mode: 'vertices+edges+faces', count: 2000, seed: 3 });
    assert.deepEqual(samples.subarray(0, 24), mesh.positions);
    assert.equal(samples.length / 3, 2000);
  });

  it('vertices+edges+faces gives the requested count on a mesh of many short edges', { skip: !sharedData('meshes/armadillo.off') && 'no shared data' }, () => {
    const g = readGeometry(sharedData('meshes/armadillo.off')!);
    const mesh = { positions: Float32Array.from(g.positions), triangles: g.triangles! };
    for (const count of [30_000, 100_000]) {
      const samples = sampleMesh(mesh, { mode: 'vertices+edges+faces', count, seed: 5 });
      assert.equal(samples.length / 3, count);
      assert.deepEqual(samples.subarray(0, mesh.positions.length), mesh.positions);
    }
  });
});

const cuda = probeBackend('cuda');

function asGeometry(mesh: TriangleMesh | Float32Array): Geometry {
  const positions = mesh instanceof Float32Array ? mesh : mesh.positions;
  const triangles = mesh instanceof Float32Array ? undefined : mesh.triangles;
  return { positions, count: positions.length / 3, dims: 3, triangles, bounds: computeBounds(positions), format: 'off', notes: [] };
}

describe('compareSurfaces witnesses', () => {
  it("each direction's witness is the fast method's nearest triangle and closest point for that sample", async () => {
    const random = rng(21);
    const soup = triangleSoup(800, random);
    const sphere = uvSphere(1, 30, 60);
    const cloud = Float32Array.from(uniform(3000, 3, random, -1, 2));
    const backends = cuda.available ? (['cpu', 'cuda'] as const) : (['cpu'] as const);
    for (const [name, a, b] of [['soup/sphere', soup, sphere], ['sphere/cloud', sphere, cloud]] as const) {
      for (const backend of backends) {
        const o = { method: 'grid', directed: false, sampling: 'area', samples: 5000, seed: 3, backend } as const;
        const r = await compareSurfaces(asGeometry(a), asGeometry(b), o);
        const queriesB = sampleMesh(b instanceof Float32Array ? pointsAsMesh(b) : b, { mode: 'area', count: 5000, seed: 4 });
        for (const [stats, queries, target] of [[r.ab, r.queriesA as Float32Array, b], [r.ba!, b instanceof Float32Array ? b : queriesB, a]] as const) {
          const surface = target instanceof Float32Array ? pointsAsMesh(target) : target;
          const full = await pointSurfaceDistances(queries, surface, { backend, method: 'grid' });
          const i = stats.fromIndex;
          assert.equal(full.distances[i], stats.hd, `${name} ${backend}: hd`);
          assert.equal(stats.toIndex, full.triangles[i], `${name} ${backend}: witness triangle`);
          assert.deepEqual(stats.toPoint, Array.from(full.closest.subarray(3 * i, 3 * i + 3)), `${name} ${backend}: witness point`);
        }
      }
    }
  });
});

describe('xhd compare on meshes', () => {
  const dir = scratchDir();
  const json = (args: string[]) => {
    const r = runXhd(['compare', ...args, '--json', '--backend', 'cpu']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  it('reports the threads it used and wall times that fit in the total (directions side by side)', () => {
    const inner = uvSphere(1, 40, 80), outer = uvSphere(1.05, 40, 80);
    writeOff(join(dir, 'timed-inner.off'), inner);
    writeOff(join(dir, 'timed-outer.off'), outer);
    for (const threads of ['1', '2']) {
      const j = json([join(dir, 'timed-inner.off'), join(dir, 'timed-outer.off'), '--samples', '200000', '--threads', threads]);
      assert.equal(j.threads, Number(threads));
      const t = j.timings_ms;
      assert.ok(t.read + t.sample + t.build + t.query <= t.total, `threads ${threads}: ${JSON.stringify(t)}`);
    }
  });

  it('a sphere against a concentric sphere of radius r + δ gives δ up to the tessellation error', () => {
    const r = 1, delta = 0.05;
    const inner = uvSphere(r, 40, 80), outer = uvSphere(r + delta, 40, 80);
    writeOff(join(dir, 'inner.off'), inner);
    writeOff(join(dir, 'outer.off'), outer);
    const sIn = sphereSagitta(inner, r), sOut = sphereSagitta(outer, r + delta);
    const j = json([join(dir, 'inner.off'), join(dir, 'outer.off'), '--samples', '20000']);
    assert.equal(j.mode, 'surface');
    // Every point of the inner mesh lies between radii r - sIn and r, the outer mesh between r + δ - sOut and r + δ.
    const low = delta - sOut, high = delta + sIn;
    for (const key of ['hd_ab', 'hd_ba', 'mean_ab', 'mean_ba', 'rms_ab', 'rms_ba', 'min_ab', 'min_ba']) {
      assert.ok(j[key] >= low - 1e-6 && j[key] <= high + 1e-6, `${key} = ${j[key]} outside [${low}, ${high}]`);
    }
    assert.equal(j.samples.a, 20000);
    assert.ok(Math.abs(j.e_ab - j.rms_ab ** 2 * 20000) <= 1e-9 * j.e_ab, 'E is the sum of squares');
    assert.equal(j.es, Math.max(j.e_ab, j.e_ba));
    assert.ok(Math.abs(j.relative_to_bbox_diagonal.hd - j.hd / j.bbox_diagonal) < 1e-15);
  });

  it('a cube against its inscribed sphere: √3 - 1 from the corners, 1 - 1/√3 from the sphere', () => {
    const sphere = uvSphere(1, 60, 120);
    writeOff(join(dir, 'cube.off'), cube(1));
    writeOff(join(dir, 'ball.off'), sphere);
    const s = sphereSagitta(sphere, 1);
    const j = json([join(dir, 'cube.off'), join(dir, 'ball.off'), '--sampling', 'vertices+edges+faces', '--samples', '50000']);
    // Cube → sphere: the corners (sampled as vertices) are √3 - 1 from the true sphere, up to s more from the mesh.
    assert.ok(j.hd_ab >= Math.sqrt(3) - 1 - 1e-6 && j.hd_ab <= Math.sqrt(3) - 1 + s + 1e-6, `hd_ab ${j.hd_ab}`);
    // Sphere → cube: at most 1 - 1/√3 (the sphere's points towards the corners), never more.
    assert.ok(j.hd_ba <= 1 - 1 / Math.sqrt(3) + 1e-6 && j.hd_ba >= 1 - 1 / Math.sqrt(3) - 0.02, `hd_ba ${j.hd_ba}`);
    assert.ok(j.min_ab >= 0 && j.min_ab <= s + 1e-6, 'face centres touch the sphere');
  });

  it('the same seed gives the same answer; the brute reference agrees with the grid', () => {
    const args = [join(dir, 'cube.off'), join(dir, 'ball.off'), '--samples', '3000'];
    const first = json(args), second = json(args), brute = json([...args, '--method', 'brute']);
    assert.equal(second.hd, first.hd);
    assert.equal(second.e_ab, first.e_ab);
    assert.equal(brute.method, 'brute');
    for (const key of ['hd_ab', 'hd_ba', 'mean_ab', 'e_ab', 'e_ba']) assert.equal(brute[key], first[key], key);
    assert.notEqual(json([...args, '--seed', '99']).e_ab, first.e_ab);
  });

  it('a point cloud against a mesh measures points to surface and samples to points', () => {
    const points = new Float32Array([0, 0, 2, 0, 0, 0.5]);
    writeXyz(join(dir, 'two.xyz'), points);
    const j = json([join(dir, 'two.xyz'), join(dir, 'cube.off'), '--samples', '1000']);
    assert.equal(j.mode, 'surface');
    assert.ok(Math.abs(j.hd_ab - 1) < 1e-7, 'the point (0,0,2) is 1 above the top face');
    assert.ok(Math.abs(j.min_ab - 0.5) < 1e-7, 'the point (0,0,0.5) is 0.5 below it');
    assert.equal(j.samples.a, 2);
    assert.equal(j.samples.b, 1000);
  });

  it('--vertices-only keeps the point-set comparison; option misuse is a usage error', () => {
    const j = json([join(dir, 'cube.off'), join(dir, 'ball.off'), '--vertices-only']);
    assert.equal(j.mode, 'points');
    assert.equal(j.mean_ab, null);
    assert.equal(j.a.source, 'vertices');
    for (const [args, message] of [
      [['--method', 'eb'], /eb method compares point sets/],
      [['--samples', '10', '--density', '5'], /--samples or --density, not both/],
      [['--vertices-only', '--samples', '10'], /do not apply with --vertices-only/],
    ] as const) {
      const r = runXhd(['compare', join(dir, 'cube.off'), join(dir, 'ball.off'), ...args]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
    }
  });
});

suiteUnless(cuda.available ? false : 'no usable CUDA GPU', 'point-to-surface distance on the GPU equals the CPU', () => {
  it('same distances and triangles on soups, spheres and a 1M-triangle mesh', async () => {
    const random = rng(21);
    const soup = triangleSoup(3000, random);
    const big = uvSphere(1, 700, 1400); // about 2M triangles
    for (const [name, mesh, points] of [
      ['soup', soup, probes(soup, random)],
      ['sphere', big, sampleMesh(big, { mode: 'area', count: 200_000, seed: 1 })],
      ['sphere, far points', big, uniform(20_000, 3, random, -3, 6)],
    ] as const) {
      for (const method of ['grid', 'bvh'] as const) {
        const gpu = await pointSurfaceDistances(points, mesh, { backend: 'cuda', method });
        const cpu = await pointSurfaceDistances(points, mesh, { backend: 'cpu', method });
        assert.equal(gpu.backend, 'cuda');
        for (let i = 0; i < points.length / 3; i++) {
          assert.equal(gpu.distances[i], cpu.distances[i], `${method} ${name} point ${i}`);
          assert.equal(gpu.triangles[i], cpu.triangles[i], `${method} ${name} point ${i}`);
          assert.equal(gpu.closest[3 * i + 2], cpu.closest[3 * i + 2], `${method} ${name} point ${i}: closest point`);
        }
      }
    }
  });
});
