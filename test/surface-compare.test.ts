// xhd_surface_compare, the whole surface comparison in one native call, against the reference composed from
// the single-purpose parts (test/surface-compare-reference.ts): the same samples, distances, statistics,
// witnesses, notes and origin to the bit, for every sampling mode, directed or not, meshes and point clouds,
// float32 and double inputs; its vertices+edges+faces sampler against the TypeScript one; the rules kept from
// the TypeScript orchestration (threads, wall times, progress, cancellation); one crossing into the library.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import koffi from 'koffi';

import { probeBackend } from '../src/ops/backends.js';
import { CancelledError, UsageError } from '../src/core/errors.js';
import { computeBounds, type Geometry } from '../src/io/geometry.js';
import { readGeometry } from '../src/io/read.js';
import { DIRECTION_AB } from '../src/native/abi.js';
import { loadBackend, type NativeBackend } from '../src/native/library.js';
import { sampleMesh, type SamplingMode } from '../src/sampling/sample-mesh.js';
import { compareSurfaces, type SurfaceCompareOptions, type SurfaceOutcome } from '../src/ops/surface-compare.js';
import type { TriangleMesh } from '../src/ops/surface-distance.js';
import { fixture } from './helpers.js';
import { rng, uniform } from './random-points.js';
import { referenceCompare, type ReferenceOutcome } from './surface-compare-reference.js';
import { cube, torus, triangleSoup, uvSphere } from './test-meshes.js';
import { suiteUnless } from './skippable-suite.js';

function geometry(positions: Float32Array | Float64Array, triangles?: Uint32Array, dims: 2 | 3 = 3): Geometry {
  return { positions, count: positions.length / 3, dims, triangles, bounds: computeBounds(positions), format: 'off', notes: [] };
}

const asGeometry = (m: TriangleMesh) => geometry(m.positions, m.triangles);

/** The mesh in doubles, moved to survey coordinates (where a float's step is 0.5). */
function atSurvey(m: TriangleMesh, shift = 0): Geometry {
  const offset = [500_000 + shift, 4_200_000, 100];
  return geometry(Float64Array.from(m.positions, (v, i) => v + offset[i % 3]), m.triangles);
}

/** Triangles of areas over twelve orders of magnitude with zero-area ones between, and a vertex no triangle uses. */
function wildAreas(): Geometry {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (let k = 0; k < 120; k++) {
    const s = 10 ** ((k % 13) - 6) * (k % 5 === 0 ? 0 : 1);
    const base = positions.length / 3;
    positions.push(k, 0, 0, k + s, 0, 0, k, s, 0.5 * s);
    // Every other triangle walks its corners the other way round: the same edges, seen from both sides.
    triangles.push(...(k % 2 ? [base, base + 2, base + 1] : [base, base + 1, base + 2]));
  }
  positions.push(-5, -5, -5);
  return geometry(Float32Array.from(positions), Uint32Array.from(triangles));
}

/** A mesh whose every triangle is degenerate: the compare uses its vertices, with a note. */
const noArea = geometry(new Float32Array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]), new Uint32Array([0, 1, 2, 1, 1, 3]));

const random = rng(5);
const sphere = asGeometry(uvSphere(1, 20, 40));
const ring = asGeometry(torus(0.8, 0.3, 30, 16));
const soup = asGeometry(triangleSoup(500, random));
const box = asGeometry(cube(0.9));
const survey = atSurvey(uvSphere(1, 16, 32));
const surveyMoved = atSurvey(uvSphere(1.01, 14, 28), 0.003);
const cloud = geometry(uniform(700, 3, random, -1, 2));
const cloud64 = geometry(Float64Array.from(uniform(500, 3, random, -1.2, 2.4)));

const base = { method: 'grid', directed: false, sampling: 'area', seed: 11, backend: 'cpu', threads: 2 } as const;

/** Everything the outcome shares with the reference, bit for bit (deepStrictEqual: -0 is not 0, types count). */
function assertSameAsReference(got: SurfaceOutcome, want: ReferenceOutcome, label: string): void {
  assert.deepStrictEqual(got.ab, want.ab, `${label}: A → B`);
  assert.deepStrictEqual(got.ba, want.ba, `${label}: B → A`);
  assert.deepStrictEqual(got.queriesA, want.queriesA, `${label}: A's query points`);
  assert.deepStrictEqual(got.queriesB, want.queriesB, `${label}: B's query points`);
  assert.deepStrictEqual(got.distancesAb, want.distancesAb, `${label}: A → B distances`);
  assert.deepStrictEqual(got.distancesBa, want.distancesBa, `${label}: B → A distances`);
  assert.deepStrictEqual(got.origin, want.origin, `${label}: origin`);
  assert.deepStrictEqual(got.notes, want.notes, `${label}: notes`);
  assert.equal(got.samplesA, want.ab.samples);
  assert.equal(got.samplesB, want.ba ? want.ba.samples : 0);
  assert.equal(got.es, want.ba ? Math.max(want.ab.e, want.ba.e) : null);
}

