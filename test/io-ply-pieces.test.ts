// Binary PLY read in pieces (files over 1 GiB; here forced on small files by lowering the piece size with
// XHD_READ_PIECE_BYTES): the same geometry as the whole-file reader for every layout, errors that name the
// same byte offsets, and a file over 2 GiB read at all.
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { readGeometry } from '../src/io/read.js';
import { fixture, fixturesDir, sharedData } from './helpers.js';
import { errorOf } from './reader-test-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'xhd-pieces-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function inPieces<T>(bytes: number, read: () => T): T {
  process.env.XHD_READ_PIECE_BYTES = String(bytes);
  try {
    return read();
  } finally {
    delete process.env.XHD_READ_PIECE_BYTES;
  }
}


/** A binary little-endian PLY: vertices with the given float properties, then faces of any sizes. */
function writePly(name: string, vertices: number[][], faces: number[][], options: { double?: boolean; extra?: boolean } = {}): string {
  const type = options.double ? 'double' : 'float', width = options.double ? 8 : 4;
  const props = ['x', 'y', 'z', ...(options.extra ? ['nx'] : [])];
  const header = ['ply', 'format binary_little_endian 1.0', `element vertex ${vertices.length}`,
    ...props.map((p) => `property ${type} ${p}`), `element face ${faces.length}`, 'property uchar red',
    'property list uchar int vertex_indices', 'element note 2', 'property list uchar uchar text', 'end_header', ''].join('\n');
  const parts: Buffer[] = [Buffer.from(header, 'latin1')];
  for (const v of vertices) {
    const b = Buffer.alloc(props.length * width);
    [...v, ...(options.extra ? [0.5] : [])].forEach((value, k) => (options.double ? b.writeDoubleLE(value, 8 * k) : b.writeFloatLE(value, 4 * k)));
    parts.push(b);
  }
  for (const f of faces) {
    const b = Buffer.alloc(2 + 4 * f.length);
    b.writeUInt8(200, 0);
    b.writeUInt8(f.length, 1);
    f.forEach((index, k) => b.writeInt32LE(index, 2 + 4 * k));
    parts.push(b);
  }
  parts.push(Buffer.from([3, 65, 66, 67, 1, 68])); // the skipped element's two list records
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(parts));
  return path;
}

function grid(n: number): number[][] {
  return Array.from({ length: n }, (_, i) => [500_000 + (i % 17) * 0.25, 4_200_000 + Math.floor(i / 17) * 0.5, i * 1e-3]);
}

function fan(n: number): number[][] {
  const faces: number[][] = [];
  for (let i = 0; i + 4 < n; i += 3) faces.push(i % 2 === 0 ? [i, i + 1, i + 2] : [i, i + 1, i + 2, i + 3, i + 4]);
  return faces;
}

