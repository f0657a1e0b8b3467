// Pose parsing and composition (src/pose.ts) and the frames file reader (src/pose-file.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { InputError } from '../src/core/errors.js';
import { parsePoseText } from '../src/io/pose-file.js';
import {
  composePose, cosSinDegrees, isIdentityPose, parseMatrix4, parseRotation, parseTranslation, poseFromQuaternion, poseFromValues,
  PoseSyntaxError, rotationAbout, type Matrix3,
} from '../src/core/pose.js';

function applyRotation(r: Matrix3, p: number[]): number[] {
  return [0, 3, 6].map((i) => r[i] * p[0] + r[i + 1] * p[1] + r[i + 2] * p[2]);
}

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, what = '') {
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < actual.length; i++) {
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance, `${what} entry ${i}: ${actual[i]} vs ${expected[i]}`);
  }
}

function rotationPart(pose: Float64Array): Matrix3 {
  return [pose[0], pose[1], pose[2], pose[4], pose[5], pose[6], pose[8], pose[9], pose[10]];
}

describe('poses from options', () => {
  it('composes p\' = R p + t as the 3×4 rows [R | t]', () => {
    const r: Matrix3 = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    assert.deepEqual(Array.from(composePose(r, [10, 11, 12])), [1, 2, 3, 10, 4, 5, 6, 11, 7, 8, 9, 12]);
    assert.deepEqual(Array.from(composePose()), [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
    assert.ok(isIdentityPose(composePose()));
    assert.ok(!isIdentityPose(composePose(undefined, [0, 0, 1e-30])));
  });

  it('--transform-b takes 16 numbers row by row and drops the last row', () => {
    const pose = parseMatrix4('1,2,3,4, 5,6,7,8, 9,10,11,12, 0,0,0,1');
    assert.deepEqual(Array.from(pose), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.deepEqual(Array.from(parseMatrix4('-1e-3 0 0 -2.5 0 1 0 0 0 0 1 .5 0 0 0 1')), [-1e-3, 0, 0, -2.5, 0, 1, 0, 0, 0, 0, 1, 0.5]);
    assert.throws(() => parseMatrix4('1,0,0,0,0,1,0,0,0,0,1,0'), /expected 16 numbers .*found 12/);
    assert.throws(() => parseMatrix4('1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,2'), /last row .* must be 0,0,0,1, found 0,0,0,2/);
    assert.throws(() => parseMatrix4('1,0,0,0,0,1,0,0,0,0,1,0,0,0.5,0,1'), /last row/);
    assert.throws(() => parseMatrix4('1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,one'), /'one' is not a number/);
    assert.throws(() => parseMatrix4('1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,0x1'), /'0x1' is not a number/);
    assert.throws(() => parseMatrix4('1,0,0,0,0,1,0,0,0,0,1,Infinity,0,0,0,1'), /not a number/);
  });

  it('--translate takes x,y,z', () => {
    assert.deepEqual(parseTranslation('1,-2.5,3e2'), [1, -2.5, 300]);
    assert.throws(() => parseTranslation('1,2'), /expected 3 numbers x,y,z, found 2/);
    assert.throws(() => parseTranslation('1,,2'), /empty field/);
    assert.throws(() => parseTranslation('1,2,1e999'), /too large/);
  });

  it('quarter turns about x, y and z are exact and right-handed', () => {
    assert.deepEqual(parseRotation('z,90'), [0, -1, 0, 1, 0, 0, 0, 0, 1]);
    assert.deepEqual(applyRotation(parseRotation('x,90'), [0, 1, 0]), [0, 0, 1]); // y → z
    assert.deepEqual(applyRotation(parseRotation('y,90'), [0, 0, 1]), [1, 0, 0]); // z → x
    assert.deepEqual(applyRotation(parseRotation('z,90'), [1, 0, 0]), [0, 1, 0]); // x → y
    assert.deepEqual(parseRotation('Z,-270'), parseRotation('z,90'));
    assert.deepEqual(parseRotation('z,450'), parseRotation('z,90'));
    assert.deepEqual(parseRotation('x,180'), [1, 0, 0, 0, -1, 0, 0, 0, -1]);
    assert.deepEqual(cosSinDegrees(-90), [0, -1]);
    assert.deepEqual(cosSinDegrees(720), [1, 0]);
  });

  it('an explicit axis is normalised, and a named axis equals its vector', () => {
    assert.deepEqual(parseRotation('0,0,1,30'), parseRotation('z,30'));
    assert.deepEqual(parseRotation('0,0,4,30'), parseRotation('z,30'));
    assert.deepEqual(parseRotation('1 0 0 17'), parseRotation('x,17'));
    const [c, s] = [Math.cos(Math.PI / 6), Math.sin(Math.PI / 6)];
    assertClose(parseRotation('z,30'), [c, -s, 0, s, c, 0, 0, 0, 1], 1e-16);
  });

  it('rotations about any axis agree with the quaternion construction, are orthonormal and keep the axis', () => {
    for (const [axis, degrees] of [[[1, 2, 3], 40], [[-0.3, 0.1, 0.9], -123.4], [[1, 1, 1], 120]] as const) {
      const r = rotationAbout([axis[0], axis[1], axis[2]], degrees);
      const n = Math.hypot(...axis), half = (degrees * Math.PI) / 360;
      const q = [0, 0, 0, Math.cos(half), ...axis.map((v) => (Math.sin(half) * v) / n)];
      assertClose(r, rotationPart(poseFromQuaternion(q)), 1e-15, `${axis} ${degrees}`);
      assertClose(applyRotation(r, [...axis]), [...axis], 1e-14, 'the axis is fixed');
      const rows = [r.slice(0, 3), r.slice(3, 6), r.slice(6, 9)];
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) {
        const dot = rows[i][0] * rows[j][0] + rows[i][1] * rows[j][1] + rows[i][2] * rows[j][2];
        assert.ok(Math.abs(dot - (i === j ? 1 : 0)) < 1e-15, `rows ${i},${j}`);
      }
    }
    assertClose(applyRotation(rotationAbout([1, 1, 1], 120), [1, 0, 0]), [0, 1, 0], 1e-15);
  });

  it('refuses bad axes and counts', () => {
    assert.throws(() => parseRotation('w,30'), /unknown axis 'w'/);
    assert.throws(() => parseRotation('0,0,0,30'), /non-zero vector/);
    assert.throws(() => parseRotation('z'), /expected axis,degrees/);
    assert.throws(() => parseRotation('z,30,1'), /expected axis,degrees/);
    assert.throws(() => parseRotation('1,0,30'), /found 3 numbers/);
    assert.throws(() => parseRotation('z,thirty'), /'thirty' is not a number/);
    assert.throws(() => parseRotation('w,30'), PoseSyntaxError);
  });
});

describe('poses from a frames file', () => {
  it('7 numbers are a translation and a unit quaternion qw,qx,qy,qz', () => {
    assert.deepEqual(Array.from(poseFromValues([1, 2, 3, 1, 0, 0, 0])), [1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3]);
    const h = Math.SQRT1_2; // a quarter turn about z
    assertClose(poseFromValues([0, 0, 0, h, 0, 0, h]), [0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0], 1e-15);
    // Within 1e-6 of unit length the quaternion is normalised; beyond that it is refused.
    const scaled = poseFromValues([0, 0, 0, 0.6 * (1 + 5e-7), 0, 0.8 * (1 + 5e-7), 0]);
    assertClose(scaled, poseFromValues([0, 0, 0, 0.6, 0, 0.8, 0]), 1e-15);
    assert.throws(() => poseFromValues([0, 0, 0, 1.1, 0, 0, 0]), /norm 1\.1, expected 1/);
    assert.throws(() => poseFromValues([0, 0, 0, 0, 0, 0, 0]), /norm 0/);
  });

  it('12 numbers are [M | t] as given, 16 a 4×4 matrix', () => {
    const twelve = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    assert.deepEqual(Array.from(poseFromValues(twelve)), twelve);
    assert.deepEqual(Array.from(poseFromValues([...twelve, 0, 0, 0, 1])), twelve);
    assert.throws(() => poseFromValues([1, 2, 3, 4, 5]), /expected 7, 12 or 16 numbers, found 5/);
  });

  it('skips blank lines, comments and a header, and accepts commas, spaces, tabs and CRLF', () => {
    const text = '\uFEFF# poses of the gripper\ntx, ty, tz, qw, qx, qy, qz\n\n1 2 3 1 0 0 0   # start\r\n' +
      '1,0,0,0,\t0,1,0,0, 0,0,1,0\n   \n1 0 0 5 0 1 0 6 0 0 1 7 0 0 0 1\n';
    const frames = parsePoseText(text, 'poses.csv');
    assert.deepEqual(frames.map((f) => f.line), [4, 5, 7]);
    assert.deepEqual(Array.from(frames[0].pose), [1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3]);
    assert.ok(isIdentityPose(frames[1].pose));
    assert.deepEqual(Array.from(frames[2].pose), [1, 0, 0, 5, 0, 1, 0, 6, 0, 0, 1, 7]);
  });

  it('errors name the file and the line', () => {
    const error = (text: string) => {
      try {
        parsePoseText(text, 'poses.csv');
      } catch (e) {
        assert.ok(e instanceof InputError);
        assert.equal(e.exitCode, 2);
        return e.message;
      }
      assert.fail('no error');
    };
    assert.equal(error('0 0 0 1 0 0 0\n# fine\n\n0 0 0 1 0 0 0\n\n\n1,2,3,4,5\n'), 'poses.csv:7: expected 7, 12 or 16 numbers, found 5');
    assert.equal(error('0 0 0 1 0 0 0\ntx ty tz qw qx qy qz\n'), "poses.csv:2: 'tx' is not a number"); // a header comes first
    assert.equal(error('tx ty tz\n1 2 x 1 0 0 0\n'), "poses.csv:2: 'x' is not a number");
    assert.equal(error('0 0 0 2 0 0 0\n'), 'poses.csv:1: the quaternion qw,qx,qy,qz has norm 2, expected 1 (within 1e-6)');
    assert.equal(error('1,0,0,0,0,1,0,0,0,0,1,0,1,0,0,1\n'), 'poses.csv:1: the last row of a 4×4 matrix must be 0,0,0,1, found 1,0,0,1');
    assert.equal(error('# nothing\n\n'), 'poses.csv: has no poses');
    assert.equal(error('tx,ty,tz,qw,qx,qy,qz\n'), 'poses.csv: has no poses');
  });
});
