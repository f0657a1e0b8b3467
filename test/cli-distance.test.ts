// `xhd distance` end to end: the fast method equals the double-precision reference, poses equal pre-posed
// files, --frames equals separate runs, the JSON contract, the human report, and every error path (exit 2).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import type { DistanceMesh, Pose } from '../src/ops/mesh-distance.js';
import { composePose, poseFromValues, rotationAbout } from '../src/core/pose.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz } from './cli-run.js';
import { onDyadicGrid, preposed64, shiftedBy, SURVEY, turnAbout } from './distance-pairs.js';
import { rng, uniform } from './random-points.js';
import { cube, triangleSoup, uvSphere, writeOff } from './test-meshes.js';

/**
 * B posed as the library poses a text file's doubles: a left-to-right double sum per coordinate, kept in
 * double (OFF files are text, read as doubles, and written back here with every digit).
 */
function preposed(mesh: DistanceMesh, m: ArrayLike<number>): DistanceMesh {
  return preposed64(mesh, Float64Array.from(m));
}

function moved(mesh: DistanceMesh, dx: number, dy = 0, dz = 0): DistanceMesh {
  return preposed(mesh, [1, 0, 0, dx, 0, 1, 0, dy, 0, 0, 1, dz]);
}

/** The 16 numbers of --transform-b for a pose, each printed so that it parses back to the same double. */
function matrixArgument(pose: Pose): string {
  return [...pose, 0, 0, 0, 1].map(String).join(',');
}

function distanceJson(args: string[]) {
  const r = runXhd(['distance', ...args, '--json']);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  assert.equal(r.stderr, '', 'stderr stays empty with --json');
  return JSON.parse(r.stdout);
}

/** The two points of a pair are as far apart as the distance it reports. */
function assertPairRealizes(pair: { a_point: number[]; b_point: number[] }, distance: number, what: string) {
  const gap = Math.hypot(pair.a_point[0] - pair.b_point[0], pair.a_point[1] - pair.b_point[1], pair.a_point[2] - pair.b_point[2]);
  assert.ok(Math.abs(gap - distance) <= 1e-9 * Math.max(1, distance), `${what}: pair ${gap} vs distance ${distance}`);
}

/** The diagonal of the bounding box of interleaved x,y,z positions. */
function boxDiagonal(p: ArrayLike<number>): number {
  let s = 0;
  for (let d = 0; d < 3; d++) {
    let lo = Infinity, hi = -Infinity;
    for (let i = d; i < p.length; i += 3) (lo = Math.min(lo, p[i])), (hi = Math.max(hi, p[i]));
    s += (hi - lo) ** 2;
  }
  return Math.sqrt(s);
}

