// The native triangle paths of the binary PLY readers (xhd_read_triangle_records, xhd_count_degenerate_triangles)
// against the TypeScript loops they stand in for (XHD_NATIVE_READ=0): meshes above both native thresholds give
// the same triangles and the same notes (the degenerate count planted in them, polygons fan-triangulated), and a
// bad face in the middle of the file gives the same error, file and byte included, whole-file and in pieces.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { countDegenerateTriangles, plural, TriangleCollector } from '../src/io/build.js';
import { countDegenerateTrianglesNatively, NATIVE_DEGENERATE_TRIANGLES } from '../src/io/degenerate-native.js';
import type { Geometry } from '../src/io/geometry.js';
import { nativeReader } from '../src/io/native-reader.js';
import { readTriangleRun, TRIANGLE_RECORD } from '../src/io/ply-binary.js';
import { NATIVE_TRIANGLE_RECORDS } from '../src/io/ply-triangles-native.js';
import { readGeometry } from '../src/io/read.js';
import { errorOf, withEnv } from './reader-test-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'xhd-native-triangles-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const typescriptOnly = <T>(run: () => T): T => withEnv({ XHD_NATIVE_READ: '0' }, run);

/** Piece sizes: one that holds more than NATIVE_TRIANGLE_RECORDS records (native runs), one far below it (TypeScript runs). */
const LARGE_PIECES = '1000000', SMALL_PIECES = '4096';

const SIDE = 320; // vertices a row: SIDE * SIDE vertices, about 2 * SIDE^2 triangles

/**
 * Vertices of a SIDE x SIDE grid. Along a row (fixed i) z is linear in j, so three vertices of one row are
 * exactly collinear (every value is a multiple of 1/8, exact in float32 and in double); across rows it is not.
 */
function gridVertices(): number[][] {
  const vertices: number[][] = [];
  for (let i = 0; i < SIDE; i++) {
    for (let j = 0; j < SIDE; j++) vertices.push([1000 + i * 0.5, -2000 + j * 0.25, ((i * 37) % 11) * 0.125 + j * 0.5]);
  }
  return vertices;
}

interface Mesh {
  faces: number[][];
  /** Triangles planted to repeat an index or lie along a row. */
  degenerate: number;
}

/** Two triangles a grid cell, with every 97th replaced by one that repeats a vertex and every 89th by one along a row. */
function gridMesh(): Mesh {
  const faces: number[][] = [];
  let degenerate = 0;
  const at = (i: number, j: number) => i * SIDE + j;
  for (let i = 0; i + 1 < SIDE; i++) {
    for (let j = 0; j + 2 < SIDE; j++) {
      for (const face of [[at(i, j), at(i + 1, j), at(i, j + 1)], [at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]]) {
        const n = faces.length;
        if (n % 97 === 0) {
          faces.push([face[0], face[1], face[n % 3 === 0 ? 0 : 1]]);
          degenerate++;
        } else if (n % 89 === 0) {
          faces.push([at(i, j), at(i, j + 1), at(i, j + 2)]);
          degenerate++;
        } else {
          faces.push(face);
        }
      }
    }
  }
  return { faces, degenerate };
}

/** A binary little-endian PLY with `face` records alone (`property list uchar <indexType> vertex_indices`). */
function writeMesh(name: string, vertices: number[][], faces: number[][], options: { double?: boolean; indexType?: 'int' | 'uint'; countOf?: (f: number) => number } = {}): string {
  const width = options.double ? 8 : 4;
  const header = ['ply', 'format binary_little_endian 1.0', `element vertex ${vertices.length}`,
    ...['x', 'y', 'z'].map((p) => `property ${options.double ? 'double' : 'float'} ${p}`),
    `element face ${faces.length}`, `property list uchar ${options.indexType ?? 'int'} vertex_indices`, 'end_header', ''].join('\n');
  const body = Buffer.alloc(vertices.length * 3 * width + faces.reduce((s, f) => s + 1 + 4 * f.length, 0));
  let at = 0;
  for (const v of vertices) {
    for (const value of v) at = options.double ? body.writeDoubleLE(value, at) : body.writeFloatLE(value, at);
  }
  faces.forEach((face, f) => {
    at = body.writeUInt8(options.countOf?.(f) ?? face.length, at);
    for (const index of face) at = index < 0 ? body.writeInt32LE(index, at) : body.writeUInt32LE(index, at);
  });
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([Buffer.from(header, 'latin1'), body]));
  return path;
}

