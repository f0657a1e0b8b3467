// The E57 reader: multi-scan files with poses, cartesian and spherical coordinates in every field type
// (ScaledInteger and Integer of odd widths that straddle packets, Float single and double), fields and
// packets it must step over, invalid points, --scan, and every damaged or lying file refused with its byte.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { UsageError } from '../src/core/errors.js';
import { crc32c } from '../src/io/e57-crc.js';
import { readGeometry } from '../src/io/read.js';
import { hasStackTrace, runXhd, scratchDir } from './cli-run.js';
import { e57File, fixPageCrc, PAGE, type E57FieldSpec, type E57ScanSpec } from './helpers/e57-writer.js';
import { seededInts } from './random-points.js';
import { errorOf } from './reader-test-tools.js';

const dir = scratchDir();
let serial = 0;
function write(bytes: Uint8Array, ext = 'e57'): string {
  const path = join(dir, `f${serial++}.${ext}`);
  writeFileSync(path, bytes);
  return path;
}


/** A UTM-sized cartesian scan in 0.1 mm ScaledIntegers of odd widths (values straddle bytes and packets). */
function utmScan(count: number, seed: number, extra: Partial<E57ScanSpec> = {}): { spec: E57ScanSpec; raw: number[][] } {
  const rx = seededInts(count, 1_000_000, seed).map((v) => 5_000_000_000 + v); // x from 500000 m, 0.1 mm steps
  const ry = seededInts(count, 3_000_000, seed + 1).map((v) => 42_000_000_000 + v);
  const rz = seededInts(count, 70_000, seed + 2).map((v) => 1_000 + v);
  const spec: E57ScanSpec = {
    fields: [
      { name: 'cartesianX', kind: 'scaled', minimum: 5_000_000_000n, maximum: 5_001_000_000n, scale: 0.0001, offset: 0, values: rx },
      { name: 'intensity', kind: 'integer', minimum: 0n, maximum: 2047n, values: seededInts(count, 2048, seed + 3) },
      { name: 'cartesianY', kind: 'scaled', minimum: 42_000_000_000n, maximum: 42_003_000_000n, scale: 0.0001, values: ry },
      { name: 'cartesianZ', kind: 'scaled', minimum: 0n, maximum: 99_999n, scale: 0.0001, offset: 12.5, values: rz },
      { name: 'colorRed', kind: 'integer', minimum: 0n, maximum: 255n, values: seededInts(count, 256, seed + 4) },
    ],
    packetRecords: 333,
    ...extra,
  };
  return { spec, raw: [rx, ry, rz] };
}

/** What the reader must give for raw ScaledInteger values: raw * scale + offset, in double, two operations. */
function scaled(raw: number, scale: number, offset: number): number {
  return raw * scale + offset;
}

describe('E57 layout', () => {
  it('CRC-32C is the Castagnoli CRC (the standard check value of "123456789")', () => {
    assert.equal(crc32c(new TextEncoder().encode('123456789')), 0xe3069283);
    const bytes = Uint8Array.from(seededInts(1100, 256, 99));
    // Any start and end, aligned (the word loop) or not (the byte loop), against a bit-at-a-time CRC.
    for (const [start, end] of [[0, 1100], [4, 1024], [3, 997], [8, 9], [5, 5]]) {
      let bitwise = 0xffffffff;
      for (const b of bytes.subarray(start, end)) {
        bitwise ^= b;
        for (let k = 0; k < 8; k++) bitwise = bitwise & 1 ? (bitwise >>> 1) ^ 0x82f63b78 : bitwise >>> 1;
      }
      assert.equal(crc32c(bytes, start, end), (bitwise ^ 0xffffffff) >>> 0, `${start}..${end}`);
    }
  });
});

