// compare --export FILE.las / FILE.pcd: every exported point read back with xhd's own LAS and PCD readers,
// the distance, nearest index and direction read from each record, and the LAS 1.4 extra-bytes VLR checked
// byte by byte against the specification's 192-byte descriptor.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readGeometry } from '../src/io/read.js';
import { runXhd, scratchDir } from './cli-run.js';
import { e57File } from './helpers/e57-writer.js';
import { sharedData } from './helpers.js';
import { expectedPositions, lasBytes, type LasPoint } from './las-writer.js';
import { lazFromTemplate } from './laz-writer.js';
import { lazPerfFileRecords } from './laz-decoders.js';
import { suiteUnless } from './skippable-suite.js';

const dir = scratchDir();

/** Deterministic integers in [0, n). */
function ints(count: number, n: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  return Array.from({ length: count }, () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  });
}

const scale: [number, number, number] = [0.001, 0.001, 0.01], offset: [number, number, number] = [500000, 4200000, 0];
function lasPoints(n: number, seed: number): LasPoint[] {
  const [x, y, z] = [ints(n, 200_000, seed), ints(n, 200_000, seed + 1), ints(n, 5_000, seed + 2)];
  const classes = ints(n, 19, seed + 3), returns = ints(n, 3, seed + 4);
  return x.map((X, i) => ({ X, Y: y[i], Z: z[i], classification: classes[i], returnNumber: 1 + returns[i], numberOfReturns: 3 }));
}
const pointsA = lasPoints(700, 1), pointsB = lasPoints(500, 9);
const lasA = join(dir, 'a.las'), lasB = join(dir, 'b.las');
writeFileSync(lasA, lasBytes(pointsA, { minor: 4, format: 6, scale, offset }));
writeFileSync(lasB, lasBytes(pointsB, { minor: 2, format: 1, scale, offset }));

