// compare's other outputs: --relative percentages and --output csv lines.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { runXhd, scratchDir } from './cli-run.js';
import { fixture } from './helpers.js';

const dir = scratchDir();
const a = join(dir, 'a.xyz'), b = join(dir, 'with,comma.xyz'), empty = join(dir, 'empty.xyz');
writeFileSync(a, '0 0 0\n1 0 0\n0 2 0\n');
writeFileSync(b, '0 0 0\n4 0 0\n0 0 3\n');
writeFileSync(empty, '');

function run(...args: string[]) {
  return runXhd(['compare', ...args, '--backend', 'cpu']);
}
const json = (...args: string[]) => JSON.parse(run(...args, '--json').stdout);

/** A CSV line split into cells, honouring quotes. */
function cells(line: string): string[] {
  const out: string[] = [];
  let cur = '', quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') (cur += '"'), i++;
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') (out.push(cur), (cur = ''));
    else cur += ch;
  }
  out.push(cur);
  return out;
}

describe('xhd compare --relative', () => {
  it('gives every distance as a percentage of the union diagonal by default, or of A\'s or B\'s', () => {
    const j = json(a, b, '--relative', '--percentile', '95');
    assert.deepEqual(j.relative_diagonal, { basis: 'union', length: j.bbox_diagonal });
    const p = j.percent_of_union_diagonal;
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'hd95', 'assd', 'mean_ab', 'mean_ba', 'rms']) {
      assert.ok(Math.abs(p[key] - (100 * j[key]) / j.bbox_diagonal) < 1e-12, key);
    }
    assert.equal(p.chamfer_sq_mean, undefined); // squared: no percentage
    for (const side of ['a', 'b'] as const) {
      const s = json(a, b, '--relative', side);
      assert.equal(s.relative_diagonal.length, s[side].bbox_diagonal);
      assert.ok(Math.abs(s[`percent_of_${side}_diagonal`].hd - (100 * s.hd) / s[side].bbox_diagonal) < 1e-12);
    }
    assert.equal(json(a, b, '--relative', 'b').b.bbox_diagonal, 5);
    assert.equal(run(a, b, '--relative', 'c').code, 2);
    assert.match(run(a, b, '--relative').stdout, /relative .*of both inputs' bbox diagonal/);
  });
});

describe('xhd compare --output csv', () => {
  it('prints one line whose values match the JSON report; --csv-header names the columns', () => {
    const plain = run(a, b, '--output', 'csv', '--stats');
    assert.equal(plain.code, 0, plain.stderr);
    const lines = plain.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 1);
    const withHeader = run(a, b, '--output', 'csv', '--stats', '--csv-header').stdout.trimEnd().split('\n');
    assert.equal(withHeader.length, 2);
    const names = cells(withHeader[0]), values = cells(lines[0]);
    assert.equal(names.length, values.length);
    const row = Object.fromEntries(names.map((n, i) => [n, values[i]]));
    const j = json(a, b, '--stats');
    assert.equal(row.b, b); // the comma in the name is quoted
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'assd', 'rms', 'chamfer_sq_mean']) assert.equal(Number(row[key]), j[key], key);
  });

  it('surface mode fills the per-sample columns (mean, RMS, min, E, Es), which points mode leaves empty', () => {
    const meshes = [fixture('cube.off'), fixture('tetra-ascii.ply')];
    const [names, values] = run(...meshes, '--output', 'csv', '--csv-header', '--samples', '2000').stdout.trimEnd().split('\n').map(cells);
    const row = Object.fromEntries(names.map((n, i) => [n, values[i]]));
    const j = json(...meshes, '--samples', '2000');
    assert.equal(row.mode, 'surface');
    for (const key of ['mean_ab', 'mean_ba', 'rms_ab', 'rms_ba', 'min_ab', 'min_ba', 'e_ab', 'e_ba', 'es']) assert.equal(Number(row[key]), j[key], key);
    const [pointNames, pointValues] = run(a, b, '--output', 'csv', '--csv-header').stdout.trimEnd().split('\n').map(cells);
    assert.deepEqual(pointNames, names, 'the same columns in both modes');
    assert.equal(pointValues[pointNames.indexOf('es')], '');
  });

  it('a fractional percentile has a key jq can address (hd_p99_5), the old one kept beside it', () => {
    const j = json(a, b, '--percentile', '99.5');
    assert.equal(typeof j.hd_p99_5, 'number');
    assert.equal(j['hd_p99.5'], j.hd_p99_5);
  });

  it('writes the threshold verdict and empty sides; nan for NaN', () => {
    const r = run(a, empty, '--output', 'csv', '--csv-header', '--empty', 'nan', '--fail-above', '1');
    assert.equal(r.code, 1);
    const [names, values] = r.stdout.trimEnd().split('\n').map(cells);
    const row = Object.fromEntries(names.map((n, i) => [n, values[i]]));
    assert.equal(row.hd, 'nan');
    assert.equal(row.empty_b, 'true');
    assert.equal(row.threshold_exceeded, 'true');
  });

  it('refuses conflicting output flags', () => {
    assert.equal(run(a, b, '--json', '--output', 'csv').code, 2);
    assert.equal(run(a, b, '--csv-header').code, 2);
  });
});