describe('E57 scans', () => {
  it('ScaledInteger UTM coordinates of odd widths, exactly, with fields between them stepped over', () => {
    const { spec, raw } = utmScan(2500, 7);
    const g = readGeometry(write(e57File([spec]).bytes));
    assert.equal(g.format, 'e57');
    assert.ok(g.positions instanceof Float64Array);
    assert.equal(g.count, 2500);
    for (let i = 0; i < 2500; i++) {
      assert.equal(g.positions[3 * i], scaled(raw[0][i], 0.0001, 0));
      assert.equal(g.positions[3 * i + 1], scaled(raw[1][i], 0.0001, 0));
      assert.equal(g.positions[3 * i + 2], scaled(raw[2][i], 0.0001, 12.5));
    }
    assert.equal(g.e57?.scans[0].points, 2500);
  });

  it('several scans in file order, each moved by its pose (translation exact; a half turn exact; any rotation rigid)', () => {
    const a = utmScan(400, 11, { name: 'north', guid: '{11111111-0000-0000-0000-000000000001}', pose: { rotation: [1, 0, 0, 0], translation: [0.25, -1.5, 100] } });
    const b = utmScan(300, 12, { name: 'south', pose: { rotation: [0, 0, 0, 1], translation: [1_000_000, 8_400_000, 0] } }); // half turn about z
    const angle = 0.3, axis = [1 / Math.sqrt(3), 1 / Math.sqrt(3), 1 / Math.sqrt(3)];
    const q: [number, number, number, number] = [Math.cos(angle / 2), ...axis.map((v) => v * Math.sin(angle / 2))] as [number, number, number, number];
    const local = Array.from({ length: 50 }, (_, i) => [i * 0.5 - 10, 3 - i * 0.125, (i % 5) * 2.25]);
    const c: E57ScanSpec = {
      pose: { rotation: q, translation: [10, 20, 30] },
      fields: ['cartesianX', 'cartesianY', 'cartesianZ'].map((name, k) => ({ name, kind: 'float64', values: local.map((p) => p[k]) }) as E57FieldSpec),
    };
    const g = readGeometry(write(e57File([a.spec, b.spec, c]).bytes));
    assert.equal(g.count, 750);
    assert.ok(g.notes.some((n) => /3 scans read, each placed by its pose/.test(n)), g.notes.join('; '));
    for (let i = 0; i < 400; i++) {
      assert.equal(g.positions[3 * i], scaled(a.raw[0][i], 0.0001, 0) + 0.25);
      assert.equal(g.positions[3 * i + 1], scaled(a.raw[1][i], 0.0001, 0) + -1.5);
      assert.equal(g.positions[3 * i + 2], scaled(a.raw[2][i], 0.0001, 12.5) + 100);
    }
    for (let i = 0; i < 300; i++) {
      const p = 400 + i;
      assert.equal(g.positions[3 * p], -scaled(b.raw[0][i], 0.0001, 0) + 1_000_000);
      assert.equal(g.positions[3 * p + 1], -scaled(b.raw[1][i], 0.0001, 0) + 8_400_000);
      assert.equal(g.positions[3 * p + 2], scaled(b.raw[2][i], 0.0001, 12.5));
    }
    // The third by the quaternion sandwich q p q* (another route than the reader's matrix).
    const [w, x, y, z] = q;
    for (let i = 0; i < 50; i++) {
      const [px, py, pz] = local[i];
      const tw = -x * px - y * py - z * pz, tx = w * px + y * pz - z * py, ty = w * py + z * px - x * pz, tz = w * pz + x * py - y * px;
      const expected = [-tw * x + tx * w - ty * z + tz * y + 10, -tw * y + ty * w - tz * x + tx * z + 20, -tw * z + tz * w - tx * y + ty * x + 30];
      for (let k = 0; k < 3; k++) assert.ok(Math.abs(g.positions[3 * (700 + i) + k] - expected[k]) < 1e-12, `point ${i} axis ${k}`);
    }
    const e = g.e57!;
    assert.deepEqual(e.scans.map((s) => [s.index, s.name, s.records, s.points]), [[0, 'north', 400, 400], [1, 'south', 300, 300], [2, undefined, 50, 50]]);
    assert.equal(e.scans[0].guid, '{11111111-0000-0000-0000-000000000001}');
    assert.deepEqual(e.scans[1].pose?.translation, [1_000_000, 8_400_000, 0]);
  });

  it('spherical coordinates (Float single and double) become cartesian, then the pose', () => {
    const n = 90;
    const range = Array.from({ length: n }, (_, i) => 2 + i * 0.75), az = Array.from({ length: n }, (_, i) => -3 + i * 0.07), el = Array.from({ length: n }, (_, i) => -1.2 + i * 0.025);
    const spec: E57ScanSpec = {
      pose: { rotation: [1, 0, 0, 0], translation: [500000, 4200000, 50] },
      fields: [
        { name: 'sphericalRange', kind: 'float64', values: range },
        { name: 'sphericalAzimuth', kind: 'float32', values: az },
        { name: 'sphericalElevation', kind: 'float64', values: el },
      ],
    };
    const g = readGeometry(write(e57File([spec]).bytes));
    assert.equal(g.count, n);
    assert.equal(g.e57?.scans[0].coordinates, 'spherical');
    for (let i = 0; i < n; i++) {
      const a = Math.fround(az[i]), r = range[i], e = el[i];
      assert.equal(g.positions[3 * i], r * Math.cos(e) * Math.cos(a) + 500000);
      assert.equal(g.positions[3 * i + 1], r * Math.cos(e) * Math.sin(a) + 4200000);
      assert.equal(g.positions[3 * i + 2], r * Math.sin(e) + 50);
    }
  });

  it('invalid points are skipped and counted; index and empty packets, skewed bytestreams and 64-bit integers read', () => {
    const n = 1200;
    const state = seededInts(n, 3, 5); // 0 valid, 1 direction only, 2 invalid
    const xs = seededInts(n, 1 << 20, 8).map((v) => v - 500_000);
    const spec: E57ScanSpec = {
      extraPackets: true,
      skewed: true,
      packetRecords: 250,
      fields: [
        { name: 'cartesianX', kind: 'integer', values: xs }, // the default int64 range: 64-bit values
        { name: 'cartesianY', kind: 'integer', minimum: -3n, maximum: 4n, values: seededInts(n, 8, 9).map((v) => v - 3) }, // 3 bits
        { name: 'cartesianZ', kind: 'integer', minimum: 7n, maximum: 7n, values: Array(n).fill(7) }, // 0 bits: a constant
        { name: 'cartesianInvalidState', kind: 'integer', minimum: 0n, maximum: 2n, values: state },
      ],
    };
    const g = readGeometry(write(e57File([spec]).bytes));
    const valid = state.map((s, i) => [s, i]).filter(([s]) => s === 0).map(([, i]) => i);
    assert.equal(g.count, valid.length);
    assert.ok(valid.length > 300 && valid.length < 900);
    const ys = (spec.fields[1].values as number[]);
    valid.forEach((i, k) => assert.deepEqual(Array.from(g.positions.subarray(3 * k, 3 * k + 3)), [xs[i], ys[i], 7]));
    assert.ok(g.notes.some((note) => note.includes(`${(n - valid.length).toLocaleString('en-US')} records marked invalid`)), g.notes.join('; '));
    assert.equal(g.e57?.scans[0].invalid, n - valid.length);
  });

  it('integers of 29, 32 and 40 bits (values read from a fifth byte, and in two halves), with negative minimums', () => {
    const n = 700;
    const wide = seededInts(n, 1 << 20, 71).map((hi, i) => hi * 2 ** 20 + seededInts(n, 1 << 20, 72)[i]); // up to 2^40
    const spec: E57ScanSpec = {
      packetRecords: 97,
      fields: [
        { name: 'cartesianX', kind: 'scaled', minimum: -(2n ** 28n), maximum: 2n ** 28n - 1n, scale: 0.001, offset: 500000, values: seededInts(n, 2 ** 29, 73).map((v) => v - 2 ** 28) },
        { name: 'cartesianY', kind: 'integer', minimum: -5n, maximum: 2n ** 40n - 6n, values: wide.map((v) => v - 5) },
        { name: 'cartesianZ', kind: 'scaled', minimum: 0n, maximum: 2n ** 32n - 1n, scale: 0.5, offset: -1, values: seededInts(n, 2 ** 32 - 1, 74) },
      ],
    };
    const g = readGeometry(write(e57File([spec]).bytes));
    assert.equal(g.count, n);
    const [xs, ys, zs] = spec.fields.map((f) => f.values as number[]);
    for (let i = 0; i < n; i++) {
      assert.deepEqual(Array.from(g.positions.subarray(3 * i, 3 * i + 3)), [scaled(xs[i], 0.001, 500000), ys[i], scaled(zs[i], 0.5, -1)], `point ${i}`);
    }
  });

  it('a NaN or a coordinate beyond ±1e15 is an error naming its packet and point', () => {
    const values = [[1, 2, NaN, 4], [0, 0, 0, 0], [0, 0, 0, 0]];
    const spec: E57ScanSpec = { fields: ['cartesianX', 'cartesianY', 'cartesianZ'].map((name, k) => ({ name, kind: 'float64', values: values[k] }) as E57FieldSpec) };
    const f = e57File([spec]);
    assert.match(errorOf(() => readGeometry(write(f.bytes))), new RegExp(` \\(byte ${f.scans[0].packets[0]}\\): non-finite coordinate \\(NaN\\) in vertex 2`));
    const far = e57File([{ ...spec, pose: { rotation: [1, 0, 0, 0], translation: [0, 0, 2e15] }, fields: spec.fields.map((fl) => ({ ...fl, values: [1, 2, 3, 4] })) }]);
    assert.match(errorOf(() => readGeometry(write(far.bytes))), /coordinate 200000000000000\d of vertex 0 is beyond ±1e15/);
  });

  it('a file larger than one run of pages is read in runs, the same points', () => {
    const n = 60_000; // 1.4 MB of float64 coordinates: over the 1 MiB run
    const values = [0, 1, 2].map((k) => Array.from({ length: n }, (_, i) => 400000 + k * 1e6 + i * 0.001));
    const spec: E57ScanSpec = { packetRecords: 2000, fields: ['cartesianX', 'cartesianY', 'cartesianZ'].map((name, k) => ({ name, kind: 'float64', values: values[k] }) as E57FieldSpec) };
    const g = readGeometry(write(e57File([spec]).bytes));
    assert.equal(g.count, n);
    for (let i = 0; i < n; i += 997) assert.deepEqual(Array.from(g.positions.subarray(3 * i, 3 * i + 3)), [values[0][i], values[1][i], values[2][i]]);
    assert.deepEqual(g.bounds, { min: [values[0][0], values[1][0], values[2][0]], max: [values[0][n - 1], values[1][n - 1], values[2][n - 1]] });
  });

  it('--scan picks one scan (numbered from 0); out of range is a usage error naming the range', () => {
    const a = utmScan(100, 21), b = utmScan(80, 22);
    const path = write(e57File([a.spec, b.spec]).bytes);
    const g = readGeometry(path, { filters: { scan: 1 } });
    assert.equal(g.count, 80);
    assert.equal(g.positions[0], scaled(b.raw[0][0], 0.0001, 0));
    assert.equal(g.e57?.scans[0].points, null);
    assert.ok(g.notes.some((n) => /scan 1 of 2/.test(n)));
    assert.throws(() => readGeometry(path, { filters: { scan: 2 } }), (e: unknown) => e instanceof UsageError && /--scan 2: .* has 2 scans, numbered from 0 to 1/.test(e.message));
  });

  it('found by its signature under another name; filters --bbox and --every apply; --classes is refused', () => {
    const a = utmScan(500, 31);
    const path = write(e57File([a.spec]).bytes, 'bin');
    assert.equal(readGeometry(path).format, 'e57');
    assert.equal(readGeometry(path, { filters: { every: 10 } }).count, 50);
    const x0 = scaled(a.raw[0][0], 0.0001, 0);
    const boxed = readGeometry(path, { filters: { bbox: { min: [x0, -Infinity, -Infinity], max: [x0, Infinity, Infinity] } } });
    assert.ok(boxed.count >= 1 && Array.from({ length: boxed.count }, (_, i) => boxed.positions[3 * i]).every((x) => x === x0));
    assert.throws(() => readGeometry(path, { filters: { classes: [2] } }), /--classes needs LAS classification/);
  });
});

