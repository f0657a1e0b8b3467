// Every class of bad input gives an InputError with a one-line message naming the file and the place.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseGeometry, readGeometry } from '../src/io/read.js';
import { fixture } from './helpers.js';
import { assertInputError } from './io-expect.js';

const cases: [file: string, message: RegExp][] = [
  // non-finite coordinates and magnitudes beyond ±1e15
  ['bad-nan.off', /bad-nan\.off:4: non-finite coordinate \(NaN\) in vertex 1$/],
  ['bad-inf.off', /bad-inf\.off:5: non-finite coordinate \(-Infinity\) in vertex 2$/],
  ['bad-float32-range.off', /:5: coordinate 1e\+39 of vertex 2 is beyond ±1e15 \(too large for exact distances\)$/],
  ['bad-nan-ascii.ply', /bad-nan-ascii\.ply:9: non-finite coordinate \(NaN\) in vertex 1$/],
  ['bad-nan-binary.ply', /bad-nan-binary\.ply \(byte 181\): non-finite coordinate \(NaN\) in vertex 1$/],
  ['bad-inf-double.ply', /bad-inf-double\.ply \(byte 142\): non-finite coordinate \(-Infinity\) in vertex 1$/],
  ['bad-nan.xyz', /bad-nan\.xyz:2: non-finite coordinate \(NaN\)/],
  ['bad-inf.xyz', /bad-inf\.xyz:2: non-finite coordinate \(Infinity\)/],
  ['bad-nan.stl', /bad-nan\.stl \(byte 124\): non-finite coordinate \(Infinity\)/],
  ['bad-nan-ascii.stl', /bad-nan-ascii\.stl:6: non-finite coordinate \(-Infinity\)/],
  ['bad-nan.obj', /bad-nan\.obj:2: non-finite coordinate \(NaN\)/],
  // truncated files
  ['bad-truncated.off', /bad-truncated\.off:8: file ends after 1 of 2 faces$/],
  ['bad-truncated-ascii.ply', /bad-truncated-ascii\.ply:10: file ends after 2 of 3 vertex records$/],
  ['bad-truncated-binary.ply', /bad-truncated-binary\.ply \(byte 263\): file is truncated: data ran out in face record 3 of 4$/],
  ['bad-truncated.stl', /bad-truncated\.stl \(byte 264\): truncated binary STL: 4 triangles need 284 bytes, the file has 264$/],
  ['bad-truncated-ascii.stl', /bad-truncated-ascii\.stl:17: file ends early: expected 'outer'$/],
  ['bad-short.stl', /bad-short\.stl \(byte 8\): too short for a binary STL/],
  ['bad-no-end-header.ply', /bad-no-end-header\.ply:5: PLY header has no end_header line$/],
  // header counts that lie are refused before any allocation
  ['bad-count-lies.ply', /bad-count-lies\.ply \(byte 139\): element 'vertex' declares 1000000000000 records/],
  ['bad-count-lies-ascii.ply', /bad-count-lies-ascii\.ply:3: element 'vertex' declares 1000000000000 records/],
  ['bad-count-lies.off', /bad-count-lies\.off:2: header declares 1000000000000 vertices and 2 faces, but only 26 bytes follow$/],
  // face indices out of range, faces with fewer than 3 vertices
  ['bad-index.off', /bad-index\.off:6: face 0 uses vertex index 3, outside 0\.\.2$/],
  ['bad-index-ascii.ply', /bad-index-ascii\.ply:13: face 0 uses vertex index -1, outside 0\.\.2$/],
  ['bad-index-binary.ply', /bad-index-binary\.ply \(byte 226\): face 0 uses vertex index 4, outside 0\.\.3$/],
  ['bad-index.obj', /bad-index\.obj:4: face uses vertex 4, but the file has only 3 vertices$/],
  ['bad-relative-index.obj', /bad-relative-index\.obj:4: face uses relative vertex -4/],
  ['bad-zero-index.obj', /bad-zero-index\.obj:4: face uses vertex index 0/],
  ['bad-face-2.off', /bad-face-2\.off:7: face 1 has 2 vertices \(need at least 3\)$/],
  ['bad-face-2-ascii.ply', /bad-face-2-ascii\.ply:13: face 0 has 2 vertices/],
  ['bad-face-2-binary.ply', /bad-face-2-binary\.ply \(byte 230\): face 1 has 2 vertices/],
  ['bad-face-2.obj', /bad-face-2\.obj:4: face has 2 vertices/],
  // unsupported PLY format or type
  ['bad-format.ply', /bad-format\.ply:2: unsupported PLY format 'binary_middle_endian'$/],
  ['bad-type.ply', /bad-type\.ply:4: unsupported PLY property type 'float128'$/],
  ['bad-ndim.off', /bad-ndim\.off:2: nOFF dimension 4 is not supported/],
  // non-numeric tokens and ragged rows
  ['bad-token.off', /bad-token\.off:4: expected a number, found '0x1'$/],
  ['bad-token.xyz', /bad-token\.xyz:2: expected a number, found 'five'$/],
  ['bad-keyword.stl', /bad-keyword\.stl:7: expected 'endloop', found 'endlop'$/],
  ['bad-missing-values.ply', /bad-missing-values\.ply:10: vertex record has fewer values than its 4 properties$/],
  ['bad-extra-values.ply', /bad-extra-values\.ply:7: vertex record has more values than the header declares$/],
  ['bad-ragged.csv', /bad-ragged\.csv:3: row has 2 fields, expected 3$/],
  ['bad-ragged-long.xyz', /bad-ragged-long\.xyz:3: row has more than 3 fields, expected 3$/],
  ['bad-empty-field.csv', /bad-empty-field\.csv:3: empty field in column 1$/],
  ['bad-trailing-comma.csv', /bad-trailing-comma\.csv:2: row has 4 fields but the header names 3$/],
  ['bad-semicolon.xyz', /bad-semicolon\.xyz:1: need at least 2 columns, found 1$/],
  ['bad-one-column.xyz', /bad-one-column\.xyz:2: need at least 2 columns, found 1$/],
  ['bad-short-vertex.obj', /bad-short-vertex\.obj:1: vertex 1 needs 3 coordinates$/],
  ['unknown.dat', /unknown\.dat: unrecognised file format/],
];

