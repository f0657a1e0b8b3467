// The native sampler (xhd_sample_surface, in every backend library) against the TypeScript reference:
// the same points to the bit, the same stream position afterwards, whatever the thread count. Sampling
// runs on the host, so the CUDA library's copy is checked wherever that library loads, GPU or not.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { UsageError } from '../src/core/errors.js';
import { loadBackend, type BackendName, type NativeBackend } from '../src/native/library.js';
import { nativeAreaSampler, nativeSurfaceArea } from '../src/sampling/native-sampler.js';
import { Random } from '../src/sampling/random.js';
import { sampleMesh, triangleAreas, typescriptAreaSampler, type MeshInput } from '../src/sampling/sample-mesh.js';
import { rng } from './random-points.js';
import { triangleSoup, uvSphere } from './test-meshes.js';
import { suiteUnless } from './skippable-suite.js';

function tryLoad(name: BackendName): NativeBackend | undefined {
  try {
    return loadBackend(name);
  } catch {
    return undefined;
  }
}

/** Triangles of areas spanning twelve orders of magnitude, and zero-area ones between them. */
function wildAreas(): MeshInput {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (let k = 0; k < 300; k++) {
    const s = 10 ** ((k % 13) - 6) * (k % 5 === 0 ? 0 : 1);
    const base = positions.length / 3;
    positions.push(k, 0, 0, k + s, 0, 0, k, s, 0.5 * s);
    triangles.push(base, base + 1, base + 2);
  }
  return { positions: Float32Array.from(positions), triangles: Uint32Array.from(triangles) };
}

const meshes: [string, MeshInput][] = [
  ['a sphere', uvSphere(1, 40, 80)],
  ['a soup with degenerate triangles', triangleSoup(2000, rng(7))],
  ['areas from 1e-12 to 1, zeros between', wildAreas()],
  ['one triangle', { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 2]) }],
  // Double vertices (text files) give double samples, each computed from the doubles: a sphere at survey coordinates.
  ['a double sphere at (5e5, 4.2e6, 100)', surveySphere()],
];

function surveySphere(): MeshInput {
  const m = uvSphere(1, 30, 60);
  const positions = Float64Array.from(m.positions, (v, i) => v + [500_000, 4_200_000, 100][i % 3]);
  return { positions, triangles: m.triangles };
}

for (const name of ['cpu', 'cuda'] as const) {
  const backend = tryLoad(name);
  suiteUnless(backend ? false : `the ${name} library does not load here`, `native sampling in the ${name} library`, () => {
    it('gives the TypeScript sampler\'s points to the bit, for any thread count, and continues its stream', () => {
      for (const [label, mesh] of meshes) {
        for (const count of [1, 4095, 4096, 10_007]) {
          const reference = new Random(count + 3);
          const expected = typescriptAreaSampler()(mesh, count, reference);
          for (const threads of [1, 2, 7]) {
            const random = new Random(count + 3);
            const got = nativeAreaSampler(backend!, threads)(mesh, count, random);
            assert.deepEqual(got, expected, `${label}, ${count} samples, ${threads} threads`);
            assert.equal(got.constructor, mesh.positions.constructor, `${label}: samples keep the vertices' type`);
            assert.deepEqual(random.state, reference.state, `${label}: the stream continues where the reference's does`);
          }
        }
      }
    });

    it('samples the faces of vertices+edges+faces as the reference does', () => {
      const mesh = uvSphere(1, 20, 40);
      const request = { mode: 'vertices+edges+faces', count: 30_000, seed: 9 } as const;
      assert.deepEqual(sampleMesh(mesh, request, nativeAreaSampler(backend!, 2)), sampleMesh(mesh, request));
    });

    it('sums the areas in triangle order, as triangleAreas does', () => {
      for (const [label, mesh] of meshes) {
        let sum = 0;
        for (const a of triangleAreas(mesh)) sum += a;
        assert.equal(nativeSurfaceArea(backend!, mesh), sum, label);
      }
    });

    it('refuses a mesh without area, an all-zero state and bad indices with one clear message', () => {
      const flat = { positions: new Float32Array([0, 0, 0, 1, 1, 1, 2, 2, 2]), triangles: new Uint32Array([0, 1, 2]) };
      assert.throws(() => nativeAreaSampler(backend!, 1)(flat, 10, new Random(1)),
        (e: Error) => e instanceof UsageError && /no area to sample/.test(e.message));
      const zero = Random.fromState([1, 0, 0, 0]);
      zero.state = new Uint32Array(4);
      assert.throws(() => nativeAreaSampler(backend!, 1)(uvSphere(1, 4, 8), 10, zero),
        (e: Error) => e instanceof UsageError && /all zero/.test(e.message));
      const outside = { positions: new Float32Array(9), triangles: new Uint32Array([0, 1, 3]) };
      assert.throws(() => nativeSurfaceArea(backend!, outside),
        (e: Error) => e instanceof UsageError && /triangle 0 uses vertex 3/.test(e.message));
    });
  });
}