async function checkPair(label: string, a: Geometry, b: Geometry, o: Partial<SurfaceCompareOptions>): Promise<SurfaceOutcome> {
  const options = { ...base, ...o } as SurfaceCompareOptions;
  const got = await compareSurfaces(a, b, options);
  const want = await referenceCompare(a, b, { ...options, backend: options.backend === 'cuda' ? 'cuda' : 'cpu' });
  assertSameAsReference(got, want, label);
  return got;
}

describe('the vertices+edges+faces sampler in the library', () => {
  // Measured against one point, so that the call is mostly the sampling: A's query points are its samples.
  const onePoint = geometry(new Float32Array([0.1, 0.2, 0.3]));
  it("gives the TypeScript sampler's points to the bit: float32 and double meshes, degenerate triangles, any count and seed", async () => {
    for (const [label, g] of [['sphere', sphere], ['soup with degenerate triangles', soup], ['double sphere at survey coordinates', survey],
      ['wild areas, an unused vertex', wildAreas()], ['torus', ring], ['cube', box]] as const) {
      const vertices = g.positions.length / 3;
      for (const count of [1, vertices, vertices + 1, 1000, 20_000]) {
        for (const seed of [0, 5, 2 ** 32 + 7, 2 ** 52 + 3]) {
          const r = await compareSurfaces(g, onePoint, { ...base, directed: true, sampling: 'vertices+edges+faces', samples: count, seed });
          const want = sampleMesh({ positions: g.positions, triangles: g.triangles! }, { mode: 'vertices+edges+faces', count, seed });
          assert.deepStrictEqual(r.queriesA, want, `${label}, ${count} samples, seed ${seed}`);
          assert.equal(r.samplesA, want.length / 3);
        }
      }
    }
  });

  it('seeds the area sampler as new Random(seed) does, and B with seed + 1', async () => {
    for (const seed of [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1]) {
      const r = await compareSurfaces(survey, sphere, { ...base, samples: 3000, seed });
      assert.deepStrictEqual(r.queriesA, sampleMesh({ positions: survey.positions, triangles: survey.triangles! }, { mode: 'area', count: 3000, seed }));
      assert.deepStrictEqual(r.queriesB, sampleMesh({ positions: sphere.positions, triangles: sphere.triangles! }, { mode: 'area', count: 3000, seed: seed + 1 }));
    }
  });
});

describe('xhd_surface_compare against the multi-call reference', () => {
  it('meshes against meshes: every sampling mode, directed or not, float32 and double', async () => {
    for (const [label, a, b] of [['sphere/torus', sphere, ring], ['soup/sphere', soup, sphere], ['survey/survey', survey, surveyMoved],
      ['float32 cube/double sphere', box, surveyMoved], ['wild areas/cube', wildAreas(), box]] as const) {
      for (const sampling of ['area', 'vertices', 'vertices+edges+faces'] as SamplingMode[]) {
        for (const directed of [false, true]) {
          await checkPair(`${label} ${sampling}${directed ? ' directed' : ''}`, a, b, { sampling, directed, samples: 4000 });
        }
      }
    }
  });

  it('point clouds against meshes, both ways, and a mesh without area', async () => {
    for (const [label, a, b] of [['cloud/sphere', cloud, sphere], ['sphere/cloud', sphere, cloud], ['double cloud/torus', cloud64, ring],
      ['soup/double cloud', soup, cloud64], ['no area/sphere', noArea, sphere], ['sphere/no area', sphere, noArea]] as const) {
      for (const sampling of ['area', 'vertices+edges+faces'] as SamplingMode[]) {
        const r = await checkPair(`${label} ${sampling}`, a, b, { sampling, samples: 2500 });
        if (a === cloud) assert.equal(r.queriesA, cloud.positions, 'a cloud is measured by its own points, not a copy');
      }
    }
    const r = await checkPair('no area', noArea, sphere, { samples: 100 });
    assert.deepStrictEqual(r.notes, ['A has no area (every triangle is degenerate): its vertices are used as samples']);
  });

  it('the default count, a count by density, the bvh and brute methods, and the fixtures', async () => {
    await checkPair('default count', sphere, ring, {});
    await checkPair('density', sphere, ring, { density: 300 });
    await checkPair('density giving one sample', sphere, ring, { density: 1e-9, sampling: 'vertices+edges+faces' });
    await checkPair('bvh', soup, sphere, { method: 'bvh', samples: 3000 });
    await checkPair('brute', box, soup, { method: 'brute', samples: 300, sampling: 'vertices+edges+faces' });
    const cubeOff = readGeometry(fixture('cube.off')), tetra = readGeometry(fixture('tetra-f32-le.ply'));
    const degenerate = readGeometry(fixture('degenerate.off')), points = readGeometry(fixture('points.xyz'));
    await checkPair('cube.off/tetra-f32-le.ply', cubeOff, tetra, { samples: 5000 });
    await checkPair('degenerate.off/points.xyz', degenerate, points, { sampling: 'vertices+edges+faces', samples: 800 });
    const square = readGeometry(fixture('noff-2d.off')), square2 = readGeometry(fixture('square-2d.csv'));
    const flat = await checkPair('2D', square, square2, { samples: 500 });
    assert.equal(flat.ab.fromPoint.length, 2);
  });

  it('random meshes and seeds', async () => {
    const r = rng(99);
    for (let k = 0; k < 6; k++) {
      const a = asGeometry(triangleSoup(100 + Math.floor(400 * r()), r));
      const b = k % 2 ? asGeometry(uvSphere(0.5 + r(), 8 + k, 16 + k)) : atSurvey(triangleSoup(200, r), r());
      const sampling = (['area', 'vertices', 'vertices+edges+faces'] as const)[k % 3];
      await checkPair(`random ${k}`, a, b, { sampling, samples: 500 + Math.floor(5000 * r()), seed: Math.floor(1e6 * r()), directed: k === 4 });
    }
  });
});

