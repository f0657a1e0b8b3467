// The native binary PLY vertex reader (xhd_read_ply_vertices) against the TypeScript readers it stands in
// for: the same positions bit for bit (array type included), the same bounds (-0 below +0 as Math.min has
// it), the same errors with the same byte offsets, for every scalar type, both byte orders, odd strides,
// 2D data and small pieces; and its own reports of a file shorter than promised and of system errors.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import type { Geometry } from '../src/io/geometry.js';
import { nativeReader } from '../src/io/native-reader.js';
import type { PlyLayout } from '../src/io/ply-layout.js';
import { parsePlyHeader } from '../src/io/ply-header.js';
import { readPlyVerticesNatively } from '../src/io/ply-vertices-native.js';
import { readGeometry } from '../src/io/read.js';
import { fixture, fixturesDir, sharedData } from './helpers.js';
import { errorOf, withEnv } from './reader-test-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'xhd-native-ply-'));
after(() => rmSync(dir, { recursive: true, force: true }));


const typescriptOnly = <T>(run: () => T): T => withEnv({ XHD_NATIVE_READ: '0' }, run);


function bytesOf(g: Geometry): Buffer {
  return Buffer.from(g.positions.buffer, g.positions.byteOffset, g.positions.byteLength);
}

/** The native reader's geometry equals the TypeScript reader's bit for bit, at the default and at small pieces. */
function assertSameAsTypescript(path: string): void {
  const reference = typescriptOnly(() => readGeometry(path));
  for (const piece of [undefined, '64', '1000']) {
    const label = `${path}, pieces of ${piece ?? 'the default size'}`;
    const native = piece === undefined ? readGeometry(path) : withEnv({ XHD_READ_PIECE_BYTES: piece }, () => readGeometry(path));
    assert.equal(native.positions.constructor, reference.positions.constructor, label);
    assert.ok(bytesOf(native).equals(bytesOf(reference)), label);
    assert.deepEqual(native.triangles, reference.triangles, label);
    assert.ok(Object.is(native.bounds.min[0], reference.bounds.min[0]), label);
    assert.deepEqual(native.bounds, reference.bounds, label);
    assert.equal(native.dims, reference.dims, label);
    if (piece === undefined) assert.deepEqual(native.notes, reference.notes, label);
  }
}

type Scalar = 'char' | 'uchar' | 'short' | 'ushort' | 'int' | 'uint' | 'float' | 'double';
const SIZE: Record<Scalar, number> = { char: 1, uchar: 1, short: 2, ushort: 2, int: 4, uint: 4, float: 4, double: 8 };

function put(view: DataView, at: number, type: Scalar, value: number, le: boolean): void {
  switch (type) {
    case 'char': return view.setInt8(at, value);
    case 'uchar': return view.setUint8(at, value);
    case 'short': return view.setInt16(at, value, le);
    case 'ushort': return view.setUint16(at, value, le);
    case 'int': return view.setInt32(at, value, le);
    case 'uint': return view.setUint32(at, value, le);
    case 'float': return view.setFloat32(at, value, le);
    case 'double': return view.setFloat64(at, value, le);
  }
}

/** Values that every type can hold (small integers, then fractions where the type is a float). */
function valueFor(type: Scalar, v: number, k: number): number {
  const integer = ((v * 7 + k * 3) % 101) - (type.startsWith('u') ? 0 : 50);
  return type === 'float' || type === 'double' ? integer * 1.25 + k / 8 - (v % 5 === 0 ? 0.5 : 0) : integer;
}

/** A binary PLY whose vertices carry `properties` (name, type); x, y, z get valueFor's values, others filler. */
function writeVertices(name: string, properties: [string, Scalar][], count: number, options: { le?: boolean; values?: (v: number, k: number) => number } = {}): string {
  const le = options.le ?? true;
  const stride = properties.reduce((s, [, t]) => s + SIZE[t], 0);
  const header = ['ply', `format binary_${le ? 'little' : 'big'}_endian 1.0`, `element vertex ${count}`,
    ...properties.map(([n, t]) => `property ${t} ${n}`), 'end_header', ''].join('\n');
  const body = new DataView(new ArrayBuffer(stride * count));
  for (let v = 0; v < count; v++) {
    let at = v * stride;
    for (const [n, t] of properties) {
      const k = ['x', 'y', 'z'].indexOf(n);
      put(body, at, t, k >= 0 ? (options.values?.(v, k) ?? valueFor(t, v, k)) : (v % 200) - 100, le);
      at += SIZE[t];
    }
  }
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([Buffer.from(header, 'latin1'), Buffer.from(body.buffer)]));
  return path;
}