function compare(a: string, b: string, out: string, ...extra: string[]) {
  const r = runXhd(['compare', a, b, '--export', out, '--backend', 'cpu', '--json', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** The CSV export's rows (the reference the other formats must match). */
function csvRows(path: string): { direction: number; x: number; y: number; z: number; distance: number; nearest: number }[] {
  return readFileSync(path, 'utf8').trimEnd().split('\n').slice(1).map((line) => {
    const f = line.split(',');
    return { direction: f[0] === 'ab' ? 0 : 1, x: Number(f[2]), y: Number(f[3]), z: Number(f[4]), distance: Number(f[5]), nearest: Number(f[6]) };
  });
}

/** Reads a C string field. */
function cstring(bytes: Uint8Array, at: number, length: number): string {
  const field = bytes.subarray(at, at + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end < 0 ? field : field.subarray(0, end));
}

describe('compare --export .las', () => {
  const out = join(dir, 'd.las'), csv = join(dir, 'd.csv');
  const json = compare(lasA, lasB, out);
  compare(lasA, lasB, csv);
  const rows = csvRows(csv);
  const bytes = new Uint8Array(readFileSync(out));
  const view = new DataView(bytes.buffer, bytes.byteOffset);

  it('is LAS 1.4 point format 6 with the input\'s scale and offset: every point read back exactly, A then B', () => {
    assert.equal(cstring(bytes, 0, 4), 'LASF');
    assert.deepEqual([bytes[24], bytes[25], bytes[104]], [1, 4, 6]);
    assert.equal(view.getUint16(94, true), 375);
    assert.equal(view.getUint16(105, true), 47);
    assert.equal(view.getUint32(107, true), 0); // legacy count: 0 with format 6
    assert.equal(Number(view.getBigUint64(247, true)), 1200);
    assert.deepEqual([131, 139, 147].map((at) => view.getFloat64(at, true)), scale);
    assert.deepEqual([155, 163, 171].map((at) => view.getFloat64(at, true)), offset);
    const g = readGeometry(out);
    assert.equal(g.format, 'las');
    assert.deepEqual(Array.from(g.positions), [...expectedPositions(pointsA, scale, offset), ...expectedPositions(pointsB, scale, offset)]);
    assert.deepEqual(g.bounds.min, [0, 1, 2].map((k) => view.getFloat64(187 + 16 * k, true)), 'header bounds are the points\' bounds');
    assert.deepEqual(g.bounds.max, [0, 1, 2].map((k) => view.getFloat64(179 + 16 * k, true)));
    assert.ok(!json.notes.some((n: string) => /LAS export: scale/.test(n)), 'the input\'s scale: no rounding note');
  });

  it('has an extra-bytes VLR (LASF_Spec 4) whose descriptors follow LAS 1.4 byte for byte', () => {
    const vlr = 375;
    assert.equal(view.getUint32(100, true), 1);
    assert.equal(view.getUint16(vlr, true), 0); // reserved
    assert.equal(cstring(bytes, vlr + 2, 16), 'LASF_Spec');
    assert.equal(view.getUint16(vlr + 18, true), 4);
    assert.equal(view.getUint16(vlr + 20, true), 3 * 192);
    assert.equal(view.getUint32(96, true), 375 + 54 + 3 * 192);
    const distances = rows.map((r) => r.distance);
    const expected = [
      { name: 'distance', type: 10, options: 0b110, min: Math.min(...distances), max: Math.max(...distances) },
      { name: 'nearest_index', type: 8, options: 0b001, noData: -1n },
      { name: 'direction', type: 1, options: 0 },
    ];
    expected.forEach((e, i) => {
      const at = vlr + 54 + 192 * i;
      assert.deepEqual([bytes[at], bytes[at + 1]], [0, 0], 'reserved');
      assert.equal(bytes[at + 2], e.type, `${e.name} data_type`);
      assert.equal(bytes[at + 3], e.options, `${e.name} options`);
      assert.equal(cstring(bytes, at + 4, 32), e.name);
      assert.ok(bytes.subarray(at + 4 + e.name.length, at + 40).every((b) => b === 0), 'name padded with zeros, unused zero');
      if (e.noData !== undefined) assert.equal(view.getBigInt64(at + 40, true), e.noData);
      if (e.min !== undefined) {
        assert.equal(view.getFloat64(at + 64, true), e.min);
        assert.equal(view.getFloat64(at + 88, true), e.max);
      }
      assert.ok(bytes.subarray(at + 112, at + 160).every((b) => b === 0), 'no scale or offset: values stored as they are');
      assert.match(cstring(bytes, at + 160, 32), /^xhd: /);
    });
  });

  it('each record carries its input\'s class and returns, the CSV export\'s distance and nearest index, and its direction', () => {
    const start = view.getUint32(96, true);
    assert.equal(bytes.length, start + 1200 * 47);
    const inputs = [...pointsA, ...pointsB];
    rows.forEach((r, i) => {
      const at = start + 47 * i;
      assert.equal(bytes[at + 14], inputs[i].returnNumber! | (inputs[i].numberOfReturns! << 4), `row ${i} returns`);
      assert.equal(bytes[at + 16], inputs[i].classification, `row ${i} class`);
      assert.equal(view.getFloat64(at + 30, true), r.distance, `row ${i}`);
      assert.equal(view.getBigInt64(at + 38, true), BigInt(r.nearest));
      assert.equal(bytes[at + 46], r.direction);
      assert.equal(view.getInt32(at, true), Math.round((r.x - offset[0]) / scale[0]));
    });
    assert.equal(Math.max(...rows.map((r) => r.distance)), json.hd);
    const byReturn = [1, 2, 3].map((rn) => inputs.filter((p) => p.returnNumber === rn).length);
    assert.deepEqual([0, 1, 2, 3].map((r) => Number(view.getBigUint64(255 + 8 * r, true))), [...byReturn, 0]);
  });

  it('--every thins the classes and returns with the points', () => {
    const thinned = join(dir, 'every.las');
    compare(lasA, lasB, thinned, '--every', '3', '--directed');
    const b = new Uint8Array(readFileSync(thinned));
    const v = new DataView(b.buffer, b.byteOffset);
    const start = v.getUint32(96, true);
    const kept = pointsA.filter((_, i) => i % 3 === 0);
    assert.equal(Number(v.getBigUint64(247, true)), kept.length);
    kept.forEach((p, i) => {
      assert.equal(v.getInt32(start + 47 * i, true), p.X);
      assert.equal(b[start + 47 * i + 16], p.classification);
      assert.equal(b[start + 47 * i + 14], p.returnNumber! | (p.numberOfReturns! << 4));
    });
  });

  it('--directed writes A\'s points alone', () => {
    const one = join(dir, 'ab.las');
    compare(lasA, lasB, one, '--directed');
    assert.equal(readGeometry(one).count, 700);
  });
});

describe('compare --export of inputs without a LAS scale', () => {
  // An E57 scan (ScaledInteger, 0.1 mm) against XYZ text of 3 decimals: no input scale to reuse.
  const n = 300;
  const raw = [ints(n, 1_000_000, 21).map((v) => 5_000_000_000 + v), ints(n, 1_000_000, 22).map((v) => 42_000_000_000 + v), ints(n, 90_000, 23)];
  const e57 = join(dir, 'a.e57'), xyz = join(dir, 'b.xyz');
  writeFileSync(e57, e57File([{ fields: ['cartesianX', 'cartesianY', 'cartesianZ'].map((name, k) => ({
    name, kind: 'scaled' as const, minimum: [5_000_000_000n, 42_000_000_000n, 0n][k], maximum: [5_001_000_000n, 42_001_000_000n, 90_000n][k], scale: 0.0001, values: raw[k],
  })) }]).bytes);
  const b = ints(200, 100_000, 31).map((v, i) => [500000 + v / 1000, 4200000 + ints(200, 100_000, 32)[i] / 1000, ints(200, 9_000, 33)[i] / 1000]);
  writeFileSync(xyz, b.map((p) => p.join(' ')).join('\n') + '\n');

  it('.las: a decimal scale per axis, every point within half a step of its input, the rounding said in a note', () => {
    const out = join(dir, 'e.las');
    const json = compare(e57, xyz, out);
    const note = json.notes.find((x: string) => /LAS export: scale/.test(x));
    assert.ok(note, json.notes.join('; '));
    const g = readGeometry(out);
    const bytes = new Uint8Array(readFileSync(out));
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    const s = [131, 139, 147].map((at) => view.getFloat64(at, true));
    const expected = [...Array.from({ length: n }, (_, i) => [raw[0][i] * 0.0001, raw[1][i] * 0.0001, raw[2][i] * 0.0001]), ...b];
    assert.equal(g.count, expected.length);
    let worst = 0;
    expected.forEach((p, i) => p.forEach((v, k) => {
      const error = Math.abs(g.positions[3 * i + k] - v);
      assert.ok(error <= s[k] / 2 * 1.000001, `point ${i} axis ${k}: ${error} over half of ${s[k]}`);
      worst = Math.max(worst, error);
    }));
    if (worst > 0) assert.match(note, /rounded to it by at most/);
    const start = view.getUint32(96, true);
    for (let i = 0; i < g.count; i++) {
      assert.equal(bytes[start + 47 * i + 14], 0x11, 'no LAS input: return 1 of 1');
      assert.equal(bytes[start + 47 * i + 16], 0, 'class 0, never classified');
    }
  });

  it('.pcd: binary x y z distance nearest_index direction, read back by the PCD reader, equal to the CSV export', () => {
    const out = join(dir, 'e.pcd'), csv = join(dir, 'e.csv');
    compare(e57, xyz, out);
    compare(e57, xyz, csv);
    const rows = csvRows(csv);
    const g = readGeometry(out);
    assert.equal(g.format, 'pcd');
    assert.ok(g.positions instanceof Float64Array, 'double inputs: F 8 coordinates');
    assert.deepEqual(Array.from(g.positions), rows.flatMap((r) => [r.x, r.y, r.z]));
    const bytes = new Uint8Array(readFileSync(out));
    const text = new TextDecoder('latin1').decode(bytes.subarray(0, 600));
    assert.match(text, /\nFIELDS x y z distance nearest_index direction\nSIZE 8 8 8 8 4 1\nTYPE F F F F I U\n/);
    const start = text.indexOf('DATA binary\n') + 'DATA binary\n'.length;
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    assert.equal(bytes.length, start + rows.length * 37);
    rows.forEach((r, i) => {
      const at = start + 37 * i;
      assert.equal(view.getFloat64(at + 24, true), r.distance);
      assert.equal(view.getInt32(at + 32, true), r.nearest);
      assert.equal(bytes[at + 36], r.direction);
    });
  });

  it('.pcd of float32 inputs keeps their float32 coordinates (F 4)', () => {
    const ply = (name: string, values: number[]) => {
      const path = join(dir, name);
      const head = `ply\nformat binary_little_endian 1.0\nelement vertex ${values.length / 3}\nproperty float x\nproperty float y\nproperty float z\nend_header\n`;
      writeFileSync(path, Buffer.concat([Buffer.from(head), Buffer.from(new Float32Array(values).buffer)]));
      return path;
    };
    const a = ints(90, 10_000, 41).map((v) => v / 64 + 0.1), b = ints(60, 10_000, 42).map((v) => v / 32 - 0.3);
    const out = join(dir, 'f.pcd');
    compare(ply('a32.ply', a), ply('b32.ply', b), out);
    const g = readGeometry(out);
    assert.ok(g.positions instanceof Float32Array);
    assert.deepEqual(Array.from(g.positions), [...a, ...b].map(Math.fround));
    assert.match(new TextDecoder('latin1').decode(readFileSync(out).subarray(0, 400)), /\nSIZE 4 4 4 8 4 1\n/);
  });

});

describe('compare --export .laz', () => {
  const out = join(dir, 'd.laz'), csv = join(dir, 'dz.csv');
  const json = compare(lasA, lasB, out);
  compare(lasA, lasB, csv);
  const rows = csvRows(csv);

  it('reads back as the inputs\' points at their own scale and offset, A then B (xhd\'s reader)', () => {
    const g = readGeometry(out);
    assert.equal(g.format, 'laz');
    assert.deepEqual(Array.from(g.positions), [...expectedPositions(pointsA, scale, offset), ...expectedPositions(pointsB, scale, offset)]);
    assert.ok(!json.notes.some((n: string) => /LAZ export: scale/.test(n)), 'the input\'s scale: no rounding note');
  });

  it('decoded by laz-perf: point format 0 records with class, returns, and distance, nearest index and direction as doubles', () => {
    const { count, length, records } = lazPerfFileRecords(out);
    assert.equal(count, 1200);
    assert.equal(length, 20 + 3 * 8);
    const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
    const inputs = [...pointsA, ...pointsB];
    rows.forEach((r, i) => {
      const at = length * i;
      assert.equal(view.getInt32(at, true), Math.round((r.x - offset[0]) / scale[0]), `row ${i} x`);
      const rn = Math.min(7, inputs[i].returnNumber!), of = Math.min(7, inputs[i].numberOfReturns!);
      assert.equal(records[at + 14], rn | (of << 3), `row ${i} returns`);
      assert.equal(records[at + 15] & 31, Math.min(31, inputs[i].classification!), `row ${i} class`);
      assert.equal(view.getFloat64(at + 20, true), r.distance, `row ${i} distance`);
      assert.equal(view.getFloat64(at + 28, true), r.nearest, `row ${i} nearest`);
      assert.equal(view.getFloat64(at + 36, true), r.direction, `row ${i} direction`);
    });
  });

  it('an unwritable .laz path is exit 2 naming it, and no file is left', () => {
    const bad = join(dir, 'no-such-dir', 'e.laz');
    const r = runXhd(['compare', lasA, lasB, '--export', bad, '--backend', 'cpu']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /no-such-dir/);
    assert.ok(!existsSync(bad));
  });
});

const template = sharedData('lidar/point-color.las.laz'), twin = sharedData('lidar/point-color.las');
suiteUnless(!template || !twin ? 'no ../shared/data/lidar' : false, 'compare --export .las of LAZ inputs', () => {
  it('a multi-chunk LAZ decoded on two threads keeps each point\'s class and returns, as its LAS twin states them', () => {
    const laz = join(dir, 'three.laz');
    writeFileSync(laz, lazFromTemplate(new Uint8Array(readFileSync(template!)), { copies: 3 }));
    const out = join(dir, 'laz.las');
    const r = runXhd(['compare', laz, twin!, '--export', out, '--backend', 'cpu', '--json'], { XHD_LAZ_THREADS: '2' });
    assert.equal(r.code, 0, r.stderr);
    // The twin's records, read here from its bytes: class in byte 15's low 5 bits, returns in byte 14 (formats 0-5).
    const t = new Uint8Array(readFileSync(twin!));
    const tv = new DataView(t.buffer, t.byteOffset);
    const offset = tv.getUint32(96, true), length = tv.getUint16(105, true), count = tv.getUint32(107, true);
    const expected = Array.from({ length: count }, (_, i) => {
      const b14 = t[offset + length * i + 14];
      return [t[offset + length * i + 15] & 31, (b14 & 7) | (((b14 >> 3) & 7) << 4)];
    });
    const all = [...expected, ...expected, ...expected, ...expected]; // A: three copies; B: the twin
    const b = new Uint8Array(readFileSync(out));
    const v = new DataView(b.buffer, b.byteOffset);
    const start = v.getUint32(96, true);
    assert.equal(Number(v.getBigUint64(247, true)), 4 * count);
    assert.ok(new Set(expected.map((e) => e[0])).size > 1, 'the sample has more than one class');
    all.forEach(([cls, returns], i) => {
      assert.equal(b[start + 47 * i + 16], cls, `point ${i} class`);
      assert.equal(b[start + 47 * i + 14], returns, `point ${i} returns`);
    });
  });
});
