// LAS/LAZ through the CLI: info's LAS facts, compare's CRS notes and JSON, the filters on other formats, and
// exactness: two LAS epochs give the very HD that the same coordinates give written as text doubles.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { hasStackTrace, runXhd, scratchDir } from './cli-run.js';
import { fixture } from './helpers.js';
import { expectedPositions, geoKeys, lasBytes, type LasPoint } from './las-writer.js';

const dir = scratchDir();
const utm = (epsg: number) => [{ userId: 'LASF_Projection', recordId: 34735, payload: geoKeys([[1024, 0, 1, 1], [3072, 0, 1, epsg], [3076, 0, 1, 9001]]) }];

/** An epoch of a survey: a grid of ground (2) and building (6) points; the second epoch moved a little. */
function epoch(shift: number): LasPoint[] {
  const points: LasPoint[] = [];
  for (let i = 0; i < 40; i++) {
    for (let j = 0; j < 40; j++) {
      const k = i * 40 + j;
      points.push({ X: i * 1237 + ((k * 7919 * shift) % 97), Y: j * 1171 - ((k * 104729 * shift) % 89), Z: 5000 + ((k * 31 * (shift + 1)) % 700),
        classification: k % 3 === 0 ? 6 : 2, returnNumber: 1, numberOfReturns: 1 + (k % 2) });
    }
  }
  return points;
}

function writeLas(name: string, points: LasPoint[], epsg = 32633): string {
  const path = join(dir, name);
  writeFileSync(path, lasBytes(points, { format: 6, minor: 4, scale: [0.001, 0.001, 0.001], offset: [500000, 4200000, 0], vlrs: utm(epsg) }));
  return path;
}

describe('xhd info on LAS', () => {
  const path = writeLas('info.las', epoch(0));
  it('shows version, point format, counts by class and return, scale/offset and CRS', () => {
    const r = runXhd(['info', path]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /LAS +version 1\.4 · point format 6 · 30-byte records · 1,600 points in the file/);
    assert.match(r.stdout, /by class +2 ground 1,066 · 6 building 534/);
    assert.match(r.stdout, /by return +1: 1,600/);
    assert.match(r.stdout, /scale +0\.001 +0\.001 +0\.001/);
    assert.match(r.stdout, /offset +500000 +4200000 +0/);
    assert.match(r.stdout, /CRS +EPSG:32633 · units metre · from GeoTIFF keys/);
  });
  it('JSON carries the same, and --classes narrows the points but not the file counts', () => {
    const r = runXhd(['info', path, '--json', '--classes', '6']);
    assert.equal(r.code, 0, r.stderr);
    const info = JSON.parse(r.stdout);
    assert.equal(info.points, 534);
    assert.equal(info.las.points_in_file, 1600);
    assert.deepEqual(info.las.by_class, { 2: 1066, 6: 534 });
    assert.equal(info.las.point_format, 6);
    assert.deepEqual(info.las.offset, [500000, 4200000, 0]);
    assert.equal(info.crs.epsg, 32633);
    assert.equal(info.crs.units, 'metre');
  });
});

describe('xhd compare on LAS', () => {
  const a = epoch(0), b = epoch(1);
  const pathA = writeLas('epoch1.las', a), pathB = writeLas('epoch2.las', b);
  const asText = (name: string, points: LasPoint[]) => {
    const p = expectedPositions(points, [0.001, 0.001, 0.001], [500000, 4200000, 0]);
    const lines: string[] = [];
    for (let i = 0; i < p.length; i += 3) lines.push(`${p[i]} ${p[i + 1]} ${p[i + 2]}`); // shortest round-trip form: the same doubles
    const path = join(dir, name);
    writeFileSync(path, lines.join('\n') + '\n');
    return path;
  };
  it('two epochs give exactly the HD of the same doubles written as text', () => {
    const las = JSON.parse(runXhd(['compare', pathA, pathB, '--json', '-q', '--backend', 'cpu']).stdout);
    const xyz = JSON.parse(runXhd(['compare', asText('e1.xyz', a), asText('e2.xyz', b), '--json', '-q', '--backend', 'cpu']).stdout);
    assert.ok(las.hd > 0);
    assert.equal(las.hd, xyz.hd);
    assert.deepEqual(las.witness_ab, xyz.witness_ab);
    assert.equal(las.a.crs.epsg, 32633);
    assert.equal(xyz.a.crs, null);
    assert.ok(las.notes.includes("distances are in metre, the units of both inputs' CRS"), las.notes.join('\n'));
  });
  it('--classes compares the chosen classes only', () => {
    const r = JSON.parse(runXhd(['compare', pathA, pathB, '--json', '-q', '--classes', '6', '--backend', 'cpu']).stdout);
    assert.equal(r.a.points, 534);
    assert.equal(r.b.points, 534);
  });
  it('inputs stating different CRSs get a warning naming both', () => {
    const other = writeLas('zone32.las', b, 32632);
    const r = runXhd(['compare', pathA, other, '-q', '--backend', 'cpu']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /warning: the inputs state different CRSs: A \(.*epoch1\.las\) is EPSG:32633, B \(.*zone32\.las\) is EPSG:32632/);
    assert.match(r.stdout, /A .*epoch1\.las +LAS +1,600 points +3D +EPSG:32633, metre/);
  });
});

describe('filters on formats without LAS fields', () => {
  it('--classes or --returns on a PLY is exit 2 naming the option and the file', () => {
    const ply = fixture('all-types-be.ply');
    for (const args of [['--classes', '2'], ['--returns', 'first']]) {
      const r = runXhd(['compare', ply, ply, ...args]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, new RegExp(`${args[0]} needs LAS .*all-types-be\\.ply \\(PLY\\) has none`));
      assert.ok(!hasStackTrace(r.stderr));
    }
  });
  it('--bbox and --every apply to a point file of any format', () => {
    const path = join(dir, 'line.xyz');
    writeFileSync(path, Array.from({ length: 100 }, (_, i) => `${i} 0 0`).join('\n') + '\n');
    const box = JSON.parse(runXhd(['info', path, '--json', '--bbox', '10,-1,19.5,1']).stdout);
    assert.equal(box.points, 10);
    assert.deepEqual(box.bounds, { min: [10, 0, 0], max: [19, 0, 0] });
    const thin = JSON.parse(runXhd(['info', path, '--json', '--every', '7']).stdout);
    assert.equal(thin.points, 15);
    assert.deepEqual(thin.bounds.max, [98, 0, 0]);
  });
  it('a bad --bbox is a usage error', () => {
    const r = runXhd(['info', fixture('all-types-be.ply'), '--bbox', '1,2,3']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /expected xmin,ymin,xmax,ymax/);
  });
});

describe('bad LAS through the CLI', () => {
  it('a lying header is one line and exit 2, no stack trace', () => {
    const bytes = lasBytes(epoch(0).slice(0, 10), { format: 1 });
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(107, 1e9, true);
    const path = join(dir, 'lying.las');
    writeFileSync(path, bytes);
    const r = runXhd(['compare', path, path]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /lying\.las \(byte \d+\): file is truncated: the header declares 1000000000 points/);
    assert.ok(!hasStackTrace(r.stderr));
  });
});
