import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGeometry, readGeometry } from '../src/io/read.js';
import { fixture, sharedData } from './helpers.js';
import { assertBounds, assertCoordinateType, assertPositions, assertTriangles, assertVertex } from './io-expect.js';

test('OFF cube: vertices, triangles, bounds', () => {
  const g = readGeometry(fixture('cube.off'));
  assert.equal(g.format, 'off');
  assert.equal(g.count, 8);
  assert.equal(g.dims, 3);
  assertCoordinateType(g, Float64Array);
  assertVertex(g, 6, [1, 1, 1]);
  assertTriangles(g, [0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7]);
  assertBounds(g, [0, 0, 0], [1, 1, 1]);
  assert.deepEqual(g.notes, []);
});

test('COFF with counts on the magic line, colours, comments, tabs, CRLF and polygons', () => {
  const g = readGeometry(fixture('quads-colors.off'));
  assert.equal(g.count, 5);
  assertPositions(g, [-1.5, 22.5, 3, 0.001, -0.5, 0.5, 2, 2, 2, 3, 3, 3, 4, 4, 4]);
  // quad 0 1 2 3 and pentagon 0 1 2 3 4, fanned from their first corner
  assertTriangles(g, [0, 1, 2, 0, 2, 3, 0, 1, 2, 0, 2, 3, 0, 3, 4]);
  assert.deepEqual(g.notes, ['2 polygons with more than 3 vertices fan-triangulated']);
});

test('nOFF with dimension 2 gives 2D points with z = 0', () => {
  const g = readGeometry(fixture('noff-2d.off'));
  assert.equal(g.dims, 2);
  assertPositions(g, [0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, 0]);
  assertTriangles(g, [0, 1, 2, 0, 2, 3]);
  assertBounds(g, [0, 0, 0], [2, 1, 0]);
});

test('4OFF divides by the homogeneous coordinate', () => {
  const g = readGeometry(fixture('homogeneous.off'));
  assertCoordinateType(g, Float64Array);
  assertPositions(g, [1, 2, 3, 1, 1, 1, 2, 0, 0]);
  assertTriangles(g, [0, 1, 2]);
});

test('degenerate triangles are kept and counted in a note', () => {
  const g = readGeometry(fixture('degenerate.off'));
  assertTriangles(g, [0, 1, 3, 0, 0, 1, 0, 1, 2, 1, 2, 3]);
  assert.deepEqual(g.notes, ['2 degenerate triangles (repeated vertex or zero area) kept']);
});

test('an OFF with no vertices is an empty set, not an error', () => {
  const g = readGeometry(fixture('empty.off'));
  assert.equal(g.count, 0);
  assert.equal(g.positions.length, 0);
  assert.equal(g.triangles, undefined);
  assert.deepEqual(g.bounds, { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] });
});

interface SharedOff {
  name: string;
  vertices: number;
  triangles: number;
  first: [number, number, number];
  lastTriangle: [number, number, number];
  notes: string[];
}

const sharedOffs: SharedOff[] = [
  { name: '3torus.off', vertices: 19, triangles: 46, first: [-0.32821, 0.728949, 0.785375], lastTriangle: [18, 9, 16],
    notes: ['23 polygons with more than 3 vertices fan-triangulated'] },
  { name: 'cube_poly.off', vertices: 8, triangles: 12, first: [-1, -1, 1], lastTriangle: [4, 6, 7],
    notes: ['5 polygons with more than 3 vertices fan-triangulated'] },
  { name: 'cross_quad.off', vertices: 40, triangles: 76, first: [0, 3, 0], lastTriangle: [36, 34, 33],
    notes: ['38 polygons with more than 3 vertices fan-triangulated'] },
  { name: 'cube-shuffled.off', vertices: 8, triangles: 12, first: [-1, -1, -1], lastTriangle: [2, 1, 6], notes: [] },
  { name: 'elephant.off', vertices: 2775, triangles: 5558, first: [0.262933, 0.102269, 0.138247], lastTriangle: [1042, 875, 2769], notes: [] },
  { name: 'fandisk.off', vertices: 6475, triangles: 12946, first: [0.1696, 0.04095, -0.0471], lastTriangle: [72, 74, 73], notes: [] },
  { name: 'armadillo.off', vertices: 26002, triangles: 52000, first: [-52.9283, 67.3194, -57.6314], lastTriangle: [8648, 8475, 8291], notes: [] },
  { name: 'fandisk_large.off', vertices: 15843, triangles: 31682, first: [0.2422991505, 15.44224742748, -0.3931136332265],
    lastTriangle: [9716, 4886, 10552], notes: [] },
  { name: 'refined_elephant.off', vertices: 44460, triangles: 88928, first: [0.2613417263194, 0.09782827986086, 0.136014680859],
    lastTriangle: [44459, 10889, 19226], notes: [] },
];

for (const expected of sharedOffs) {
  const path = sharedData(`meshes/${expected.name}`);
  test(`shared ${expected.name}`, { skip: path === undefined && 'shared data absent' }, () => {
    const g = readGeometry(path!);
    assert.equal(g.count, expected.vertices);
    assert.equal(g.triangles!.length / 3, expected.triangles);
    assertCoordinateType(g, Float64Array);
    assertVertex(g, 0, expected.first);
    assert.deepEqual(Array.from(g.triangles!.subarray(-3)), expected.lastTriangle);
    assert.deepEqual(g.notes, expected.notes);
  });
}

const prim = sharedData('meshes/prim.off');
test('shared prim.off: a face beyond the declared count is ignored with a note', { skip: prim === undefined && 'shared data absent' }, () => {
  const g = readGeometry(prim!);
  assert.equal(g.count, 11);
  assertVertex(g, 10, [3, 3, 3]);
  assert.equal(g.triangles!.length / 3, 12); // 2 triangles + 5 quads; the header counts 7 faces
  assert.deepEqual(g.notes, [
    'ignored data after the last face (from line 24)',
    '5 polygons with more than 3 vertices fan-triangulated',
  ]);
});

test('classic Mac (lone CR) line ends: every vertex and face read, lines counted for errors', () => {
  const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
  const g = parseGeometry(bytes('OFF\r# a comment\r3 1 0\r0 0 0\r10 0 0\r0 10 0 0.5 0.5 0.5\r3 0 1 2\r'), 'mac.off');
  assertPositions(g, [0, 0, 0, 10, 0, 0, 0, 10, 0]);
  assertTriangles(g, [0, 1, 2]);
  assert.deepEqual(g.notes, []);
  assert.throws(() => parseGeometry(bytes('OFF\r3 1 0\r0 0 0\r10 0 x\r0 10 0\r3 0 1 2\r'), 'bad.off'), /bad\.off:4: expected a number, found 'x'/);
  // "1 2" ends at the lone CR: the vertex is short, not completed from the next line.
  assert.throws(() => parseGeometry(bytes('OFF\r1 0 0\r1 2\r3\r'), 'short.off'), /short\.off:3: /);
});
