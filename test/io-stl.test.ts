import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGeometry, readGeometry } from '../src/io/read.js';
import { fixture, sharedData } from './helpers.js';
import { assertBounds, assertCoordinateType, assertPositions, assertTriangles, assertVertex } from './io-expect.js';

test('ascii STL: corners welded into 4 vertices; keywords in any case; nan normals ignored', () => {
  const g = readGeometry(fixture('tetra-ascii.stl'));
  assert.equal(g.format, 'stl');
  assertCoordinateType(g, Float64Array); // ascii: the parsed doubles
  assertPositions(g, [0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1]);
  assertTriangles(g, [0, 1, 2, 0, 2, 3, 0, 3, 1, 2, 1, 3]);
  assertBounds(g, [0, 0, 0], [1, 1, 1]);
  assert.deepEqual(g.notes, ['welded 12 triangle corners into 4 shared vertices']);
});

test('binary STL whose header starts with "solid" is read as binary by the size rule', () => {
  const g = readGeometry(fixture('tetra-binary.stl'));
  assertCoordinateType(g, Float32Array); // binary STL stores float32
  assertPositions(g, [0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1]);
  assertTriangles(g, [0, 1, 2, 0, 2, 3, 0, 3, 1, 2, 1, 3]);
});

test('-0 and +0 weld into one vertex', () => {
  const g = readGeometry(fixture('signed-zero.stl'));
  assert.equal(g.count, 4);
  assertTriangles(g, [0, 1, 2, 0, 2, 3]);
  assert.ok(Object.is(g.positions[0], 0));
});

const pig = sharedData('meshes/pig.stl');
test('shared pig.stl (binary, blank header)', { skip: pig === undefined && 'shared data absent' }, () => {
  const g = readGeometry(pig!);
  assert.equal(g.triangles!.length / 3, 16848);
  assert.equal(g.count, 8642);
  assertCoordinateType(g, Float32Array);
  assertVertex(g, 0, [21.38599967956543, 84.98570251464844, 32.70970153808594]);
  assertTriangles({ ...g, triangles: g.triangles!.subarray(0, 3) }, [0, 1, 2]);
  assert.deepEqual(g.notes, ['welded 50,544 triangle corners into 8,642 shared vertices']);
});

const sphere = sharedData('meshes/sphere.stl');
test('shared sphere.stl (binary, "FileType: Binary" header)', { skip: sphere === undefined && 'shared data absent' }, () => {
  const g = readGeometry(sphere!);
  assert.equal(g.triangles!.length / 3, 320);
  assert.equal(g.count, 162);
  assertVertex(g, 1, [0.1366499960422516, 0.4809499979019165, 0]);
  assertBounds(g, [-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]);
});

test('binary STL padded after its declared triangles: the declared ones are read, the rest noted', () => {
  const g = readGeometry(fixture('padded.stl'));
  assert.equal(g.triangles!.length / 3, 3);
  assert.ok(g.notes.includes('ignored 50 bytes after the 3 declared triangles'), g.notes.join('; '));
});

test('ascii STL with classic Mac (lone CR) line ends', () => {
  const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
  const facet = (z: number) => `facet normal 0 0 1\router loop\rvertex 0 0 ${z}\rvertex 1 0 ${z}\rvertex 0 1 ${z}\rendloop\rendfacet\r`;
  const g = parseGeometry(bytes(`solid mac part\r${facet(0)}${facet(2)}endsolid mac part\r`), 'mac.stl');
  assertPositions(g, [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 1, 0, 2, 0, 1, 2]);
  assertTriangles(g, [0, 1, 2, 3, 4, 5]);
  assert.throws(() => parseGeometry(bytes(`solid a\r${facet(0).replace('vertex 1 0 0', 'vertex 1 0 y')}endsolid a\r`), 'bad.stl'),
    /bad\.stl:5: expected a number, found 'y'/);
});