describe('what the orchestration kept', () => {
  it('gives the same answer on 1, 2 and 3 threads (one after the other, side by side) and reports the threads', async () => {
    const outcomes = [];
    for (const threads of [1, 2, 3]) {
      const o = await compareSurfaces(soup, sphere, { ...base, threads, samples: 20_000 });
      assert.equal(o.threads, threads);
      outcomes.push(o);
    }
    for (const o of outcomes.slice(1)) {
      for (const key of ['ab', 'ba', 'queriesA', 'queriesB', 'distancesAb', 'distancesBa', 'origin', 'notes'] as const) {
        assert.deepStrictEqual(o[key], outcomes[0][key], key);
      }
    }
  });

  it('gives the same answer on 1, 2 and 4 threads when one direction costs far more (the threads shared by lanes)', async () => {
    // A sphere with one vertex at 6.5e10: its samples, nearly all on the wild triangles, each test hundreds of
    // the plain sphere's near-tied triangles, while the plain sphere's samples settle at once. Side by side, the
    // directions share the threads through a gate (kernels/abi/core_gate.h) and the costly one takes the
    // cores the other leaves: the blocks run in another order, on other threads, for the same answers.
    const wild = uvSphere(1, 12, 24);
    const positions = Float64Array.from(wild.positions);
    positions[3 * 30] = 6.5e10;
    const far = asGeometry({ positions, triangles: wild.triangles });
    const plain = asGeometry(uvSphere(1, 12, 24));
    const outcomes = [];
    for (const threads of [1, 2, 4]) {
      const o = await compareSurfaces(far, plain, { ...base, threads, samples: 4000 });
      assert.equal(o.threads, threads);
      outcomes.push(o);
    }
    assert.ok(outcomes[0].ab.hd > 1e10, `A's samples reach the wild vertex: ${outcomes[0].ab.hd}`);
    for (const o of outcomes.slice(1)) {
      for (const key of ['ab', 'ba', 'distancesAb', 'distancesBa'] as const) assert.deepStrictEqual(o[key], outcomes[0][key], key);
    }
  });

  it('reports wall times that fit in the call', async () => {
    for (const [threads, directed] of [[1, false], [2, false], [2, true]] as const) {
      const start = performance.now();
      const o = await compareSurfaces(sphere, ring, { ...base, threads, directed, samples: 100_000 });
      const wall = performance.now() - start;
      assert.ok(o.sampleMs > 0 && o.buildMs > 0 && o.queryMs > 0, JSON.stringify(o));
      assert.ok(o.sampleMs + o.buildMs + o.queryMs <= wall, `${threads} threads: ${o.sampleMs} + ${o.buildMs} + ${o.queryMs} > ${wall}`);
    }
  });

  it('reports progress up to every query point, and stops when cancelled', async () => {
    for (const directed of [false, true]) {
      const seen: [number, number][] = [];
      const o = await compareSurfaces(sphere, ring, { ...base, directed, samples: 5000, onProgress: (d, t) => seen.push([d, t]) });
      const total = o.samplesA + o.samplesB;
      assert.deepStrictEqual(seen.at(-1), [total, total]);
    }
    const big = asGeometry(uvSphere(1, 200, 400));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    await assert.rejects(compareSurfaces(big, big, { ...base, samples: 4_000_000, signal: controller.signal }), CancelledError);
  });

  it('refuses both a count and a density, and bad counts, before any native call', async () => {
    await assert.rejects(compareSurfaces(sphere, ring, { ...base, samples: 10, density: 1 }), UsageError);
    await assert.rejects(compareSurfaces(sphere, ring, { ...base, samples: 0 }), UsageError);
    await assert.rejects(compareSurfaces(sphere, ring, { ...base, density: -1 }), UsageError);
  });
});