for (const [file, message] of cases) {
  test(`bad input: ${file}`, () => assertInputError(() => readGeometry(fixture(file)), message));
}

test('content sniffing when the extension says nothing', () => {
  assert.equal(readGeometry(fixture('sniff-mesh.dat')).format, 'off');
  const points = readGeometry(fixture('sniff-points.dat'));
  assert.equal(points.format, 'xyz');
  assert.equal(points.count, 2);
  const bytes = new TextEncoder().encode('ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n3 4\n');
  const ply = parseGeometry(bytes, '<stdin>');
  assert.equal(ply.format, 'ply');
  assert.deepEqual(Array.from(ply.positions), [3, 4, 0]);
  assert.equal(parseGeometry(new TextEncoder().encode('v 1 2 3\nv 4 5 6\nf 1 2 1\n'), '<stdin>').format, 'obj');
  assert.equal(parseGeometry(new TextEncoder().encode('x,y\n1,2\n'), '<stdin>').format, 'csv');
});

test('options.format overrides the extension', () => {
  const g = readGeometry(fixture('sniff-points.dat'), { format: 'csv' });
  assert.equal(g.format, 'csv');
  assertInputError(() => readGeometry(fixture('cube.off'), { format: 'ply' }), /cube\.off:1: not a PLY file/);
});

test('missing files, directories and huge text without lines are refused', () => {
  assertInputError(() => readGeometry(fixture('no-such-file.off')), /no-such-file\.off: no such file$/);
  assertInputError(() => readGeometry(fixture('')), /: is a directory, expected a geometry file$/);
  const dir = mkdtempSync(join(tmpdir(), 'xhd-io-'));
  try {
    const huge = join(dir, 'huge.xyz');
    writeFileSync(huge, '');
    truncateSync(huge, 4 * 1024 ** 3 + 1); // sparse: nothing is written or read
    // Too large to read whole: read in pieces, whose layout analysis finds no line in the first 16 MiB.
    assertInputError(() => readGeometry(huge), /huge\.xyz: no line end in the first 16 MiB: not a CSV \/ XYZ file$/);
    const hugeObj = join(dir, 'huge.obj');
    writeFileSync(hugeObj, '');
    truncateSync(hugeObj, 4 * 1024 ** 3 + 1);
    // Read in pieces too, whose window grows for a long line only up to its limit.
    assertInputError(() => readGeometry(hugeObj), /huge\.obj \(byte 0\): a line longer than 256 MiB starts here: not a text geometry file$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
