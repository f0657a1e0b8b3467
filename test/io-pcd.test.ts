// The PCD reader: ascii, binary and binary_compressed bodies with x, y, z among other fields, of every type,
// organized clouds with NaN points, float32 kept as float32, and every lying header refused with its line or byte.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { lzfDecompress } from '../src/io/lzf.js';
import { readGeometry } from '../src/io/read.js';
import { scratchDir } from './cli-run.js';
import { lzfCompress, pcdBytes, XYZ_F4, type PcdFieldSpec, type PcdWriteOptions } from './pcd-writer.js';
import { errorOf } from './reader-test-tools.js';

const dir = scratchDir();
let serial = 0;
function write(points: number[][], options: PcdWriteOptions, ext = 'pcd'): string {
  const path = join(dir, `p${serial++}.${ext}`);
  writeFileSync(path, pcdBytes(points, options));
  return path;
}

const survey = (n: number) => Array.from({ length: n }, (_, i) => [500000.125 + i * 0.5, 4200000.25 - i * 0.25, 100 + (i % 9) * 0.125]);
const small = (n: number) => Array.from({ length: n }, (_, i) => [i * 0.5 - 3, (i % 7) * 0.25, 0 - (i % 5) * 2]); // 0 - x: no -0, which text cannot tell from 0
const DATA = ['ascii', 'binary', 'binary_compressed'] as const;

describe('PCD bodies', () => {
  for (const data of DATA) {
    it(`${data}: float32 x y z with rgb between them stay float32`, () => {
      const fields: PcdFieldSpec[] = [{ name: 'x', type: 'F', size: 4 }, { name: 'rgb', type: 'U', size: 4 }, { name: 'y', type: 'F', size: 4 }, { name: 'z', type: 'F', size: 4 }];
      const points = small(300);
      const g = readGeometry(write(points, { data, fields }));
      assert.equal(g.format, 'pcd');
      assert.ok(g.positions instanceof Float32Array);
      assert.deepEqual(Array.from(g.positions), points.flat().map(Math.fround));
    });
    it(`${data}: float64 survey coordinates, array fields and integers around them, exactly`, () => {
      const fields: PcdFieldSpec[] = [{ name: 'intensity', type: 'U', size: 2 }, { name: 'x', type: 'F', size: 8 }, { name: 'y', type: 'F', size: 8 },
        { name: 'fpfh', type: 'F', size: 4, count: 33 }, { name: 'z', type: 'F', size: 8 }, { name: 'label', type: 'I', size: 8 }];
      const points = survey(200);
      const g = readGeometry(write(points, { data, fields }));
      assert.ok(g.positions instanceof Float64Array);
      assert.deepEqual(Array.from(g.positions), points.flat());
    });
    it(`${data}: integer coordinates of every size`, () => {
      for (const [type, size] of [['I', 1], ['U', 2], ['I', 4], ['U', 8]] as const) {
        const points = Array.from({ length: 50 }, (_, i) => [i, (i * 3) % 100, type === 'I' ? 0 - i : i + 1]);
        const g = readGeometry(write(points, { data, fields: ['x', 'y', 'z'].map((name) => ({ name, type, size })) }));
        assert.deepEqual(Array.from(g.positions), points.flat(), `${type}${size}`);
      }
    });
    it(`${data}: an organized cloud's NaN points are skipped and counted`, () => {
      const points = small(12).map((p, i) => (i % 4 === 1 ? [NaN, NaN, NaN] : p));
      const g = readGeometry(write(points, { data, width: 4, height: 3 }));
      assert.equal(g.count, 9);
      assert.deepEqual(Array.from(g.positions), points.filter((_, i) => i % 4 !== 1).flat().map(Math.fround));
      assert.ok(g.notes.includes('3 points with NaN coordinates skipped (organized cloud, 4 × 3)'), g.notes.join('\n'));
    });
  }
  it('x and y without z is a 2D cloud', () => {
    const g = readGeometry(write(small(5), { data: 'ascii', fields: [{ name: 'x', type: 'F', size: 4 }, { name: 'y', type: 'F', size: 4 }] }));
    assert.equal(g.dims, 2);
  });
  it('a file named otherwise is recognised by its header, binary body or not', () => {
    for (const data of DATA) assert.equal(readGeometry(write(small(20), { data }, 'cloud')).format, 'pcd');
  });
  it('LZF: compressed by the test writer (literals and back references), decompressed exactly', () => {
    const input = Uint8Array.from({ length: 20000 }, (_, i) => (i % 700 < 350 ? i % 7 : (i * 31) % 256));
    const packed = lzfCompress(input);
    assert.ok(packed.length < input.length / 2, `compressed to ${packed.length}`);
    assert.deepEqual(lzfDecompress(packed, input.length), input);
  });
});

