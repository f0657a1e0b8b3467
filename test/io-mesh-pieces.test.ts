// OFF, OBJ, STL (ascii and binary) and ascii PLY read in pieces (files over 1 GiB; here forced on small
// files by lowering the piece size with XHD_READ_PIECE_BYTES): bit for bit the whole-file geometry and
// notes, or the same error naming the same line or byte, for every fixture good and bad, for line ends of
// every kind, comments, long lines that outgrow a window, and a file that ends without a line end.
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import type { Geometry } from '../src/io/geometry.js';
import { LinePieces } from '../src/io/line-pieces.js';
import { PIECES_NOTE } from '../src/io/pieces.js';
import { readGeometry } from '../src/io/read.js';
import { fixture, fixturesDir, sharedData } from './helpers.js';
import { errorOf, outcome, withEnv } from './reader-test-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'xhd-mesh-pieces-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileNumber = 0;
function write(text: string | Buffer, extension: string): string {
  const path = join(dir, `case-${fileNumber++}.${extension}`);
  writeFileSync(path, text);
  return path;
}

const bits = (g: Geometry) => Buffer.from(g.positions.buffer, g.positions.byteOffset, g.positions.byteLength);

/**
 * Reads `path` whole and in pieces of each size: the same geometry bit for bit (with the pieces' note
 * added) or the same error. Returns whether the whole read succeeded.
 */
function compare(path: string, pieces = ['64', '100', '1000']): boolean {
  const whole = outcome(() => readGeometry(path));
  for (const piece of pieces) {
    const label = `${path} in pieces of ${piece}`;
    const read = withEnv({ XHD_READ_PIECE_BYTES: piece }, () => outcome(() => readGeometry(path)));
    if ('error' in whole) {
      assert.deepEqual(read, whole, label);
      continue;
    }
    assert.ok('geometry' in read, `${label}: ${'error' in read ? read.error : ''}`);
    const a = read.geometry, b = whole.geometry;
    assert.ok(a.notes.includes(PIECES_NOTE), `${label}: read in pieces`);
    assert.equal(a.positions.constructor, b.positions.constructor, label);
    assert.ok(bits(a).equals(bits(b)), `${label}: positions differ`);
    assert.deepEqual(a.triangles, b.triangles, `${label}: triangles differ`);
    assert.deepEqual([a.dims, a.count, a.format, a.bounds, a.notes.filter((n) => n !== PIECES_NOTE)],
      [b.dims, b.count, b.format, b.bounds, b.notes], label);
  }
  return 'geometry' in whole;
}

const isMeshFixture = (name: string) => /\.(off|obj|stl)$/.test(name) || name.startsWith('sniff-')
  || (name.endsWith('.ply') && /format ascii/.test(readFileSync(fixture(name), 'latin1').slice(0, 200)));

