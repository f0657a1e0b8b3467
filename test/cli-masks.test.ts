// `xhd compare` on NIfTI voxel masks: surface voxels by default, millimetres through the affine, labels,
// voxel space, and the warning when two masks lie in different spaces.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { runXhd, scratchDir } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';

const N = 6;
/** A 6×6×6 grid holding `value` in the cube [x0, x0 + 2] × [1, 3] × [1, 3] (27 voxels, 26 on its surface). */
function cube(x0: number, value = 1, into = new Uint8Array(N * N * N)): Uint8Array {
  for (let k = 1; k <= 3; k++) for (let j = 1; j <= 3; j++) for (let i = x0; i <= x0 + 2; i++) into[i + N * (j + N * k)] = value;
  return into;
}

const dir = scratchDir();
const path = (name: string) => join(dir, name);
// A: the cube at x 1…3; B: one voxel further along x. Voxels are 2 mm (pixdim, no sform or qform).
writeNifti(path('a.nii'), { dims: [N, N, N], values: cube(1), spacing: [2, 2, 2] });
writeNifti(path('b.nii.gz'), { dims: [N, N, N], values: cube(2), spacing: [2, 2, 2], gzip: true });
writeNifti(path('b-1mm.nii'), { dims: [N, N, N], values: cube(2), spacing: [1, 1, 1] });
// Two labels in one file: 1 is A's cube, 2 sits three voxels away along x.
const labelled = cube(0, 1);
labelled[5 + N * (2 + N * 2)] = 2;
writeNifti(path('labels.nii'), { dims: [N, N, N], values: labelled, spacing: [2, 2, 2] });
// The other segmentation: label 2 at (1, 2, 2) inside a cube of label 1 at x 1…3.
const labelledB = cube(1, 1);
labelledB[1 + N * (2 + N * 2)] = 2;
writeNifti(path('labels-b.nii'), { dims: [N, N, N], values: labelledB, spacing: [2, 2, 2] });

const compare = (...args: string[]) => {
  const r = runXhd(['compare', ...args, '--json', '--backend', 'cpu']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

describe('xhd compare on NIfTI masks', () => {
  it('compares surface voxels in millimetres: a one-voxel shift of 2 mm voxels is 2 mm', () => {
    const j = compare(path('a.nii'), path('b.nii.gz'), '--percentile', '95');
    assert.equal(j.a.format, 'nifti');
    assert.equal(j.a.points, 26);
    assert.equal(j.hd, 2);
    assert.equal(j.hd95, 2);
    assert.ok(!j.notes.some((n: string) => n.startsWith('warning')), 'same space: no warning');
  });

  it('--voxel-space gives index units, --region all every voxel', () => {
    assert.equal(compare(path('a.nii'), path('b.nii.gz'), '--voxel-space').hd, 1);
    const all = compare(path('a.nii'), path('b.nii.gz'), '--region', 'all');
    assert.equal(all.a.points, 27);
    assert.equal(all.hd, 2);
  });

  it('--label picks one label in both masks', () => {
    const two = compare(path('labels.nii'), path('labels-b.nii'), '--label', '2');
    assert.equal(two.a.points, 1);
    assert.equal(two.b.points, 1);
    assert.equal(two.hd, 8); // (5, 2, 2) against (1, 2, 2): 4 voxels of 2 mm
    const one = compare(path('labels.nii'), path('labels-b.nii'), '--label', '1', '--region', 'all');
    assert.equal(one.a.points, 27);
    assert.equal(one.b.points, 26); // label 2 took one voxel of B's cube
    // A's (0, 2, 2) has lost its neighbour (1, 2, 2) in B: the nearest is (1, 1, 2), √2 voxels away.
    assert.ok(Math.abs(one.hd - 2 * Math.SQRT2) < 1e-12, `${one.hd}`);
  });

  it('warns when the masks do not occupy the same physical space, and still measures', () => {
    const j = compare(path('a.nii'), path('b-1mm.nii'));
    const warning = j.notes.find((n: string) => n.startsWith('warning'));
    assert.ok(warning, JSON.stringify(j.notes));
    assert.match(warning, /spacing 2×2×2 mm against 1×1×1 mm/);
    assert.ok(j.hd > 0);
  });

  it('a label in neither mask of a pair given by hand is refused, naming the labels there are', () => {
    const r = runXhd(['compare', path('a.nii'), path('labels.nii'), '--label', '7', '--backend', 'cpu']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, `xhd: label 7 is in neither mask (${path('a.nii')} has label 1; ${path('labels.nii')} has labels 1, 2); `
      + 'give --empty zero-or-diagonal to report it as a match (0) anyway\n');
  });

  it('a label with no voxels is an empty mask: 0 when both are empty (with --empty), refused with --empty error', () => {
    const j = compare(path('a.nii'), path('labels.nii'), '--label', '7', '--empty', 'zero-or-diagonal');
    assert.deepEqual(j.empty, { a: true, b: true, policy: 'zero-or-diagonal' });
    assert.equal(j.hd, 0);
    const r = runXhd(['compare', path('a.nii'), path('labels.nii'), '--label', '7', '--empty', 'error', '--backend', 'cpu']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /a\.nii.*no points/); // A, the first file, has no voxel labelled 7
  });
});