describe('binary PLY in pieces', () => {
  it('gives what the whole-file reader gives: every binary PLY fixture and shared mesh, any piece size', () => {
    const binary = readdirSync(fixturesDir).filter((f) => f.endsWith('.ply') && !f.startsWith('bad-')
      && /format binary/.test(readFileSync(fixture(f), 'latin1').slice(0, 200)));
    const shared = ['points/building.ply', 'points/circles.ply', 'points/hippo1.ply', 'points/hippo2.ply']
      .map(sharedData).filter((p): p is string => p !== undefined && /format binary/.test(readFileSync(p, 'latin1').slice(0, 200)));
    const files = [...binary.map(fixture), ...shared];
    assert.ok(binary.length >= 8, `${binary.length} binary fixtures`);
    for (const path of files) {
      const whole = readGeometry(path);
      for (const piece of [64, 1000, 1 << 16]) {
        const pieced = inPieces(piece, () => readGeometry(path));
        assert.equal(pieced.positions.constructor, whole.positions.constructor, path);
        assert.deepEqual(pieced.positions, whole.positions, `${path}, pieces of ${piece}`);
        assert.deepEqual(pieced.triangles, whole.triangles, `${path}, pieces of ${piece}`);
        assert.ok(pieced.notes.some((n) => /read in pieces/.test(n)));
      }
    }
  });

  it('float and double vertices with extra properties, triangles and pentagons, a skipped list element', () => {
    for (const [name, options] of [['f32.ply', {}], ['f64.ply', { double: true }], ['f32-extra.ply', { extra: true }], ['f64-extra.ply', { double: true, extra: true }]] as const) {
      const path = writePly(name, grid(3000), fan(3000), options);
      const whole = readGeometry(path);
      assert.equal(whole.count, 3000);
      for (const piece of [64, 777, 4096]) {
        const pieced = inPieces(piece, () => readGeometry(path));
        assert.deepEqual(pieced.positions, whole.positions, `${name} ${piece}`);
        assert.deepEqual(pieced.triangles, whole.triangles, `${name} ${piece}`);
        assert.equal(pieced.positions[3 * 2999 + 1], options.double ? 4_200_000 + Math.floor(2999 / 17) * 0.5 : Math.fround(4_200_000 + Math.floor(2999 / 17) * 0.5));
      }
    }
  });

  it('plain triangle records (a uchar-counted int or uint list alone), whole and in pieces: read fast, and a polygon, a bad index or the end handed to the general walk', () => {
    // Faces written as given: the records are 13 bytes while every face is a triangle.
    const write = (name: string, type: 'int' | 'uint', vertices: number, faces: number[][], cut = 0): { path: string; start: number } => {
      const header = ['ply', 'format binary_little_endian 1.0', `element vertex ${vertices}`, 'property float x',
        'property float y', 'property float z', `element face ${faces.length}`, `property list uchar ${type} vertex_indices`,
        'end_header', ''].join('\n');
      const body = Buffer.alloc(12 * vertices);
      for (let v = 0; v < vertices; v++) body.writeFloatLE(v, 12 * v);
      const records = faces.map((f) => {
        const b = Buffer.alloc(1 + 4 * f.length);
        b.writeUInt8(f.length, 0);
        f.forEach((index, k) => (type === 'int' ? b.writeInt32LE(index, 1 + 4 * k) : b.writeUInt32LE(index >>> 0, 1 + 4 * k)));
        return b;
      });
      const all = Buffer.concat([Buffer.from(header, 'latin1'), body, ...records]);
      const path = join(dir, name);
      writeFileSync(path, all.subarray(0, all.length - cut));
      return { path, start: Buffer.byteLength(header, 'latin1') + 12 * vertices };
    };
    const faces = Array.from({ length: 5000 }, (_, i) => [i % 997, (i * 7) % 1000, (i * 13 + 5) % 1000]);
    for (const type of ['int', 'uint'] as const) {
      const { path } = write(`plain-${type}.ply`, type, 1000, faces);
      for (const piece of [0, 64, 1000, 1 << 20]) { // 0: read whole
        const g = piece === 0 ? readGeometry(path) : inPieces(piece, () => readGeometry(path));
        assert.deepEqual(Array.from(g.triangles!), faces.flat(), `${type}, pieces of ${piece}`);
      }
      // A quad at face 2500: it and every face after it through the general walk (fanned: two triangles).
      const withQuad = faces.map((f, i) => (i === 2500 ? [...f, 999] : f));
      const { path: quadPath } = write(`quad-${type}.ply`, type, 1000, withQuad);
      const expected = withQuad.flatMap((f) => (f.length === 4 ? [f[0], f[1], f[2], f[0], f[2], f[3]] : f));
      assert.deepEqual(Array.from(readGeometry(quadPath).triangles!), expected, type);
      assert.deepEqual(Array.from(inPieces(1000, () => readGeometry(quadPath)).triangles!), expected, type);
      // An index out of range at face 3000, corner 2: the general walk's error, at that index's byte.
      const bad = faces.map((f, i) => (i === 3000 ? [f[0], f[1], type === 'int' ? -1 : 1000] : f));
      const { path: badPath, start } = write(`bad-${type}.ply`, type, 1000, bad);
      for (const piece of [0, 64, 1 << 20]) { // 0: read whole
        const message = errorOf(() => (piece === 0 ? readGeometry(badPath) : inPieces(piece, () => readGeometry(badPath))));
        assert.equal(message, `${badPath} (byte ${start + 13 * 3000 + 9}): face 3000 uses vertex index ${type === 'int' ? -1 : 1000}, outside 0..999`);
      }
      // The file ends 5 bytes into the last face.
      const { path: shortPath } = write(`short-${type}.ply`, type, 1000, faces, 8);
      assert.match(errorOf(() => readGeometry(shortPath)), /\(byte \d+\): file is truncated: data ran out in face record 4999 of 5000/);
      assert.match(errorOf(() => inPieces(1000, () => readGeometry(shortPath))), /file is truncated: data ran out in face record 4999 of 5000/);
    }
  });

  it('errors name the same file and byte offset as the whole-file reader', () => {
    const cases = ['bad-truncated-binary.ply', 'bad-nan-binary.ply', 'bad-index-binary.ply', 'bad-face-2-binary.ply', 'bad-inf-double.ply', 'bad-count-lies.ply'];
    for (const name of cases) {
      const whole = errorOf(() => readGeometry(fixture(name)));
      const pieced = errorOf(() => inPieces(64, () => readGeometry(fixture(name))));
      assert.equal(pieced, whole, name);
      assert.match(pieced, new RegExp(`${name.replace('.', '\\.')} \\(byte \\d+\\)`), name);
    }
    // Cut 10 bytes before the end: the window reaches the end of the file inside a record.
    const content = readFileSync(writePly('cut.ply', grid(100), fan(100)));
    const truncated = join(dir, 'cut-short.ply');
    writeFileSync(truncated, content.subarray(0, content.length - 10));
    const message = errorOf(() => inPieces(128, () => readGeometry(truncated)));
    assert.match(message, new RegExp(`cut-short\\.ply \\(byte ${content.length - 10}\\): file is truncated: data ran out in (face|note) record \\d+`));
  });

  it('reads a binary PLY of more than 2 GiB (sparse: 180M points at the origin)', { timeout: 120_000 }, () => {
    const count = 180_000_000; // 2.16 GB of float32 x, y, z
    const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${count}\nproperty float x\nproperty float y\nproperty float z\nend_header\n`;
    const path = join(dir, 'huge.ply');
    const fd = openSync(path, 'w');
    try {
      writeSync(fd, header);
      writeSync(fd, Buffer.alloc(1), 0, 1, header.length + 12 * count - 1); // a hole up to the last byte
    } finally {
      closeSync(fd);
    }
    try {
      const g = readGeometry(path);
      assert.equal(g.count, count);
      assert.deepEqual([g.bounds.min, g.bounds.max], [[0, 0, 0], [0, 0, 0]]);
      assert.ok(g.notes.some((n) => /read in pieces/.test(n)));
    } finally {
      rmSync(path);
    }
  });
});