describe('E57 files damaged or lying: exit 2 naming the file and the byte', () => {
  const good = () => e57File([utmScan(3000, 41).spec, utmScan(200, 42, { name: 'second' }).spec]);

  it('a file that does not start with the signature', () => {
    const f = good();
    f.bytes[0] = 0x61;
    fixPageCrc(f.bytes, 0);
    assert.match(errorOf(() => readGeometry(write(f.bytes))), / \(byte 0\): not an E57 file: it does not start with 'ASTM-E57'/);
  });

  it('a bad CRC, in the header page and in a data page', () => {
    const f = good();
    f.bytes[20] ^= 1;
    assert.match(errorOf(() => readGeometry(write(f.bytes))), / \(byte 0\): page 0 \(bytes 0 to 1023\) fails its CRC-32C check/);
    const g = good();
    const at = g.scans[0].packets[3] + 10;
    g.bytes[at] ^= 0x40;
    const page = Math.floor(at / PAGE);
    assert.match(errorOf(() => readGeometry(write(g.bytes))), new RegExp(` \\(byte ${page * PAGE}\\): page ${page} \\(bytes ${page * PAGE} to ${page * PAGE + 1023}\\) fails its CRC-32C check`));
  });

  it('truncated: pages cut off, or a length that is not whole pages', () => {
    const f = good();
    const cut = f.bytes.subarray(0, f.bytes.length - PAGE);
    assert.match(errorOf(() => readGeometry(write(cut))), new RegExp(` \\(byte ${cut.length}\\): file is truncated: the header gives the file's length as ${f.bytes.length}`));
    assert.match(errorOf(() => readGeometry(write(f.bytes.subarray(0, 700)))), / \(byte 700\): file is truncated/);
  });

  it('XML offset or length outside the file', () => {
    const f = good();
    const view = new DataView(f.bytes.buffer);
    view.setBigUint64(24, BigInt(f.bytes.length + 4096), true);
    fixPageCrc(f.bytes, 0);
    assert.match(errorOf(() => readGeometry(write(f.bytes))), / \(byte 24\): XML offset \d+ lies past the file's end/);
    const g = good();
    new DataView(g.bytes.buffer).setBigUint64(32, BigInt(g.bytes.length), true);
    fixPageCrc(g.bytes, 0);
    assert.match(errorOf(() => readGeometry(write(g.bytes))), / \(byte 32\): XML length \d+ from byte \d+ runs past the file's end/);
    const h = good();
    new DataView(h.bytes.buffer).setBigUint64(24, BigInt(1022), true); // inside page 0's checksum
    fixPageCrc(h.bytes, 0);
    assert.match(errorOf(() => readGeometry(write(h.bytes))), / \(byte 24\): XML offset 1022 lies inside a page's checksum/);
  });

  it('XML that is not XML, or not E57, names the line in the XML section', () => {
    const f = e57File([utmScan(10, 1).spec], { xml: (x) => x.replace('</data3D>', '</datum>') });
    assert.match(errorOf(() => readGeometry(write(f.bytes))), new RegExp(` \\(byte ${f.xmlPhysical}\\): XML section, line \\d+: closing tag </datum> does not close <data3D>`));
    const r = e57File([utmScan(10, 1).spec], { xml: (x) => x.replace('<formatName type="String">', '<formatName type="String">&#99999999;') });
    assert.match(errorOf(() => readGeometry(write(r.bytes))), /XML section, line \d+: character reference &#99999999; is not a Unicode character/);
    const deep = e57File([utmScan(10, 1).spec], { xml: (x) => x.replace('<prototype type="Structure">', `<prototype type="Structure">${'<s type="Structure">'.repeat(40)}${'</s>'.repeat(40)}`) });
    assert.match(errorOf(() => readGeometry(write(deep.bytes))), /XML section, line \d+: prototype structures nest more than 32 deep/);
    const g = e57File([utmScan(10, 1).spec], { xml: (x) => x.replace('name="cartesianZ"', '').replace(/<cartesianZ [^>]*\/>/, '') });
    assert.match(errorOf(() => readGeometry(write(g.bytes))), /XML section, line \d+: scan 0's prototype has neither cartesianX\/Y\/Z nor sphericalRange/);
  });

  it("a points fileOffset outside the file, or a section that runs past it", () => {
    const f = e57File([utmScan(10, 1).spec], { xml: (x) => x.replace(/fileOffset="\d+"/, 'fileOffset="99999999"') });
    assert.match(errorOf(() => readGeometry(write(f.bytes))), /scan 0's points \(fileOffset 99999999, XML line \d+\): the offset lies past the file's end/);
    const g = good();
    const at = g.scans[1].sectionPhysical + 8;
    new DataView(g.bytes.buffer).setBigUint64(at, 1n << 40n, true);
    fixPageCrc(g.bytes, at);
    assert.match(errorOf(() => readGeometry(write(g.bytes))), new RegExp(` \\(byte ${at}\\): scan 1's points .*section length ${2 ** 40} runs past the file's end`));
  });

  it('a recordCount beyond what the section holds is refused before any allocation', () => {
    const { spec } = utmScan(100, 3, { recordCount: 4e15 });
    const f = e57File([spec]);
    assert.match(errorOf(() => readGeometry(write(f.bytes))), new RegExp(` \\(byte ${f.scans[0].sectionPhysical + 8}\\): scan 0's points .*recordCount 4000000000000000 of \\d+ bits each needs`));
  });

  it('packets that end before the recordCount, or run past their section', () => {
    const { spec } = utmScan(1000, 3, { recordCount: 1003 }); // within the section's capacity (headers, padding): the data runs out
    const f = e57File([spec]);
    assert.match(errorOf(() => readGeometry(write(f.bytes))), /file is truncated: scan 0's points end after 1,?000 of the 1003 records/);
    const g = good();
    const at = g.scans[0].packets[2];
    new DataView(g.bytes.buffer).setUint16(at + 2, 65535, true);
    fixPageCrc(g.bytes, at + 2);
    fixPageCrc(g.bytes, at + 3);
    assert.match(errorOf(() => readGeometry(write(g.bytes))), new RegExp(` \\(byte ${at}\\): scan 0's points: a packet of 65536 bytes runs past the end of its section`));
    const h = good();
    const p = h.scans[0].packets[1];
    new DataView(h.bytes.buffer).setUint16(p + 4, 4, true);
    fixPageCrc(h.bytes, p + 4);
    fixPageCrc(h.bytes, p + 5);
    assert.match(errorOf(() => readGeometry(write(h.bytes))), /scan 0's points: a data packet has 4 bytestreams, the prototype 5 fields/);
    const k = good();
    const q = k.scans[0].packets[1];
    new DataView(k.bytes.buffer).setUint16(q + 6, 60000, true);
    fixPageCrc(k.bytes, q + 6);
    fixPageCrc(k.bytes, q + 7);
    assert.match(errorOf(() => readGeometry(write(k.bytes))), /scan 0's points: bytestream 0 \(cartesianX\) of 60000 bytes runs past its \d+-byte packet/);
  });

  it('through the CLI: one line, exit 2, no stack trace', () => {
    const f = good();
    f.bytes[5000] ^= 1;
    const path = write(f.bytes);
    const r = runXhd(['info', path]);
    assert.equal(r.code, 2);
    assert.match(r.stderr.trim(), new RegExp(`^xhd: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(byte 4096\\): page 4 .*fails its CRC-32C check`));
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.ok(!hasStackTrace(r.stderr));
  });
});

describe('xhd info and compare on E57', () => {
  it('info lists every scan with its GUID, name, records, pose and bounds; --json too', () => {
    const a = utmScan(120, 51, { name: 'station 1', guid: '{AAAA}', pose: { rotation: [1, 0, 0, 0], translation: [1, 2, 3] } });
    const b = utmScan(60, 52, { name: 'station 2' });
    const path = write(e57File([a.spec, b.spec], { guid: '{FILE-GUID}' }).bytes);
    const text = runXhd(['info', path]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /format\s+E57/);
    assert.match(text.stdout, /points\s+180/);
    assert.match(text.stdout, /E57\s+version 1\.0 · 2 scans · GUID \{FILE-GUID\}/);
    assert.match(text.stdout, /scan 0\s+"station 1" · GUID \{AAAA\} · 120 records, cartesian/);
    assert.match(text.stdout, /pose rotation \(w x y z\) 1 0 0 0 · translation 1 2 3/);
    assert.match(text.stdout, /scan 1\s+"station 2" · 60 records, cartesian, no pose/);
    const json = runXhd(['info', path, '--json', '--scan', '1']);
    assert.equal(json.code, 0, json.stderr);
    const info = JSON.parse(json.stdout);
    assert.equal(info.points, 60);
    assert.equal(info.e57.selected_scan, 1);
    assert.equal(info.e57.scans[0].points, null);
    assert.equal(info.e57.scans[1].points, 60);
    assert.deepEqual(info.e57.scans[1].bounds.min, info.bounds.min);
    const out = runXhd(['info', path, '--scan', '5']);
    assert.equal(out.code, 2);
    assert.match(out.stderr, /--scan 5: .* has 2 scans, numbered from 0 to 1/);
  });

  it('compare an E57 scan against the same points as XYZ: distance 0; --scan on the XYZ is noted as ignored', () => {
    const a = utmScan(200, 61);
    const path = write(e57File([a.spec]).bytes);
    const xyz = join(dir, 'same.xyz');
    writeFileSync(xyz, a.raw[0].map((_, i) => `${scaled(a.raw[0][i], 0.0001, 0)} ${scaled(a.raw[1][i], 0.0001, 0)} ${scaled(a.raw[2][i], 0.0001, 12.5)}`).join('\n') + '\n');
    const r = runXhd(['compare', path, xyz, '--backend', 'cpu', '--json', '--scan', '0']);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.equal(json.hd, 0);
    assert.equal(json.a.format, 'e57');
    assert.ok(json.notes.some((n: string) => /B: --scan applies to E57 files; this is XYZ, so ignored/.test(n)), json.notes.join('; '));
  });
});