describe('xhd distance', () => {
  const dir = scratchDir();
  const file = (name: string) => join(dir, name);
  const soupA = triangleSoup(1500, rng(31));
  const soupB = moved(triangleSoup(1500, rng(32)), 1.4, 0.2, -0.1);
  const sphere = uvSphere(1, 24, 32);
  writeOff(file('soup-a.off'), soupA);
  writeOff(file('soup-b.off'), soupB);
  writeOff(file('sphere.off'), sphere);
  writeOff(file('sphere-moved.off'), moved(sphere, 0.5, 0.25, 0));
  writeOff(file('cube.off'), moved(cube(0.4), 3, 0, 0));
  writeXyz(file('cloud.xyz'), uniform(800, 3, rng(33), 1.2, 0.6));

  it('--json prints one object with the documented keys; --min is the default', () => {
    const j = distanceJson([file('sphere.off'), file('cube.off')]);
    for (const key of ['schema_version', 'xhd_version', 'min_distance', 'min_pair', 'pose_b', 'a', 'b', 'method', 'backend', 'threads', 'device', 'timings_ms', 'notes']) {
      assert.ok(key in j, `missing key ${key}`);
    }
    assert.ok(!('max_distance' in j) && !('max_pair' in j) && !('frames' in j), 'keys of what was not asked for are absent');
    assert.equal(j.method, 'bvh');
    assert.deepEqual(j.a, { path: file('sphere.off'), format: 'off', points: sphere.positions.length / 3, dims: 3, triangles: sphere.triangles.length / 3, source: 'surface', bbox_diagonal: boxDiagonal(sphere.positions) });
    assert.equal(j.b.triangles, 12);
    assert.deepEqual(j.pose_b, [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]);
    // The cube's face x = 2.6 faces the sphere's vertex (1, 0, 0): 1.6 apart, up to float rounding.
    assert.ok(Math.abs(j.min_distance - 1.6) < 1e-6, `min ${j.min_distance}`);
    assert.deepEqual(Object.keys(j.min_pair), ['a_triangle', 'a_point', 'b_triangle', 'b_point', 'intersecting']);
    assert.equal(j.min_pair.intersecting, false);
    assertPairRealizes(j.min_pair, j.min_distance, 'min');
    for (const t of ['read', 'build', 'query', 'upload', 'download', 'total']) assert.ok(j.timings_ms[t] >= 0, `timing ${t}`);
    assert.ok(j.timings_ms.total >= j.timings_ms.read);

    const max = distanceJson([file('sphere.off'), file('cube.off'), '--max']);
    assert.ok('max_distance' in max && !('min_distance' in max) && !('min_pair' in max));
    assert.deepEqual(Object.keys(max.max_pair), ['a_triangle', 'a_point', 'b_triangle', 'b_point']);
  });

  it('bvh gives exactly the brute-force reference, for both distances', () => {
    const cases = [
      [file('soup-a.off'), file('soup-b.off')],
      [file('soup-a.off'), file('sphere.off')],
      [file('sphere.off'), file('cube.off')],
      [file('soup-a.off'), file('cloud.xyz')],
      [file('cloud.xyz'), file('sphere-moved.off')],
    ];
    for (const [a, b] of cases) {
      const fast = distanceJson([a, b, '--both', '--method', 'bvh']);
      const brute = distanceJson([a, b, '--both', '--method', 'brute', '--backend', 'cpu']);
      const what = `${a} ${b}`;
      assert.equal(brute.method, 'brute');
      assert.equal(fast.min_distance, brute.min_distance, `${what} min`);
      assert.equal(fast.max_distance, brute.max_distance, `${what} max`);
      assert.equal(fast.min_pair.intersecting, brute.min_pair.intersecting, `${what} intersecting`);
      for (const j of [fast, brute]) {
        assertPairRealizes(j.min_pair, j.min_distance, `${what} ${j.method} min`);
        assertPairRealizes(j.max_pair, j.max_distance, `${what} ${j.method} max`);
        assert.ok(j.max_distance >= j.min_distance);
      }
    }
    // Same answer with one thread as with all of them.
    const one = distanceJson([file('soup-a.off'), file('soup-b.off'), '--both', '--threads', '1', '--backend', 'cpu']);
    const all = distanceJson([file('soup-a.off'), file('soup-b.off'), '--both', '--backend', 'cpu']);
    assert.equal(one.threads, 1);
    assert.equal(one.min_distance, all.min_distance);
    assert.equal(one.max_distance, all.max_distance);
  });

  it('intersecting meshes give 0 with an intersecting pair', () => {
    for (const method of ['bvh', 'brute']) {
      for (const args of [[file('sphere.off'), file('sphere-moved.off')], [file('sphere.off'), file('sphere.off'), '--translate', '0.5,0.25,0']]) {
        const j = distanceJson([...args, '--method', method]);
        assert.equal(j.min_distance, 0, `${method} ${args.join(' ')}`);
        assert.equal(j.min_pair.intersecting, true);
        assert.ok(j.min_pair.a_triangle >= 0 && j.min_pair.b_triangle >= 0);
        assertPairRealizes(j.min_pair, 0, 'intersection point');
      }
    }
    const r = runXhd(['distance', file('sphere.off'), file('sphere-moved.off')]);
    assert.match(r.stdout, /^Minimum distance\s+0 \(intersecting\)\s+A triangle \d+ \(.+\) ↔ B triangle \d+ \(.+\)$/m);
  });

  it('--translate, --rotate and --transform-b equal a pre-posed file', () => {
    const quarter = composePose([0, -1, 0, 1, 0, 0, 0, 0, 1], [0.3, -0.2, 0.1]); // z,90 exactly, then a move
    const general = composePose(rotationAbout([1, 2, 3], 40), [-0.25, 0.5, 1.5]);
    const quaternion = poseFromValues([0.1, 0.2, -0.3, 0.9, 0.1, -0.3, 0.3 + 1e-7]); // normalised, any matrix
    const cases: [string[], ArrayLike<number>][] = [
      [['--translate', '-0.4,0.1,0.2'], [1, 0, 0, -0.4, 0, 1, 0, 0.1, 0, 0, 1, 0.2]],
      [['--rotate', 'z,90', '--translate', '0.3,-0.2,0.1'], quarter],
      [['--rotate', '1,2,3,40', '--translate', '-0.25,0.5,1.5'], general],
      [['--transform-b', matrixArgument(quaternion)], quaternion],
      [['--transform-b', '0.5,0,0,1, 0,2,0,0, 0,0,1,0, 0,0,0,1'], [0.5, 0, 0, 1, 0, 2, 0, 0, 0, 0, 1, 0]], // any affine map
    ];
    cases.forEach(([args, pose], i) => {
      const path = file(`posed-${i}.off`);
      writeOff(path, preposed(soupB, pose));
      const posed = distanceJson([file('soup-a.off'), file('soup-b.off'), '--both', ...args]);
      const reference = distanceJson([file('soup-a.off'), path, '--both']);
      assert.equal(posed.min_distance, reference.min_distance, `${args.join(' ')} min`);
      assert.equal(posed.max_distance, reference.max_distance, `${args.join(' ')} max`);
      assert.deepEqual(posed.pose_b.flat(), Array.from(pose), 'pose_b reports the pose used');
      const brute = distanceJson([file('soup-a.off'), file('soup-b.off'), '--both', '--method', 'brute', ...args]);
      assert.equal(brute.min_distance, reference.min_distance, `${args.join(' ')} brute min`);
      assert.equal(brute.max_distance, reference.max_distance, `${args.join(' ')} brute max`);
    });
    // --rotate alone rotates about the origin: a quarter turn about z of the cube at (3, 0, 0) puts it at (0, 3, 0).
    const turned = distanceJson([file('sphere.off'), file('cube.off'), '--rotate', 'z,90', '--max']);
    assert.ok(turned.max_pair.b_point[1] > 3, `B after the turn: ${turned.max_pair.b_point}`);
  });

  it('--frames equals separate single-pose runs, on one context', () => {
    const quaternionRow = [0.2, -0.1, 0.3, 0.5, 0.5, -0.5, 0.5];
    const rows = [
      '1,0,0,0, 0,1,0,0, 0,0,1,0',
      quaternionRow.join(' '),
      '0 -1 0 0.2   1 0 0 -0.3   0 0 1 0.25   0 0 0 1',
      [...composePose(rotationAbout([0, 1, 1], -75), [1, 1, 0])].map(String).join(','),
      '-1.3 -0.2 0.1 1 0 0 0', // B over A: they intersect
    ];
    const framesPath = file('poses.csv');
    writeFileSync(framesPath, `tx,ty,tz,qw,qx,qy,qz\n# one pose a line\n\n${rows.join('\n')}\n`);
    const j = distanceJson([file('soup-a.off'), file('soup-b.off'), '--both', '--frames', framesPath]);
    assert.equal(j.frames.length, rows.length);
    assert.ok(!('pose_b' in j));
    assert.equal(j.frames_file, framesPath);
    for (const [i, f] of j.frames.entries()) {
      assert.equal(f.frame, i);
      assert.equal(f.line, i + 4);
      const values = rows[i].split(/[\s,]+/).map(Number);
      const single = distanceJson([file('soup-a.off'), file('soup-b.off'), '--both', '--transform-b', matrixArgument(poseFromValues(values))]);
      assert.equal(f.min_distance, single.min_distance, `frame ${i} min`);
      assert.equal(f.max_distance, single.max_distance, `frame ${i} max`);
      assert.deepEqual(f.min_pair, single.min_pair, `frame ${i} min pair`);
      assert.deepEqual(f.max_pair, single.max_pair, `frame ${i} max pair`);
      assert.ok(f.query_ms >= 0);
    }
    assert.equal(j.frames[4].min_distance, 0);
    assert.equal(j.frames[4].min_pair.intersecting, true);

    const s = j.frames_summary;
    const mins = j.frames.map((f: { min_distance: number }) => f.min_distance);
    const maxes = j.frames.map((f: { max_distance: number }) => f.max_distance);
    const times = j.frames.map((f: { query_ms: number }) => f.query_ms);
    assert.equal(s.frames, rows.length);
    assert.equal(s.min_distance, Math.min(...mins));
    assert.equal(s.max_distance, Math.max(...maxes));
    assert.equal(s.min_frame, mins.indexOf(s.min_distance));
    assert.equal(s.max_frame, maxes.indexOf(s.max_distance));
    assert.equal(j.min_distance, s.min_distance, 'the top-level distances are the extremes over the frames');
    assert.equal(j.max_distance, s.max_distance);
    assert.equal(s.query_ms.max, Math.max(...times));
    assert.ok(s.query_ms.p50 <= s.query_ms.p95 && s.query_ms.p95 <= s.query_ms.max);
    assert.ok(Math.abs(s.query_ms.mean - times.reduce((x: number, y: number) => x + y, 0) / times.length) < 1e-9);
    assert.ok(Math.abs(j.timings_ms.query - times.reduce((x: number, y: number) => x + y, 0)) < 1e-9);

    // The human report: a line per frame, then the summary.
    const r = runXhd(['distance', file('soup-a.off'), file('soup-b.off'), '--frames', framesPath, '--max']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /\r|█/, 'no progress bar when stderr is not a terminal');
    assert.ok(r.stderr.split('\n').every((l) => l === '' || l.startsWith('xhd: note: ')), r.stderr);
    const frameLines = r.stdout.split('\n').filter((l) => /^\s+\d+\s+\d+\s+\S+\s+\S+ ms$/.test(l));
    assert.equal(frameLines.length, rows.length, r.stdout);
    assert.match(r.stdout, /^5 frames\s+query mean .+ · p50 .+ · p95 .+ · max .+$/m);
    assert.match(r.stdout, /^Maximum distance\s+\S+ \(frame \d\)/m);
    assert.doesNotMatch(r.stdout, /Minimum distance/);
  });

  it('the human report leads with the distances, then the inputs and timings; notes go to stderr', () => {
    const r = runXhd(['distance', file('soup-a.off'), file('cloud.xyz'), '--both', '--rotate', 'x,30']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /^Minimum distance\s+\S+\s+A triangle \d+ \(.+\) ↔ B point \d+ \(.+\)$/);
    assert.match(lines[1], /^Maximum distance\s+\S+\s+A triangle \d+ \(.+\) ↔ B point \d+ \(.+\)$/);
    assert.match(r.stdout, /A {2}.*soup-a\.off {2}OFF {2}.* vertices {2}1,500 triangles {2}3D/);
    assert.match(r.stdout, /B {2}.*cloud\.xyz {2}XYZ {2}800 points \(point cloud\) {2}3D/);
    assert.match(r.stdout, /pose B \[M \| t\] {2}1 0 0 0; 0 0\.8660254038 -0\.5 0; 0 0\.5 0\.8660254038 0/);
    assert.match(r.stdout, /time {3}read .+ · build .+ · query .+ · total .+/);
    assert.doesNotMatch(r.stdout, /\x1b\[/, 'no colour when not a terminal');
    assert.match(r.stderr, /^xhd: note: B has no faces: its 800 points are measured as a point cloud/);
    const j = distanceJson([file('soup-a.off'), file('cloud.xyz')]);
    assert.equal(j.b.source, 'points');
    assert.ok(j.notes.some((n: string) => /B has no faces/.test(n)));
  });

  it('text inputs at survey coordinates measure exactly what they measure at the origin, over their doubles', () => {
    // Vertices on a 2^-30 grid: the files at the origin and at survey coordinates hold the same shapes.
    const a = onDyadicGrid(uvSphere(1, 24, 32)), b = onDyadicGrid(moved(uvSphere(0.4, 12, 16), 1.45, 0.013, 0.021));
    writeOff(file('near-a.off'), a);
    writeOff(file('near-b.off'), b);
    writeOff(file('survey-a.off'), shiftedBy(a, SURVEY));
    writeOff(file('survey-b.off'), shiftedBy(b, SURVEY));
    const here = distanceJson([file('near-a.off'), file('near-b.off'), '--both']);
    const there = distanceJson([file('survey-a.off'), file('survey-b.off'), '--both']);
    const brute = distanceJson([file('survey-a.off'), file('survey-b.off'), '--both', '--method', 'brute', '--backend', 'cpu']);
    const tolerance = 1e-9 * 2.5; // of the scene's extent
    for (const which of ['min', 'max']) {
      const [p, q] = [here[`${which}_pair`], there[`${which}_pair`]];
      assert.ok(Math.abs(here[`${which}_distance`] - there[`${which}_distance`]) <= tolerance, `${which}: ${here[`${which}_distance`]} vs ${there[`${which}_distance`]}`);
      assert.equal(q.a_triangle, p.a_triangle, `${which}: triangle of A`);
      assert.equal(q.b_triangle, p.b_triangle, `${which}: triangle of B`);
      for (let k = 0; k < 3; k++) {
        assert.ok(Math.abs(q.a_point[k] - SURVEY[k] - p.a_point[k]) <= tolerance, `${which}: the point on A in the file's coordinates`);
        assert.ok(Math.abs(q.b_point[k] - SURVEY[k] - p.b_point[k]) <= tolerance, `${which}: the point on B in the file's coordinates`);
      }
      assert.equal(there[`${which}_distance`], brute[`${which}_distance`], `${which}: bvh equals the brute force over the doubles`);
      assert.deepEqual(there[`${which}_pair`], brute[`${which}_pair`], `${which}: the same pair and points`);
    }
  });

  it('--frames at survey coordinates: every frame equals the brute force and a pre-posed text file', () => {
    const a = shiftedBy(uvSphere(1, 24, 32), SURVEY), b = shiftedBy(moved(uvSphere(0.4, 12, 16), 1.45, 0.013, 0.021), SURVEY);
    writeOff(file('frames-a.off'), a);
    writeOff(file('frames-b.off'), b);
    const centre = [SURVEY[0] + 1.45, SURVEY[1] + 0.013, SURVEY[2] + 0.021];
    const poses = [turnAbout(centre, 0), turnAbout(centre, 25, [0.02, 0, 0]), turnAbout(centre, -60, [-0.01, 0.03, 0.005]), turnAbout(centre, 170, [0.05, -0.02, 0])];
    const framesPath = file('survey-poses.txt');
    writeFileSync(framesPath, poses.map((pose) => [...pose].map(String).join(' ')).join('\n') + '\n');
    const args = [file('frames-a.off'), file('frames-b.off'), '--both', '--frames', framesPath];
    const fast = distanceJson(args);
    const brute = distanceJson([...args, '--method', 'brute', '--backend', 'cpu']);
    for (const [i, f] of fast.frames.entries()) {
      assert.equal(f.min_distance, brute.frames[i].min_distance, `frame ${i} min`);
      assert.equal(f.max_distance, brute.frames[i].max_distance, `frame ${i} max`);
      assert.deepEqual([f.min_pair, f.max_pair], [brute.frames[i].min_pair, brute.frames[i].max_pair], `frame ${i} pairs`);
      assert.ok(f.min_pair.b_point[1] > 4.19e6, `frame ${i}: points in the file's coordinates`);
    }
    for (const i of [1, 3]) {
      const path = file(`survey-posed-${i}.off`);
      writeOff(path, preposed64(b, poses[i]));
      const single = distanceJson([file('frames-a.off'), path, '--both']);
      assert.equal(single.min_distance, fast.frames[i].min_distance, `frame ${i}: pre-posed min`);
      assert.equal(single.max_distance, fast.frames[i].max_distance, `frame ${i}: pre-posed max`);
      assert.deepEqual([single.min_pair, single.max_pair], [fast.frames[i].min_pair, fast.frames[i].max_pair], `frame ${i}: pre-posed pairs`);
    }
  });

  it('2D inputs lie in the plane z = 0', () => {
    writeFileSync(file('square.csv'), 'x,y\n0,0\n1,0\n1,1\n0,1\n');
    writeFileSync(file('far.csv'), 'x,y\n4,5\n');
    const j = distanceJson([file('square.csv'), file('far.csv'), '--both']);
    assert.equal(j.min_distance, 5); // (1,1) to (4,5)
    assert.equal(j.max_distance, Math.hypot(4, 5));
    assert.deepEqual(j.min_pair.a_point, [1, 1, 0]);
    assert.equal(j.a.dims, 2);
    assert.ok(j.notes.some((n: string) => /A is 2D/.test(n)));
    const lifted = distanceJson([file('square.csv'), file('far.csv'), '--translate', '0,0,12']);
    assert.equal(lifted.min_distance, 13);
  });
});

describe('xhd distance errors', () => {
  const dir = scratchDir();
  const a = join(dir, 'a.off'), b = join(dir, 'b.off');
  writeOff(a, cube(1));
  writeOff(b, moved(cube(1), 5));
  const identity16 = '1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1';

  function assertUsageError(args: string[], pattern: RegExp) {
    const r = runXhd(['distance', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.ok(!hasStackTrace(r.stderr), r.stderr);
  }

  function framesFile(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  it('bad poses on the command line exit 2', () => {
    assertUsageError([a, b, '--transform-b', '1,0,0,0,0,1,0,0,0,0,1,0'], /--transform-b .*expected 16 numbers .*found 12/);
    assertUsageError([a, b, '--transform-b', '1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,x'], /--transform-b .*'x' is not a number/);
    assertUsageError([a, b, '--transform-b', '1,0,0,0,0,1,0,0,0,0,1,0,1,0,0,1'], /--transform-b .*last row of a 4×4 matrix must be 0,0,0,1, found 1,0,0,1/);
    assertUsageError([a, b, '--rotate', 'w,30'], /--rotate .*unknown axis 'w'/);
    assertUsageError([a, b, '--rotate', '0,0,0,30'], /--rotate .*non-zero vector/);
    assertUsageError([a, b, '--rotate', 'z'], /--rotate .*expected axis,degrees/);
    assertUsageError([a, b, '--translate', '1,2'], /--translate .*expected 3 numbers x,y,z, found 2/);
  });

  it('conflicting options exit 2', () => {
    assertUsageError([a, b, '--transform-b', identity16, '--translate', '1,2,3'], /--transform-b .* cannot be used with option '--translate/);
    assertUsageError([a, b, '--rotate', 'z,10', '--transform-b', identity16], /--transform-b .* cannot be used with option '--rotate|--rotate .* cannot be used with option '--transform-b/);
    const ok = framesFile('ok.csv', '0 0 0 1 0 0 0\n');
    assertUsageError([a, b, '--frames', ok, '--rotate', 'z,10'], /--frames .* cannot be used with option '--rotate/);
    assertUsageError([a, b, '--frames', ok, '--transform-b', identity16], /--frames .* cannot be used with option '--transform-b/);
    assertUsageError([a, b, '--frames', ok, '--translate', '0,0,1'], /--frames .* cannot be used with option '--translate/);
    assertUsageError([a, b, '--method', 'grid'], /Allowed choices are bvh, brute/);
    assertUsageError([a, b, '--method', 'brute', '--backend', 'cuda'], /brute method is the CPU reference/);
    assertUsageError([a], /missing required argument 'b'/);
  });

  it('a bad frames file exits 2 naming the file and the line', () => {
    const bad = framesFile('poses.csv', 'tx ty tz qw qx qy qz\n0 0 0 1 0 0 0\n# ok so far\n\n0 0 1 1 0 0 0\n\n1,2,3,4,5\n');
    assertUsageError([a, b, '--frames', bad], /^xhd: .*poses\.csv:7: expected 7, 12 or 16 numbers, found 5\n$/);
    assertUsageError([a, b, '--frames', framesFile('nan.csv', '0 0 0 1 0 0 nan\n')], /nan\.csv:1: 'nan' is not a number/);
    assertUsageError([a, b, '--frames', framesFile('norm.csv', '0 0 0 1 1 0 0\n')], /norm\.csv:1: the quaternion .* has norm 1\.414/);
    assertUsageError([a, b, '--frames', framesFile('row.csv', `${identity16.replace(/1$/, '2')}\n`)], /row\.csv:1: the last row/);
    assertUsageError([a, b, '--frames', framesFile('empty.csv', '# nothing\n')], /empty\.csv: has no poses/);
    assertUsageError([a, b, '--frames', join(dir, 'missing.csv')], /missing\.csv: no such file/);
  });

  it('bad inputs exit 2', () => {
    assertUsageError([join(dir, 'missing.off'), b], /missing\.off: no such file/);
    const empty = framesFile('empty.xyz', '# no points\n');
    assertUsageError([a, empty], /empty\.xyz: has no points/);
    const broken = framesFile('broken.off', 'OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n');
    assertUsageError([broken, b], /broken\.off:6: .*/);
  });

  it('--help lists the pose options with examples', () => {
    const h = runXhd(['distance', '--help']);
    assert.equal(h.code, 0);
    for (const option of ['--min', '--max', '--both', '--transform-b <matrix>', '--translate <x,y,z>', '--rotate <axis,deg>', '--frames <file>', '--json']) {
      assert.ok(h.stdout.includes(option), option);
    }
    assert.match(h.stdout, /Examples:/);
    assert.match(runXhd(['--help']).stdout, /xhd distance/);
  });
});
