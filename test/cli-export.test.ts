// compare --export: every point's distance and nearest index, as CSV, PLY or a raw binary file.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { fixture } from './helpers.js';
import { rng, uniform } from './random-points.js';

const dir = scratchDir();
const a = uniform(300, 3, rng(5)), b = uniform(200, 3, rng(6));
const pathA = join(dir, 'a.xyz'), pathB = join(dir, 'b.xyz');
writeXyz(pathA, a);
writeXyz(pathB, b);

/** Each query's nearest target by brute force in double: its distance and the first index reaching it. */
function nearest(q: Float32Array, t: Float32Array): { d: number[]; i: number[] } {
  const d: number[] = [], idx: number[] = [];
  for (let i = 0; i < q.length; i += 3) {
    let best = Infinity, at = -1;
    for (let j = 0; j < t.length; j += 3) {
      const s = (q[i] - t[j]) ** 2 + (q[i + 1] - t[j + 1]) ** 2 + (q[i + 2] - t[j + 2]) ** 2;
      if (s < best) (best = s), (at = j / 3);
    }
    d.push(Math.sqrt(best));
    idx.push(at);
  }
  return { d, i: idx };
}
const ab = nearest(a, b), ba = nearest(b, a);

function exportTo(name: string, ...extra: string[]) {
  const out = join(dir, name);
  const r = runXhd(['compare', pathA, pathB, '--export', out, '--backend', 'cpu', '--json', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return { out, json: JSON.parse(r.stdout) };
}

describe('xhd compare --export', () => {
  it('.csv: a row per point of each direction with the exact distance and nearest index', () => {
    const { out, json } = exportTo('d.csv');
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    assert.equal(lines[0], 'direction,index,x,y,z,distance,nearest');
    assert.equal(lines.length, 1 + 300 + 200);
    const rows = lines.slice(1).map((l) => l.split(','));
    for (const [k, r] of rows.entries()) {
      const [dir, ref, pts] = k < 300 ? ['ab', ab, a] : ['ba', ba, b];
      const i = k < 300 ? k : k - 300;
      assert.equal(r[0], dir);
      assert.equal(Number(r[1]), i);
      assert.equal(Number(r[2]), pts[3 * i]);
      assert.ok(Math.abs(Number(r[5]) - ref.d[i]) <= 1e-12 * ref.d[i], `${dir} ${i}`);
      assert.equal(Number(r[6]), ref.i[i]); // random points: no ties
    }
    assert.equal(Math.max(...rows.map((r) => Number(r[5]))), json.hd);
    assert.ok(json.notes.some((n: string) => /per-point distances written/.test(n)));
  });

  it('.bin: the documented header and arrays, equal to the CSV (text inputs: float64 points, version 2)', () => {
    const { out } = exportTo('d.bin', '--directed');
    const bytes = readFileSync(out);
    assert.equal(bytes.toString('latin1', 0, 8), 'XHDDIST1');
    assert.equal(bytes.readUInt32LE(8), 2);
    assert.equal(bytes.readUInt32LE(12), 3);
    assert.equal(bytes.readBigUInt64LE(16), 300n);
    assert.equal(bytes.readBigUInt64LE(24), 0n); // directed: no B → A
    assert.equal(bytes.length, 32 + 300 * (24 + 8 + 8));
    const at = 32 + 300 * 24;
    for (let i = 0; i < 300; i++) {
      assert.equal(bytes.readDoubleLE(32 + 24 * i), a[3 * i]);
      assert.ok(Math.abs(bytes.readDoubleLE(at + 8 * i) - ab.d[i]) <= 1e-12 * ab.d[i]);
      assert.equal(bytes.readBigInt64LE(at + 2400 + 8 * i), BigInt(ab.i[i]));
    }
  });

  it('.ply: a binary point cloud with distance, nearest and direction per vertex', () => {
    const { out } = exportTo('d.ply');
    const bytes = readFileSync(out);
    const end = bytes.indexOf('end_header\n') + 'end_header\n'.length;
    const header = bytes.toString('latin1', 0, end);
    assert.match(header, /element vertex 500\n/);
    // Text inputs are doubles: the points keep them (double x, y, z).
    assert.match(header, /property double x\nproperty double y\nproperty double z\nproperty float quality\n/);
    assert.match(header, /property double distance\nproperty int nearest\nproperty uchar direction\n/);
    assert.equal(bytes.length - end, 500 * 41);
    for (const k of [0, 299, 300, 499]) {
      const o = end + 41 * k, i = k < 300 ? k : k - 300, ref = k < 300 ? ab : ba, pts = k < 300 ? a : b;
      assert.equal(bytes.readDoubleLE(o + 8), pts[3 * i + 1]);
      assert.ok(Math.abs(bytes.readDoubleLE(o + 28) - ref.d[i]) <= 1e-12 * ref.d[i]);
      assert.equal(bytes.readInt32LE(o + 36), ref.i[i]);
      assert.equal(bytes[o + 40], k < 300 ? 0 : 1);
    }
  });

  it('surface mode exports the samples with distances and nearest -1', () => {
    const out = join(dir, 's.csv');
    const r = runXhd(['compare', fixture('tetra-ascii.ply'), fixture('cube.off'), '--samples', '50', '--export', out, '--json', '--backend', 'cpu']);
    assert.equal(r.code, 0, r.stderr);
    const rows = readFileSync(out, 'utf8').trimEnd().split('\n').slice(1).map((l) => l.split(','));
    assert.equal(rows.length, 100);
    assert.ok(rows.every((row) => row[6] === '-1'));
    assert.equal(Math.max(...rows.map((row) => Number(row[5]))), JSON.parse(r.stdout).hd);
  });

  it('refuses an unknown extension or an unwritable path before measuring', () => {
    const bad = runXhd(['compare', pathA, pathB, '--export', join(dir, 'd.txt')]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /name the file \.csv, \.ply, \.bin, \.las, \.laz or \.pcd/);
    const missing = runXhd(['compare', pathA, pathB, '--export', join(dir, 'no', 'd.csv')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no such directory/);
    assert.equal(existsSync(join(dir, 'd.txt')), false);
  });
});
