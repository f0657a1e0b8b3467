import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isMarkedFinite } from '../src/io/geometry.js';
import { parseGeometry, readGeometry } from '../src/io/read.js';
import { fixture, sharedData } from './helpers.js';
import { assertBounds, assertCoordinateType, assertPositions, assertTriangles, assertVertex } from './io-expect.js';

test('ascii PLY: x,y,z among other properties, lists skipped, unknown element skipped, quad fanned', () => {
  const g = readGeometry(fixture('tetra-ascii.ply'));
  assert.equal(g.format, 'ply');
  assert.equal(g.dims, 3);
  assertCoordinateType(g, Float64Array); // text: the parsed doubles, whatever type the header declares
  assertPositions(g, [0, 0, 0, 1.25, 0, 0, 0, -2.5, 0, 0, 0, 7, 10, 0.1, -1]);
  assertTriangles(g, [0, 1, 2, 0, 2, 3, 0, 3, 1, 1, 3, 4]);
  assertBounds(g, [0, -2.5, -1], [10, 0.1, 7]);
  assert.deepEqual(g.notes, ['skipped PLY elements: edge (2)', '1 polygon with more than 3 vertices fan-triangulated']);
});

for (const name of ['all-types-le.ply', 'all-types-be.ply']) {
  test(`binary PLY with every scalar type (${name})`, () => {
    const g = readGeometry(fixture(name));
    // x float, y double, z int32; the other properties (every other type) are skipped
    assertCoordinateType(g, Float64Array); // not all float32: widened exactly
    assertPositions(g, [0.5, -1.25, 3, 2, 0.1, -4, -8.75, 1e-3, 100000]);
    // triangle 0 1 2 after a ushort flag, then quad 2 1 0 1; edge lists and materials skipped
    assertTriangles(g, [0, 1, 2, 2, 1, 0, 2, 0, 1]);
    assert.deepEqual(g.notes, [
      'skipped PLY elements: edge (2), material (2)',
      '1 polygon with more than 3 vertices fan-triangulated',
    ]);
  });
}

test('binary PLY with integer coordinates and a list inside the vertex element', () => {
  const g = readGeometry(fixture('list-in-vertex-le.ply'));
  assertCoordinateType(g, Float64Array);
  assertPositions(g, [-5, 7, 9, 6, 65535, 10, 127, 0, 4294967295]);
  assert.equal(g.positions[8], 4294967295); // uint32 kept exactly (float32 would give 4294967296)
  assertTriangles(g, [2, 1, 0]); // list int16 int16
});

