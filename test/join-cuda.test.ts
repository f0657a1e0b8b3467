// The CUDA join against the CPU join, bit for bit: the same pairs in the same order, with the same distances,
// triangles and points, for every predicate and the self-join, in one chunk and in many (XHD_JOIN_CHUNK_ITEMS),
// on generated scenes and, where ../shared/data has them, on 3DPipe's vessel and nucleus replicated. The CPU
// join is itself checked against the brute-force reference (cli-join.test.ts). Skips without a usable GPU.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { readJoinCollection, type JoinCollection } from '../src/io/join-collection.js';
import { spatialJoin, type JoinBatch, type JoinPredicate } from '../src/ops/join.js';
import { readGeometry } from '../src/io/read.js';
import { runXhd, scratchDir } from './cli-run.js';
import { rng } from './random-points.js';
import { cube, uvSphere, writeOff } from './test-meshes.js';
import { suiteUnless } from './skippable-suite.js';

const cuda = probeBackend('cuda');
const skip = cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`;

type Mesh = { positions: Float32Array | Float64Array; triangles: Uint32Array };

function shifted(mesh: Mesh, d: number[]): Mesh {
  const p = new Float64Array(mesh.positions.length);
  for (let i = 0; i < p.length; i++) p[i] = mesh.positions[i] + d[i % 3];
  return { positions: p, triangles: mesh.triangles };
}

interface Joined {
  objects: bigint[];
  distance: number[];
  triangles: bigint[];
  points: number[];
  intersecting: number[];
}

async function joined(a: JoinCollection, b: JoinCollection | null, predicate: JoinPredicate, backend: 'cpu' | 'cuda', groupSize?: number): Promise<Joined> {
  const out: Joined = { objects: [], distance: [], triangles: [], points: [], intersecting: [] };
  const stats = await spatialJoin(a, b, { predicate, backend, groupSize }, (batch: JoinBatch) => {
    out.objects.push(...batch.objects);
    out.distance.push(...batch.distance);
    out.triangles.push(...batch.triangles);
    out.points.push(...batch.points);
    out.intersecting.push(...batch.intersecting);
  });
  assert.equal(stats.backend, backend);
  return out;
}

async function assertSameOnBoth(a: JoinCollection, b: JoinCollection | null, predicate: JoinPredicate, label: string, groupSize?: number) {
  const cpu = await joined(a, b, predicate, 'cpu', groupSize);
  const gpu = await joined(a, b, predicate, 'cuda', groupSize);
  assert.ok(cpu.distance.length > 0, `${label}: the case finds pairs`);
  // deepEqual on numbers compares with Object.is: the same doubles, bit for bit (0 and -0 apart).
  assert.deepEqual(gpu, cpu, label);
}

// Spheres (of 108 triangles; `fine`: 560) and cubes at random, and three cubes whose distances tie.
function sceneDirectory(seed: number, count: number, fine = false): string {
  const random = rng(seed);
  const dir = join(scratchDir(), `scene${seed}`);
  mkdirSync(dir);
  for (let i = 0; i < count; i++) {
    const at = [random() * 12, random() * 12, random() * 12];
    const mesh = i % 2 === 0 ? uvSphere(0.5 + random(), fine ? 14 : 6, fine ? 20 : 9) : cube(0.4 + random() * 0.5);
    writeOff(join(dir, `o${String(i).padStart(3, '0')}.off`), shifted(mesh, at));
  }
  for (const x of [40, 43, 46]) writeOff(join(dir, `tie${x}.off`), shifted(cube(1), [x, 0, 0]));
  return dir;
}

const PREDICATES: [string, JoinPredicate][] = [
  ['intersects', { kind: 'intersects' }],
  ['within 0.8', { kind: 'within', distance: 0.8 }],
  ['3-NN', { kind: 'knn', k: 3 }],
];

suiteUnless(skip, 'the CUDA join equals the CPU join bit for bit', () => {
  const a = readJoinCollection(sceneDirectory(1, 60)), b = readJoinCollection(sceneDirectory(2, 50));
  for (const [name, predicate] of PREDICATES) {
    it(`${name}: A × B and self-join`, async () => {
      await assertSameOnBoth(a, b, predicate, `${name} A × B`);
      await assertSameOnBoth(a, null, predicate, `${name} self-join`);
    });
  }

  it('in many chunks of group pairs (XHD_JOIN_CHUNK_ITEMS=7), through the command line', () => {
    const dirA = sceneDirectory(3, 40), dirB = sceneDirectory(4, 40);
    for (const predicate of [['--intersects'], ['--within', '1'], ['--knn', '4']]) {
      const args = ['join', dirA, dirB, ...predicate, '--output', 'json', '-q'];
      const cpu = runXhd([...args, '--backend', 'cpu']);
      const gpu = runXhd([...args, '--backend', 'cuda'], { XHD_JOIN_CHUNK_ITEMS: '7' });
      assert.equal(cpu.code, 0, cpu.stderr);
      assert.equal(gpu.code, 0, gpu.stderr);
      assert.equal(gpu.stdout, cpu.stdout, predicate.join(' '));
    }
  });

  // The GPU holds a group's triangles in shared memory 64 at a time: groups of 150 take several tiles a side,
  // groups of 1 leave most of a tile empty. Float32 coordinates are read as floats on both backends.
  it('facet groups of 150 and of 1, and float32 coordinates', async () => {
    const a = readJoinCollection(sceneDirectory(6, 30, true)), b = readJoinCollection(sceneDirectory(7, 30, true));
    for (const groupSize of [150, 1])
      for (const [name, predicate] of PREDICATES) await assertSameOnBoth(a, b, predicate, `${name}, groups of ${groupSize}`, groupSize);
    const floats = (c: JoinCollection): JoinCollection => ({ ...c, positions: Float32Array.from(c.positions) });
    assert.ok(floats(a).positions instanceof Float32Array);
    for (const [name, predicate] of PREDICATES) await assertSameOnBoth(floats(a), floats(b), predicate, `${name}, float32`);
  });

  it('--method brute is refused on the GPU (exit 2)', () => {
    const dir = sceneDirectory(5, 4);
    const r = runXhd(['join', dir, dir, '--intersects', '--backend', 'cuda', '--method', 'brute']);
    assert.equal(r.code, 2, r.stderr);
  });

  const meshes = join(process.cwd(), '..', 'shared', 'data', 'meshes');
  const vessel = join(meshes, '3dpipe-vessel.off'), nucleus = join(meshes, '3dpipe-nucleus.off');
  it('3DPipe shapes: 2 vessels × 400 nuclei, within 50 and 3-NN', { skip: !existsSync(vessel) && 'no ../shared/data/meshes/3dpipe-*.off' }, async () => {
    const v = readGeometry(vessel), n = readGeometry(nucleus);
    const dir = scratchDir();
    const dv = join(dir, 'v'), dn = join(dir, 'n');
    mkdirSync(dv);
    mkdirSync(dn);
    const random = rng(27);
    const span = [v.bounds.max[0] - v.bounds.min[0], v.bounds.max[1] - v.bounds.min[1], v.bounds.max[2] - v.bounds.min[2]];
    for (let i = 0; i < 2; i++) writeOff(join(dv, `v${i}.off`), shifted(v as Mesh, [i * 1.1 * span[0], 0, 0]));
    for (let i = 0; i < 400; i++) {
      const at = [0, 1, 2].map((k) => v.bounds.min[k] - n.bounds.min[k] + random() * span[k] * (k === 0 ? 2.1 : 1));
      writeOff(join(dn, `n${String(i).padStart(3, '0')}.off`), shifted(n as Mesh, at));
    }
    const va = readJoinCollection(dv), nb = readJoinCollection(dn);
    await assertSameOnBoth(va, nb, { kind: 'within', distance: 50 }, 'vessels × nuclei within 50');
    await assertSameOnBoth(va, nb, { kind: 'knn', k: 3 }, 'vessels × nuclei 3-NN');
    await assertSameOnBoth(nb, va, { kind: 'intersects' }, 'nuclei × vessels intersects');
  });
});