function readAs(pieces: string | undefined, read: () => Geometry): Geometry {
  return pieces === undefined ? read() : withEnv({ XHD_READ_PIECE_BYTES: pieces }, read);
}

/** The same triangles and notes with and without the native readers, whole-file and in pieces; the native geometry. */
function assertSameAsTypescript(path: string): Geometry {
  let whole: Geometry | undefined;
  for (const pieces of [undefined, LARGE_PIECES, SMALL_PIECES]) {
    const label = `${path}, ${pieces === undefined ? 'whole' : `pieces of ${pieces}`}`;
    const reference = typescriptOnly(() => readAs(pieces, () => readGeometry(path)));
    const native = readAs(pieces, () => readGeometry(path));
    assert.ok(native.triangles && reference.triangles, label);
    assert.equal(native.triangles.length, reference.triangles.length, label);
    assert.ok(Buffer.from(native.triangles.buffer, native.triangles.byteOffset, native.triangles.byteLength)
      .equals(Buffer.from(reference.triangles.buffer, reference.triangles.byteOffset, reference.triangles.byteLength)), label);
    assert.deepEqual(native.notes, reference.notes, label);
    whole ??= native;
  }
  return whole!;
}

/** The same error with and without the native readers, whole-file and in pieces of either size: that one message. */
function assertSameError(path: string): string {
  const expected = typescriptOnly(() => errorOf(() => readGeometry(path)));
  for (const pieces of [undefined, LARGE_PIECES, SMALL_PIECES]) {
    for (const native of [true, false]) {
      const read = () => readAs(pieces, () => readGeometry(path) as Geometry);
      const got = native ? errorOf(read) : typescriptOnly(() => errorOf(read));
      assert.equal(got, expected, `${path}, ${pieces ?? 'whole'}, ${native ? 'native' : 'TypeScript'}`);
    }
  }
  return expected;
}