for (const name of ['tetra-f32-le.ply', 'tetra-f32-be.ply']) {
  test(`packed float32 xyz with faces (${name})`, () => {
    const g = readGeometry(fixture(name));
    assertCoordinateType(g, Float32Array); // the file stores float32: its own truth
    assertPositions(g, [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
    assertTriangles(g, [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]);
    assert.deepEqual(g.notes, []);
  });
}

test('float32 fast paths give the same values at any buffer alignment', () => {
  const expected = [1.5, 2.5, 3.5, -1, -2, -3, 1e-7, 65504, -0]; // -0 survives the copy
  for (const name of ['xyzn-f32-le.ply', 'xyzrgb-f32-le.ply', 'tetra-f32-le.ply']) {
    const file = readFileSync(fixture(name));
    for (let shift = 0; shift < 4; shift++) {
      const buffer = new Uint8Array(file.length + shift);
      buffer.set(file, shift);
      const g = parseGeometry(buffer.subarray(shift), name);
      assertCoordinateType(g, Float32Array);
      if (name === 'tetra-f32-le.ply') assertVertex(g, 3, [0, 0, 1]);
      else assertPositions(g, expected);
    }
  }
});

test('PLY without z is 2D (ascii float and big-endian double)', () => {
  const ascii = readGeometry(fixture('points-2d.ply'));
  assert.equal(ascii.dims, 2);
  assertCoordinateType(ascii, Float64Array);
  assertPositions(ascii, [1, 2, 0, 3, 4, 0, -5, 6.5, 0]);
  const binary = readGeometry(fixture('xy-f64-be.ply'));
  assert.equal(binary.dims, 2);
  assertCoordinateType(binary, Float64Array);
  assert.equal(binary.positions[0], 0.1); // the stored double, not its float32 rounding
  assertPositions(binary, [0.1, 0.2, 0, -3, 4e10, 0]);
  assert.equal(binary.triangles, undefined);
});

test('element face 0 reads as a point cloud; element vertex 0 as an empty set', () => {
  const g = readGeometry(fixture('no-faces.ply'));
  assert.equal(g.triangles, undefined);
  assertPositions(g, [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(g.notes, ['PLY declares no faces: read as a point cloud']);
  const empty = readGeometry(fixture('empty-vertices.ply'));
  assert.equal(empty.count, 0);
  assert.equal(empty.dims, 3);
});

const building = sharedData('points/building.ply');
test('shared building.ply (ascii, normals and a segment index)', { skip: building === undefined && 'shared data absent' }, () => {
  const g = readGeometry(building!);
  assert.equal(g.count, 100000);
  assert.equal(g.triangles, undefined);
  assertCoordinateType(g, Float64Array);
  assertVertex(g, 99999, [-5.53341, 20.6638, 10.8803]);
  assert.equal(g.bounds.min[0], -7.46581);
});

const hippos: [string, number, [number, number, number], [number, number, number]][] = [
  ['hippo1.ply', 6104, [0.326401, 0.19364, 0.056274], [0.027667, 0.22138, 0.064697]],
  ['hippo2.ply', 4387, [-0.102096, 0.172792, 0.166626], [0.086, 0.091799, 0.043945]],
  ['circles.ply', 1101, [-0.39421442283839714, -0.6999221558404825, 0], [0.8434192612020492, -0.5378861580596158, 0]],
];
for (const [name, count, first, last] of hippos) {
  const path = sharedData(`points/${name}`);
  test(`shared ${name} (binary little-endian doubles with normals)`, { skip: path === undefined && 'shared data absent' }, () => {
    const g = readGeometry(path!);
    assert.equal(g.count, count);
    assert.equal(g.dims, 3);
    assertCoordinateType(g, Float64Array);
    assertVertex(g, 0, first);
    assertVertex(g, count - 1, last);
  });
}

const b9 = sharedData('meshes/b9.ply');
test('shared b9.ply (element face 0)', { skip: b9 === undefined && 'shared data absent' }, () => {
  const g = readGeometry(b9!);
  assert.equal(g.count, 22300);
  assert.equal(g.triangles, undefined);
  assertCoordinateType(g, Float64Array); // ascii, though its header says float
  assertVertex(g, 0, [45.375, 52.1094, -10.6268]);
  assert.deepEqual(g.notes, ['PLY declares no faces: read as a point cloud']);
});

// Packed float32 x,y,z bodies are used in place when the body starts 4-byte aligned in the read buffer;
// header lengths of every remainder mod 4 check both the in-place and the copying paths.
test('binary packed float xyz: every header alignment reads the same points and locates a NaN or infinity', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xhd-ply-align-'));
  try {
    // Enough points that the body outweighs the header, as the in-place path requires.
    const points = Array.from({ length: 3 * 64 }, (_, i) => (i % 7) - 3 + i / 8);
    for (let pad = 0; pad < 4; pad++) {
      for (const bad of [undefined, NaN, -Infinity]) {
        const header = `ply\nformat binary_little_endian 1.0\ncomment ${'x'.repeat(pad)}\nelement vertex 64\n` +
          'property float x\nproperty float y\nproperty float z\nend_header\n';
        const body = new Float32Array(points);
        if (bad !== undefined) body[3 * 40 + 1] = bad; // vertex 40, y
        const path = join(dir, `p${pad}.ply`);
        writeFileSync(path, Buffer.concat([Buffer.from(header), Buffer.from(body.buffer)]));
        if (bad === undefined) {
          const g = readGeometry(path);
          assertCoordinateType(g, Float32Array);
          assertPositions(g, Array.from(new Float32Array(points)));
          assert.ok(isMarkedFinite(g.positions), 'a reader-checked set skips the later finiteness scan');
        } else {
          const at = header.length + 12 * 40; // vertex 40's record
          assert.throws(() => readGeometry(path), (e: Error) =>
            e.message === `${path} (byte ${at}): non-finite coordinate (${bad}) in vertex 40`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ascii PLY with classic Mac (lone CR) line ends, header and body', () => {
  const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
  const header = 'ply\rformat ascii 1.0\rcomment from a Mac\relement vertex 3\rproperty double x\rproperty double y\rproperty double z\r' +
    'element face 1\rproperty list uchar int vertex_indices\rend_header\r';
  const g = parseGeometry(bytes(`${header}0 0 0\r10 0 0\r0 10 0\r3 0 1 2\r`), 'mac.ply');
  assertPositions(g, [0, 0, 0, 10, 0, 0, 0, 10, 0]);
  assertTriangles(g, [0, 1, 2]);
  assert.deepEqual(g.notes, []);
  // The body's first line is line 11; the bad value is on line 12.
  assert.throws(() => parseGeometry(bytes(`${header}0 0 0\r10 z 0\r0 10 0\r3 0 1 2\r`), 'bad.ply'), /bad\.ply:12: expected a number, found 'z'/);
  // A record may not run on past a lone CR into the next line.
  assert.throws(() => parseGeometry(bytes(`${header}0 0\r0 10 0 0\r10 0\r3 0 1 2\r`), 'short.ply'), /short\.ply:11: vertex record has fewer values/);
  // Sniffed as PLY without its extension.
  assert.equal(parseGeometry(bytes(`${header}0 0 0\r10 0 0\r0 10 0\r3 0 1 2\r`), 'mac.dat').format, 'ply');
});