describe('bad PCD input: one line naming the file and the line or byte', () => {
  const points = small(10);
  const cases: [string, () => string, RegExp][] = [
    ['no DATA line', () => write([], { data: 'ascii', override: { DATA: null } }), /:\d+: PCD header has no DATA line/],
    ['no DATA line, points after the header', () => write(points, { data: 'ascii', override: { DATA: null } }), /:11: unknown PCD header line '-3'/],
    ['unknown header line', () => { const p = join(dir, `bad${serial++}.pcd`); writeFileSync(p, 'VERSION 0.7\nFOO 1\nDATA ascii\n'); return p; }, /:2: unknown PCD header line 'FOO'/],
    ['SIZE entries that do not match FIELDS', () => write(points, { data: 'binary', override: { SIZE: '4 4' } }), /:4: SIZE has 2 entries for 3 FIELDS/],
    ['a float of size 2', () => write(points, { data: 'binary', override: { SIZE: '4 2 4' } }), /:4: SIZE 2 of field y \(TYPE F\) is not one of 4, 8/],
    ['POINTS not WIDTH × HEIGHT', () => write(points, { data: 'binary', override: { POINTS: '11' } }), /:10: POINTS 11 is not WIDTH × HEIGHT \(10 × 1 = 10\)/],
    ['no x field', () => write(points, { data: 'ascii', fields: [{ name: 'a', type: 'F', size: 4 }, { name: 'y', type: 'F', size: 4 }] }), /PCD has no x field/],
    ['a lying count (binary)', () => write(points, { data: 'binary', width: 1000000, override: { POINTS: '1000000' } }), /\(byte \d+\): file is truncated: 1000000 points of 12-byte records \(DATA binary\) cannot fit in the 120 bytes/],
    ['a lying count (ascii, a trillion points)', () => write(points, { data: 'ascii', width: 10 ** 12, override: { POINTS: String(10 ** 12) } }), /\(byte \d+\): file is truncated: 1000000000000 points/],
    ['a lying count (compressed)', () => write(points, { data: 'binary_compressed', width: 10 ** 9, override: { POINTS: String(10 ** 9) } }), /\(byte \d+\): file is truncated: 1000000000 points/],
    ['an ascii line with too few values', () => { const p = join(dir, `bad${serial++}.pcd`); writeFileSync(p, 'FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nDATA ascii\n1 2 3\n4     5\n'); return p; }, /:7: point 1 has 2 values, the fields declare 3/],
    ['a word that is not a number', () => { const p = join(dir, `bad${serial++}.pcd`); writeFileSync(p, 'FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 1\nDATA ascii\n1 two 3\n'); return p; }, /:6: 'two' is not a number \(field y of point 0\)/],
    ['an infinite coordinate', () => write([[1, 2, 3], [Infinity, 0, 0]], { data: 'binary' }), /non-finite coordinate \(Infinity\) in vertex 1/],
    ['compressed sizes that lie', () => {
      const bytes = pcdBytes(points, { data: 'binary_compressed' });
      const at = new TextDecoder('latin1').decode(bytes).indexOf('DATA binary_compressed\n') + 'DATA binary_compressed\n'.length;
      new DataView(bytes.buffer).setUint32(at + 4, 7, true);
      const p = join(dir, `bad${serial++}.pcd`);
      writeFileSync(p, bytes);
      return p;
    }, /\(byte \d+\): uncompressed size 7 is not 10 points of 12 bytes \(120\)/],
    ['damaged LZF data', () => {
      const bytes = pcdBytes(points, { data: 'binary_compressed' });
      const at = new TextDecoder('latin1').decode(bytes).indexOf('DATA binary_compressed\n') + 'DATA binary_compressed\n'.length;
      bytes[at + 8] = 0xff; // a back reference before the start of the data
      const p = join(dir, `bad${serial++}.pcd`);
      writeFileSync(p, bytes);
      return p;
    }, /\(byte \d+\): LZF data is damaged: a back reference at compressed byte 0 points before the start/],
  ];
  for (const [name, make, message] of cases) {
    it(name, () => {
      const path = make();
      const error = errorOf(() => readGeometry(path));
      assert.match(error, message);
      assert.ok(error.startsWith(path) && !error.includes('\n'), error);
    });
  }
  it('--classes on a PCD is refused, --bbox applies', () => {
    const path = write(small(40), { data: 'binary', fields: XYZ_F4 });
    assert.throws(() => readGeometry(path, { filters: { classes: [2] } }), /--classes needs LAS classification, and .* \(PCD\) has none/);
    assert.equal(readGeometry(path, { filters: { bbox: { min: [0, -1, -Infinity], max: [5, 5, Infinity] } } }).count, 11);
  });
});