describe('OFF, OBJ, STL and ascii PLY in pieces', () => {
  it('every fixture, good and bad: the whole-file geometry or the same error', () => {
    const names = readdirSync(fixturesDir).filter(isMeshFixture);
    let good = 0, bad = 0;
    for (const name of names) {
      if (compare(fixture(name))) good++;
      else bad++;
    }
    // Enough of each kind that the comparison means something.
    assert.ok(good >= 15 && bad >= 25, `${good} good and ${bad} bad fixtures`);
  });

  it('shared meshes of each format (skipped without ../shared)', (t) => {
    const paths = ['meshes/elephant.off', 'meshes/pig.stl', 'meshes/sphere.stl', 'meshes/b9.ply'].map(sharedData).filter((p): p is string => p !== undefined);
    if (paths.length === 0) return t.skip('no shared data');
    for (const path of paths) assert.ok(compare(path, ['4096', String(1 << 16)]), path);
  });

  it('line ends of every kind (LF, CRLF, lone CR), comments, blank lines and a last line without its end', () => {
    const off = ['OFF', '# a comment', '4 2 0', '', '0 0 0', '1 0 0  # inline', '0 1 0', '0 0 1', '3 0 1 2', '3 0 2 3'];
    const obj = ['# made by hand', 'o thing', 'v 0 0 0', 'v 1.5 0 0', 'v 0 1 0', 'vn 0 0 1', 'v 0 0 1', 'f 1//1 2//1 3//1', 'f 1 3 4 2'];
    const stl = ['solid one', 'facet normal 0 0 1', 'outer loop', 'vertex 0 0 0', 'vertex 1 0 0', 'vertex 0 1 0', 'endloop', 'endfacet', 'endsolid one',
      'solid two', 'facet normal nan nan nan', ' outer loop', '  vertex 0 0 0', '  vertex 0 0 1', '  vertex 0 1 0', ' endloop', 'endfacet', 'endsolid'];
    const ply = ['ply', 'format ascii 1.0', 'comment hi', 'element vertex 4', 'property double x', 'property double y', 'property double z',
      'property uchar red', 'element face 2', 'property list uchar int vertex_indices', 'end_header',
      '0 0 0 1', '500000.25 4200000.125 100 2', '0 1 0 3', '0 0 1 4', '3 0 1 2', '4 0 1 2 3'];
    for (const [lines, extension] of [[off, 'off'], [obj, 'obj'], [stl, 'stl'], [ply, 'ply']] as const) {
      for (const end of ['\n', '\r\n', '\r']) {
        assert.ok(compare(write(lines.join(end) + end, extension)), `${extension} ${JSON.stringify(end)}`);
        assert.ok(compare(write(lines.join(end), extension)), `${extension} ${JSON.stringify(end)}, no last line end`);
      }
    }
  });

  it('a byte-order mark, and long lines that outgrow a window', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    assert.ok(compare(write(Buffer.concat([bom, Buffer.from('OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n')]), 'off')));
    // A 300-corner polygon and vertices padded with spaces: each line longer than a 64-byte window.
    const corners = Array.from({ length: 300 }, (_, i) => i + 1);
    const ring = corners.map((i) => `v ${Math.cos(i / 50).toFixed(17)}       ${Math.sin(i / 50).toFixed(17)} ${' '.repeat(i % 90)}0`);
    assert.ok(compare(write([...ring, `f ${corners.join(' ')}`, ''].join('\n'), 'obj')));
  });

  it('errors found past the first window name the same line as the whole-file reader', () => {
    const vertices = Array.from({ length: 400 }, (_, i) => `${i} ${i % 7} ${i % 11}`);
    const faces = Array.from({ length: 300 }, (_, i) => `3 ${i} ${i + 1} ${i + 2}`);
    const cases: [string, string, RegExp][] = [
      [['OFF', '400 300 0', ...vertices.slice(0, 250), '1 2 x', ...vertices.slice(251), ...faces].join('\n'), 'off', /:253: expected a number/],
      [['OFF', '400 300 0', ...vertices, ...faces.slice(0, 200), '3 0 1 400', ...faces.slice(201)].join('\n'), 'off', /:603: /],
      [['OFF', '400 300 0', ...vertices, ...faces.slice(0, 290)].join('\n'), 'off', /file ends after 290 of 300 faces/],
      [[...vertices.slice(0, 200).map((v) => `v ${v}`), 'f 1 2 401', ...vertices.slice(200).map((v) => `v ${v}`), 'f 1 2 402'].join('\n'), 'obj', /:201: face uses vertex 401, but the file has only 400 vertices/],
      [[...vertices.slice(0, 333).map((v) => `v ${v}`), 'v 1 2', ...vertices.slice(334).map((v) => `v ${v}`)].join('\n'), 'obj', /:334: vertex 334 needs 3 coordinates/],
    ];
    for (const [text, extension, expected] of cases) {
      const path = write(text, extension);
      assert.match(errorOf(() => readGeometry(path)), expected);
      assert.equal(compare(path), false, path);
    }
  });

  it('a binary STL with a non-finite coordinate deep in the file: the same byte offset', () => {
    const count = 500;
    const bytes = Buffer.alloc(84 + 50 * count);
    bytes.writeUInt32LE(count, 80);
    for (let t = 0; t < count; t++) {
      for (let k = 0; k < 9; k++) bytes.writeFloatLE(t + k * 0.25, 84 + 50 * t + 12 + 4 * k);
    }
    assert.ok(compare(write(bytes, 'stl')));
    bytes.writeFloatLE(NaN, 84 + 50 * 377 + 12 + 4 * 5);
    const path = write(bytes, 'stl');
    assert.match(errorOf(() => readGeometry(path)), new RegExp(`\\(byte ${84 + 50 * 377 + 32}\\)`));
    assert.equal(compare(path), false);
  });
});

describe('LinePieces', () => {
  it('refuses a line longer than its limit, naming the byte where the line starts', () => {
    const path = write(`OFF\n3 1 0\n${'1'.repeat(5000)} 0 0\n`, 'off');
    const fd = openSync(path, 'r');
    try {
      const pieces = new LinePieces(fd, path, statSync(path).size, 0, 64, 4096);
      assert.equal(Buffer.from(pieces.next()!).toString('latin1'), 'OFF\n3 1 0\n');
      assert.throws(() => pieces.next(), /\(byte 10\): a line longer than 4096 bytes starts here/);
    } finally {
      closeSync(fd);
    }
  });
});