describe('native binary PLY vertices', () => {
  it('is available here (the CPU library is built), so the comparisons below compare two readers', () => {
    assert.ok(nativeReader(), 'build/libxhd_cpu.so should load');
  });

  it('equals the TypeScript reader on every binary PLY fixture and shared file', () => {
    const fixtures = readdirSync(fixturesDir).filter((f) => f.endsWith('.ply') && !f.startsWith('bad-')
      && /format binary/.test(readFileSync(fixture(f), 'latin1').slice(0, 200))).map(fixture);
    const shared = ['points/building.ply', 'points/circles.ply', 'points/hippo1.ply', 'points/hippo2.ply']
      .map(sharedData).filter((p): p is string => p !== undefined && /format binary/.test(readFileSync(p, 'latin1').slice(0, 200)));
    assert.ok(fixtures.length >= 8);
    for (const path of [...fixtures, ...shared]) assertSameAsTypescript(path);
  });

  it('equals it for every scalar type, both byte orders, padded records, 2D and mixed types', () => {
    const types: Scalar[] = ['char', 'uchar', 'short', 'ushort', 'int', 'uint', 'float', 'double'];
    for (const le of [true, false]) {
      for (const t of types) {
        const tag = `${t}-${le ? 'le' : 'be'}`;
        assertSameAsTypescript(writeVertices(`packed-${tag}.ply`, [['x', t], ['y', t], ['z', t]], 300, { le }));
        assertSameAsTypescript(writeVertices(`padded-${tag}.ply`, [['id', 'uchar'], ['x', t], ['nx', 'short'], ['y', t], ['z', t], ['c', 'uchar']], 300, { le }));
        assertSameAsTypescript(writeVertices(`flat-${tag}.ply`, [['y', t], ['x', t]], 300, { le }));
      }
      assertSameAsTypescript(writeVertices(`mixed-${le}.ply`, [['z', 'short'], ['x', 'float'], ['q', 'double'], ['y', 'uint']], 300, { le }));
      assertSameAsTypescript(writeVertices(`mixed-float-${le}.ply`, [['x', 'float'], ['y', 'double'], ['z', 'float']], 300, { le }));
    }
  });

  it('keeps -0 and gives Math.min / Math.max bounds over it', () => {
    const path = writeVertices('zeros.ply', [['x', 'float'], ['y', 'float'], ['z', 'float']], 5000,
      { values: (v, k) => (k === 0 ? (v === 2345 ? -0 : 0) : k === 1 ? (v % 2 ? -0 : 0) : v - 100) });
    assertSameAsTypescript(path);
    const g = readGeometry(path);
    assert.ok(Object.is(g.bounds.min[0], -0) && Object.is(g.bounds.max[0], 0));
    assert.ok(Object.is(g.positions[3 * 2345], -0));
  });

  it('reports the first bad coordinate in the file, whichever thread met it, as the TypeScript reader does', () => {
    for (const [type, bad] of [['float', NaN], ['float', -Infinity], ['double', 2e15], ['double', Infinity], ['float', 1e16]] as [Scalar, number][]) {
      const badRecords = new Set([1777, 40, 2999]);
      const path = writeVertices(`bad-${type}-${bad}.ply`, [['x', type], ['nx', 'uchar'], ['y', type], ['z', type]], 3000,
        { values: (v, k) => (badRecords.has(v) && k === (v === 40 ? 2 : 1) ? bad : valueFor(type, v, k)) });
      const expected = typescriptOnly(() => errorOf(() => readGeometry(path)));
      assert.match(expected, / \(byte \d+\): .* in vertex 40$|of vertex 40 is beyond/);
      for (const piece of [undefined, '64', '4096']) {
        const got = piece === undefined ? errorOf(() => readGeometry(path)) : withEnv({ XHD_READ_PIECE_BYTES: piece }, () => errorOf(() => readGeometry(path)));
        assert.equal(got, expected, `${path} ${piece}`);
      }
    }
    // The bad fixtures too (the non-finite ones are vertex errors).
    for (const name of ['bad-nan-binary.ply', 'bad-inf-double.ply', 'bad-truncated-binary.ply', 'bad-count-lies.ply', 'bad-index-binary.ply']) {
      assert.equal(errorOf(() => readGeometry(fixture(name))), typescriptOnly(() => errorOf(() => readGeometry(fixture(name)))), name);
    }
  });

  it('reports a file shorter than its records (one that shrank after its header was checked) at the record and byte where the data ran out', () => {
    const path = writeVertices('short.ply', [['x', 'float'], ['y', 'float'], ['z', 'float'], ['w', 'uchar']], 1000);
    const bytes = readFileSync(path);
    const header = parsePlyHeader(bytes, path);
    const cut = header.dataStart + 13 * 700 + 5; // inside record 700
    writeFileSync(path, bytes.subarray(0, cut));
    const vertex = header.elements[0];
    const layout: PlyLayout = { vertex, x: 0, y: 1, z: 2, faceIndices: -1 };
    for (const piece of [undefined, '64', '13000']) {
      const message = withEnv(piece ? { XHD_READ_PIECE_BYTES: piece } : {}, () =>
        errorOf(() => readPlyVerticesNatively(nativeReader()!, path, header.dataStart, vertex, layout, true, new Float32Array(3000))));
      assert.equal(message, `${path} (byte ${cut}): file is truncated: data ran out in vertex record 700 of 1000`, String(piece));
    }
  });

  it('words a system error as the TypeScript readers do', () => {
    const path = writeVertices('gone.ply', [['x', 'float'], ['y', 'float'], ['z', 'float']], 10);
    const header = parsePlyHeader(readFileSync(path), path);
    rmSync(path);
    const vertex = header.elements[0];
    const message = errorOf(() => readPlyVerticesNatively(nativeReader()!, path, header.dataStart, vertex,
      { vertex, x: 0, y: 1, z: 2, faceIndices: -1 }, true, new Float32Array(30)));
    assert.equal(message, `${path}: no such file`);
  });
});
