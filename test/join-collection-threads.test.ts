// A join collection's files read on worker threads (readJoinCollectionAsync, read-geometries.ts) against the
// same collection read on one thread: the same objects, coordinates and triangles; and with broken files, the
// same first error (the one a serial read stops at), through the library and through `xhd join`.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';

import { readJoinCollection, readJoinCollectionAsync, type JoinCollection } from '../src/io/join-collection.js';
import { runXhd, scratchDir } from './cli-run.js';
import { rng } from './random-points.js';
import { cube, uvSphere, writeOff } from './test-meshes.js';

type Mesh = { positions: Float32Array | Float64Array; triangles: Uint32Array };

function moved(mesh: Mesh, d: number[]): Mesh {
  return { positions: Float64Array.from(mesh.positions, (v, i) => v + d[i % 3]), triangles: mesh.triangles };
}

/** count meshes (spheres and cubes at random places) as o000.off, o001.off, … */
function meshDirectory(count: number, seed: number): string {
  const random = rng(seed);
  const dir = join(scratchDir(), 'objects');
  mkdirSync(dir);
  for (let i = 0; i < count; i++) {
    const mesh = i % 3 === 0 ? cube(0.5 + random()) : uvSphere(0.3 + random(), 5, 7);
    writeOff(join(dir, `o${String(i).padStart(3, '0')}.off`), moved(mesh, [random() * 20, random() * 20, random() * 20]));
  }
  return dir;
}

function assertSameCollection(x: JoinCollection, y: JoinCollection): void {
  assert.deepEqual(y.objects, x.objects);
  assert.equal(y.vertexCount, x.vertexCount);
  assert.deepEqual(y.positions, x.positions);
  assert.deepEqual(y.triangles, x.triangles);
  assert.deepEqual(y.objectFaces, x.objectFaces);
}

/** The error a read throws (it must throw one). */
async function errorOf(read: () => unknown): Promise<Error> {
  try {
    await read();
  } catch (err) {
    return err as Error;
  }
  assert.fail('the read did not fail');
}

describe('a join collection read on threads', () => {
  // Three threads whatever the machine, and on lists this short too (which are otherwise read on this thread).
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.XHD_READ_THREADS;
    process.env.XHD_READ_THREADS = '3';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.XHD_READ_THREADS;
    else process.env.XHD_READ_THREADS = saved;
  });

  it('equals the collection read on one thread (a directory of 300 meshes, 5 chunks a thread)', async () => {
    const dir = meshDirectory(300, 1);
    const serial = readJoinCollection(dir);
    assert.equal(serial.objects.length, 300);
    assertSameCollection(serial, await readJoinCollectionAsync(dir));
  });

  it('a manifest: the same collection, ids from its column', async () => {
    const dir = meshDirectory(80, 2);
    const manifest = join(dir, 'list.csv');
    writeFileSync(manifest, ['path,id', ...Array.from({ length: 80 }, (_, i) => `o${String(79 - i).padStart(3, '0')}.off,id${i}`)].join('\n') + '\n');
    const serial = readJoinCollection(manifest);
    assert.equal(serial.objects[0].id, 'id0');
    assertSameCollection(serial, await readJoinCollectionAsync(manifest));
  });

  it('broken files: the first in name order is reported, as by one thread, and an InputError (exit 2)', async () => {
    const dir = meshDirectory(200, 3);
    writeFileSync(join(dir, 'o150.off'), 'OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 zero\n3 0 1 2\n');
    writeFileSync(join(dir, 'o070.off'), 'OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n');
    const serial = await errorOf(() => readJoinCollection(dir));
    const threads = await errorOf(() => readJoinCollectionAsync(dir));
    assert.match(serial.message, /o070\.off/);
    assert.equal(threads.message, serial.message);
    assert.equal(threads.constructor.name, 'InputError');
    assert.equal((threads as Error & { exitCode?: number }).exitCode, 2);
  });

  it('a manifest whose repeated id comes before a broken file: the repeat is reported, as by one thread', async () => {
    const dir = meshDirectory(40, 4);
    writeFileSync(join(dir, 'o030.off'), 'OFF\n1 0 0\nnot a number\n');
    const lines = Array.from({ length: 40 }, (_, i) => `o${String(i).padStart(3, '0')}.off,id${i === 20 ? 3 : i}`);
    const manifest = join(dir, 'list.csv');
    writeFileSync(manifest, ['path,id', ...lines].join('\n') + '\n');
    const serial = await errorOf(() => readJoinCollection(manifest));
    assert.match(serial.message, /list\.csv:22: id 'id3' repeats line 5/);
    assert.equal((await errorOf(() => readJoinCollectionAsync(manifest))).message, serial.message);
  });

  it('xhd join: the same pairs with files read on threads, and exit 2 naming the broken file', () => {
    const a = meshDirectory(60, 5), b = meshDirectory(60, 6);
    const args = ['join', a, b, '--within', '1.5', '--output', 'csv', '-q'];
    const one = runXhd(args, { XHD_READ_THREADS: '1' });
    const three = runXhd(args, { XHD_READ_THREADS: '3' });
    assert.equal(one.code, 0, one.stderr);
    assert.ok(one.stdout.split('\n').length > 3, 'the case finds pairs');
    assert.equal(three.stdout, one.stdout);
    writeFileSync(join(b, 'o041.off'), 'OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 9\n');
    const broken = runXhd(args, { XHD_READ_THREADS: '3' });
    assert.equal(broken.code, 2, broken.stderr);
    assert.match(broken.stderr, /o041\.off/);
    assert.doesNotMatch(broken.stderr, /\n\s+at /);
  });
});