/** Counts every call into the backend's entry points (synchronous or on a worker thread) while body runs. */
async function countCrossings(backend: NativeBackend, body: () => Promise<unknown>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const saved = { ...backend };
  const entries = backend as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(saved)) {
    if (typeof value !== 'function') continue;
    const fn = value as koffi.KoffiFunction;
    const count = () => (counts[key] = (counts[key] ?? 0) + 1);
    const wrapped = (...args: unknown[]) => (count(), fn(...args));
    wrapped.async = (...args: unknown[]) => (count(), fn.async(...args));
    entries[key] = wrapped;
  }
  try {
    await body();
  } finally {
    Object.assign(backend, saved);
  }
  return counts;
}

describe('native crossings', () => {
  it('a surface compare crosses into the library once (and once more to free what it returned)', async () => {
    const cpu = loadBackend('cpu');
    for (const sampling of ['area', 'vertices', 'vertices+edges+faces'] as const) {
      for (const directed of [false, true]) {
        const counts = await countCrossings(cpu, () => compareSurfaces(sphere, cloud, { ...base, sampling, directed, samples: 2000 }));
        assert.deepStrictEqual(counts, { surfaceCompare: 1, surfaceCompareFree: 1 }, `${sampling}${directed ? ' directed' : ''}`);
      }
    }
  });

  it('the library refuses bad options with a message, owns nothing then, and a second free does nothing', () => {
    const cpu = loadBackend('cpu');
    const slot = koffi.alloc('xhd_surface_compare_result', 1);
    try {
      const mesh = { xyz: sphere.positions, vertex_count: sphere.count, triangles: sphere.triangles, triangle_count: sphere.triangles!.length / 3, xyz64: null };
      const options = { method: 2, directions: DIRECTION_AB, sampling: 0, threads: 1, device: 0, reserved: 0, samples: 100, density: 0, seed: 1 };
      assert.equal(cpu.surfaceCompare(mesh, mesh, { ...options, directions: 2 }, slot, null), 1);
      assert.match(cpu.lastError(), /directions must be/);
      assert.equal(cpu.surfaceCompare(mesh, mesh, { ...options, density: 2 }, slot, null), 1);
      assert.match(cpu.lastError(), /samples or density, not both/);
      assert.equal(cpu.surfaceCompare(mesh, mesh, options, slot, null), 0);
      const raw = koffi.decode(slot, 'xhd_surface_compare_result');
      assert.equal(Number(raw.ab.samples), 100);
      assert.equal(raw.ba.distances, null, 'directed: nothing for B → A');
      cpu.surfaceCompareFree(slot);
      assert.equal(koffi.decode(slot, 'xhd_surface_compare_result').ab.distances, null);
      cpu.surfaceCompareFree(slot);
    } finally {
      koffi.free(slot);
    }
  });
});

const cuda = probeBackend('cuda');
suiteUnless(cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`, 'xhd_surface_compare on the GPU', () => {
  it('equals the CPU bit for bit: samples, distances, statistics, witnesses, origin and notes', async () => {
    for (const [label, a, b] of [['sphere/torus', sphere, ring], ['soup/sphere', soup, sphere], ['survey/survey', survey, surveyMoved],
      ['cloud/sphere', cloud, sphere], ['no area/cube', noArea, box]] as const) {
      for (const sampling of ['area', 'vertices', 'vertices+edges+faces'] as SamplingMode[]) {
        for (const method of ['grid', 'bvh'] as const) {
          const o = { ...base, sampling, method, samples: 20_000 };
          const gpu = await compareSurfaces(a, b, { ...o, backend: 'cuda' });
          const cpu = await compareSurfaces(a, b, o);
          assert.equal(gpu.backend, 'cuda');
          assert.equal(gpu.threads, 0);
          for (const key of ['ab', 'ba', 'queriesA', 'queriesB', 'distancesAb', 'distancesBa', 'origin', 'notes'] as const) {
            assert.deepStrictEqual(gpu[key], cpu[key], `${label} ${sampling} ${method}: ${key}`);
          }
        }
      }
    }
  });

  it('equals the multi-call reference on the GPU, and crosses once', async () => {
    await checkPair('GPU sphere/torus', sphere, ring, { backend: 'cuda', samples: 30_000, sampling: 'vertices+edges+faces' });
    const counts = await countCrossings(loadBackend('cuda'), () => compareSurfaces(sphere, ring, { ...base, backend: 'cuda', samples: 1000 }));
    assert.deepStrictEqual(counts, { surfaceCompare: 1, surfaceCompareFree: 1 });
  });
});
