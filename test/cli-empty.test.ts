// --empty: what compare reports when an input has no points, for files and for voxel masks.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { runXhd, scratchDir } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';

const dir = scratchDir();
const path = (name: string) => join(dir, name);
writeFileSync(path('points.xyz'), '0 0 0\n3 4 0\n');
writeFileSync(path('empty.xyz'), '# nothing\n');
const N = 5;
const ball = new Uint8Array(N * N * N);
ball[2 + N * (2 + N * 2)] = 1;
// 2 mm voxels: the corner voxel centres span 8 mm along each axis, a diagonal of sqrt(3 * 64).
writeNifti(path('dot.nii'), { dims: [N, N, N], values: ball, spacing: [2, 2, 2] });
writeNifti(path('blank.nii'), { dims: [N, N, N], values: new Uint8Array(N * N * N), spacing: [2, 2, 2] });
const volumeDiagonal = Math.sqrt(3 * 64);

function run(...args: string[]) {
  return runXhd(['compare', ...args, '--backend', 'cpu']);
}
function json(...args: string[]) {
  const r = run(...args, '--json');
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  return { code: r.code, j: JSON.parse(r.stdout) };
}

describe('xhd compare --empty', () => {
  it('an empty file is an error by default, exit 2 naming it', () => {
    const r = run(path('points.xyz'), path('empty.xyz'));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /empty\.xyz: has no points/);
    assert.equal(run(path('points.xyz'), path('empty.xyz'), '--empty', 'error').code, 2);
  });

  it('nan: every distance is NaN, null in JSON, the side named, and a threshold fails', () => {
    const { code, j } = json(path('points.xyz'), path('empty.xyz'), '--empty', 'nan', '--percentile', '95', '--fail-above', '100');
    assert.equal(code, 1);
    assert.deepEqual(j.empty, { a: false, b: true, policy: 'nan' });
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'hd95', 'assd', 'rms', 'chamfer_sq_mean']) assert.equal(j[key], null, key);
    assert.equal(j.witness_ab, null);
    assert.equal(j.threshold.exceeded, true);
  });

  it('inf: every distance is infinite and any threshold is exceeded', () => {
    const r = run(path('empty.xyz'), path('points.xyz'), '--empty', 'inf', '--fail-above', '1e300');
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /Hausdorff distance\s+Infinity/);
    assert.match(r.stdout, /A is empty/);
    assert.match(r.stdout, /FAIL/);
  });

  it('zero-or-diagonal on files: one empty gives the other set\'s bounding-box diagonal, both empty 0', () => {
    const one = json(path('points.xyz'), path('empty.xyz'), '--empty', 'zero-or-diagonal', '--stats').j;
    assert.equal(one.hd, 5);
    assert.equal(one.assd, 5);
    assert.equal(one.chamfer_sq_mean, 25);
    assert.deepEqual(one.empty, { a: false, b: true, policy: 'zero-or-diagonal' });
    const both = json(path('empty.xyz'), path('empty.xyz'), '--empty', 'zero-or-diagonal').j;
    assert.equal(both.hd, 0);
    assert.deepEqual(both.empty, { a: true, b: true, policy: 'zero-or-diagonal' });
  });

  it('masks default to zero-or-diagonal: one empty mask gives the volume diagonal, two give 0', () => {
    const one = json(path('dot.nii'), path('blank.nii'), '--percentile', '95').j;
    assert.equal(one.empty.policy, 'zero-or-diagonal');
    assert.ok(Math.abs(one.hd - volumeDiagonal) < 1e-12, String(one.hd));
    assert.ok(Math.abs(one.hd95 - volumeDiagonal) < 1e-12, String(one.hd95));
    assert.equal(json(path('blank.nii'), path('blank.nii')).j.hd, 0);
    const refused = run(path('dot.nii'), path('blank.nii'), '--empty', 'error');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /blank\.nii: has no points/);
  });

  it('non-empty inputs say so in JSON', () => {
    assert.deepEqual(json(path('points.xyz'), path('points.xyz')).j.empty, { a: false, b: false, policy: null });
  });
});