describe('native triangle records and degenerate count in the binary PLY readers', () => {
  const vertices = gridVertices();
  const mesh = gridMesh();
  const middle = Math.floor(mesh.faces.length / 2) + 12345;

  it('is available here (the CPU library is built), and the mesh is above both native thresholds', () => {
    assert.ok(nativeReader(), 'build/libxhd_cpu.so should load');
    assert.ok(mesh.faces.length >= 2 * NATIVE_TRIANGLE_RECORDS && mesh.faces.length >= NATIVE_DEGENERATE_TRIANGLES);
    assert.ok(mesh.faces.length * TRIANGLE_RECORD > 2 * Number(LARGE_PIECES), 'several large pieces');
    assert.ok(Number(LARGE_PIECES) / TRIANGLE_RECORD >= NATIVE_TRIANGLE_RECORDS && Number(SMALL_PIECES) / TRIANGLE_RECORD < NATIVE_TRIANGLE_RECORDS);
  });

  for (const double of [false, true]) {
    for (const indexType of ['int', 'uint'] as const) {
      it(`gives the same triangles and degenerate count: ${double ? 'double' : 'float'} vertices, ${indexType} indices`, () => {
        const path = writeMesh(`grid-${double}-${indexType}.ply`, vertices, mesh.faces, { double, indexType });
        const g = assertSameAsTypescript(path);
        assert.deepEqual(Array.from(g.triangles!.subarray(0, 6)), [...mesh.faces[0], ...mesh.faces[1]]);
        assert.deepEqual(Array.from(g.triangles!.subarray(-3)), mesh.faces[mesh.faces.length - 1]);
        assert.deepEqual(g.notes, [`${plural(mesh.degenerate, 'degenerate triangle')} (repeated vertex or zero area) kept`]);
      });
    }
  }

  it('gives the same for a quad in the middle: the plain run stops there and the general reader fans it', () => {
    const faces = mesh.faces.map((f) => [...f]);
    faces[middle] = [...faces[middle], faces[middle + 1][1]];
    const g = assertSameAsTypescript(writeMesh('quad.ply', vertices, faces));
    assert.equal(g.triangles!.length, 3 * (faces.length + 1));
    assert.ok(g.notes.includes('1 polygon with more than 3 vertices fan-triangulated'), g.notes.join('; '));
  });

  it('gives the same error, file and byte, for a bad face in the middle of the file', () => {
    const vertexCount = vertices.length;
    const cases: [string, number[], { indexType?: 'int' | 'uint'; countOf?: (f: number) => number }, RegExp][] = [
      ['index-equal-count', [0, vertexCount, 1], {}, new RegExp(`face ${middle} uses vertex index ${vertexCount}, outside 0..${vertexCount - 1}$`)],
      ['index-negative', [0, 1, -5], {}, new RegExp(`face ${middle} uses vertex index -5, outside`)],
      ['index-uint-max', [0xffffffff, 1, 2], { indexType: 'uint' }, new RegExp(`face ${middle} uses vertex index 4294967295, outside`)],
      ['two-corners', [0, 1], { countOf: (f) => (f === middle ? 2 : 3) }, new RegExp(`face ${middle} has 2 vertices \\(need at least 3\\)$`)],
    ];
    for (const [name, face, options, expected] of cases) {
      const faces = mesh.faces.map((f, i) => (i === middle ? face : f));
      const path = writeMesh(`bad-${name}.ply`, vertices, faces, options);
      const message = assertSameError(path);
      assert.match(message, expected, name);
      assert.ok(message.includes(path) && /\(byte \d+\)/.test(message), message);
    }
  });

  it('readTriangleRun: the same prefix, count and collected triangles natively, from any offset, growing a small collector', () => {
    const count = NATIVE_TRIANGLE_RECORDS + 1000, at = 7;
    const bytes = new Uint8Array(at + count * TRIANGLE_RECORD);
    const view = new DataView(bytes.buffer);
    for (let r = 0; r < count; r++) {
      bytes[at + r * TRIANGLE_RECORD] = 3;
      for (let k = 0; k < 3; k++) view.setUint32(at + r * TRIANGLE_RECORD + 1 + 4 * k, (r * 7 + k * 1001) % 5000, true);
    }
    const run = (badAt: number | undefined) => {
      const copy = bytes.slice();
      if (badAt !== undefined) copy[at + badAt * TRIANGLE_RECORD] = 4;
      const collector = new TriangleCollector(1);
      collector.addTriangle(1, 2, 3); // already holding one: the run goes after it
      const read = readTriangleRun(copy, new DataView(copy.buffer), at, count, 5000, collector);
      return { read, triangles: collector.finish(), polygons: collector.polygons };
    };
    for (const badAt of [undefined, 0, 65_535, 65_536, count - 1]) {
      const native = run(badAt), reference = typescriptOnly(() => run(badAt));
      assert.equal(native.read, badAt ?? count, `bad at ${badAt}`);
      assert.deepEqual(native, reference, `bad at ${badAt}`);
      assert.equal(native.triangles.length, 3 * (1 + native.read));
    }
  });

  it('countDegenerateTrianglesNatively equals countDegenerateTriangles on float32 and float64 vertices', () => {
    const triangles = Uint32Array.from(mesh.faces.flat());
    for (const Kind of [Float32Array, Float64Array]) {
      const positions = Kind.from(vertices.flat());
      const native = countDegenerateTrianglesNatively(nativeReader()!, positions, triangles);
      assert.equal(native, countDegenerateTriangles(positions, triangles), Kind.name);
      assert.equal(native, mesh.degenerate, Kind.name);
      assert.equal(countDegenerateTrianglesNatively(nativeReader()!, positions, triangles, 1), native, `${Kind.name}, one thread`);
    }
  });
});
