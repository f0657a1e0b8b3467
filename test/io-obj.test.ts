import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGeometry, readGeometry } from '../src/io/read.js';
import { fixture } from './helpers.js';
import { assertBounds, assertCoordinateType, assertPositions, assertTriangles } from './io-expect.js';

test('OBJ cube: every corner form, negative indices, quads fanned, other statements skipped', () => {
  const g = readGeometry(fixture('cube.obj'));
  assert.equal(g.format, 'obj');
  assert.equal(g.count, 8);
  assertCoordinateType(g, Float64Array);
  assertPositions(g, [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1]);
  assertTriangles(g, [0, 3, 2, 0, 2, 1, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7]);
  assertBounds(g, [0, 0, 0], [1, 1, 1]);
  assert.deepEqual(g.notes, ['4 polygons with more than 3 vertices fan-triangulated']);
});

test('OBJ with only vertices is a point cloud', () => {
  const g = readGeometry(fixture('points.obj'));
  assertPositions(g, [1, 2, 3, -4, 5.5, 60]);
  assert.equal(g.triangles, undefined);
});

test('OBJ faces may name vertices defined later in the file', () => {
  const g = readGeometry(fixture('forward-reference.obj'));
  assertTriangles(g, [0, 1, 2]);
  assertPositions(g, [0, 0, 0, 1, 0, 0, 0, 1, 0]);
});

test('classic Mac (lone CR) line ends: every statement read, lines counted for errors', () => {
  const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
  const g = parseGeometry(bytes('# made on a Mac\rv 0 0 0\rv 10 0 0\rvn 0 0 1\rv 0 10 0\rf 1 2 3\r'), 'mac.obj');
  assertPositions(g, [0, 0, 0, 10, 0, 0, 0, 10, 0]);
  assertTriangles(g, [0, 1, 2]);
  assert.throws(() => parseGeometry(bytes('v 0 0 0\r\rv 1 1 q\r'), 'bad.obj'), /bad\.obj:3: expected a number, found 'q'/);
  // A face ends at the lone CR, so it cannot take the next line's numbers as corners.
  assert.throws(() => parseGeometry(bytes('v 0 0 0\rv 1 0 0\rv 0 1 0\rf 1 2\r3\r'), 'face.obj'), /face\.obj:4: face has 2 vertices/);
});
