// `xhd compare A B --memory-limit SIZE` on the CPU backend with binary PLY point clouds that need more memory
// than SIZE: streamed from the files in slabs and tiles (xhd_points_compare_files), with the in-memory
// answer bit for bit (distances, witnesses, their points); options that need every point in memory refused
// with the reason; a bad record named as the whole-file reader names it.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { runXhd, scratchDir } from './cli-run.js';
import { rng, uniform } from './random-points.js';

const dir = scratchDir();

/** A binary little-endian PLY point cloud (an int id before x, y, z; z left out for 2D). */
function writePointPly(name: string, xyz: ArrayLike<number>, options: { double?: boolean; twoD?: boolean } = {}): string {
  const type = options.double ? 'double' : 'float', width = options.double ? 8 : 4;
  const axes = options.twoD ? ['x', 'y'] : ['x', 'y', 'z'];
  const n = xyz.length / 3;
  const header = ['ply', 'format binary_little_endian 1.0', `element vertex ${n}`, 'property int id',
    ...axes.map((p) => `property ${type} ${p}`), 'end_header', ''].join('\n');
  const stride = 4 + axes.length * width;
  const body = Buffer.alloc(n * stride);
  for (let i = 0; i < n; i++) {
    body.writeInt32LE(i, i * stride);
    axes.forEach((_, k) => (options.double ? body.writeDoubleLE(xyz[3 * i + k], i * stride + 4 + 8 * k) : body.writeFloatLE(xyz[3 * i + k], i * stride + 4 + 4 * k)));
  }
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([Buffer.from(header, 'latin1'), body]));
  return path;
}

function shifted(p: Float32Array, dx: number): Float32Array {
  const q = p.slice();
  for (let i = 0; i < q.length; i += 3) q[i] += dx;
  return q;
}

const ANSWER_KEYS = ['hd', 'hd_ab', 'hd_ba', 'witness_ab', 'witness_ba', 'bbox_diagonal'];

function compareJson(a: string, b: string, extra: string[] = []) {
  const run = runXhd(['compare', a, b, '--backend', 'cpu', '--json', ...extra]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('compare --memory-limit streams binary PLY point clouds from the files (CPU)', () => {
  const cloud = uniform(30_000, 3, rng(301));
  const cases: Array<[string, string, string]> = [
    ['float32, overlapping', writePointPly('a.ply', cloud), writePointPly('b.ply', shifted(cloud, 0.004))],
    ['doubles', writePointPly('a64.ply', cloud, { double: true }), writePointPly('b64.ply', uniform(20_000, 3, rng(302)), { double: true })],
    ['2D', writePointPly('a2.ply', uniform(30_000, 2, rng(303)), { twoD: true }), writePointPly('b2.ply', uniform(25_000, 2, rng(304)), { twoD: true })],
  ];
  for (const [label, a, b] of cases) {
    it(`${label}: the in-memory answer, witnesses and their points included`, () => {
      const whole = compareJson(a, b);
      assert.equal(whole.streamed, undefined);
      const streamed = compareJson(a, b, ['--memory-limit', '1M']);
      assert.ok(streamed.streamed.slabs > 1, `slabs ${streamed.streamed.slabs}`);
      for (const key of ANSWER_KEYS) assert.deepEqual(streamed[key], whole[key], `${label}: ${key}`);
      const directed = compareJson(a, b, ['--memory-limit', '1M', '--directed']);
      assert.deepEqual([directed.hd, directed.witness_ab], [whole.hd_ab, whole.witness_ab]);
    });
  }

  it('says so in the text output; a limit the inputs fit is read whole, with a note', () => {
    const [, a, b] = cases[0];
    const run = runXhd(['compare', a, b, '--backend', 'cpu', '--memory-limit', '1M']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /streamed from the files within --memory-limit 1\.00 MiB: \d+ slabs, \d+ passes over the files/);
    const roomy = compareJson(a, b, ['--memory-limit', '1G']);
    assert.equal(roomy.streamed, undefined);
    assert.ok(roomy.notes.some((n: string) => /these were read whole/.test(n)), roomy.notes.join('\n'));
  });

  it('options that need every point in memory are refused with the reason (exit 2)', () => {
    const [, a, b] = cases[0];
    for (const [extra, why] of [[['--stats'], /statistics/], [['--method', 'eb'], /--method eb runs in memory/]] as const) {
      const run = runXhd(['compare', a, b, '--backend', 'cpu', '--memory-limit', '1M', ...extra]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /need about [\d.]+ MiB in memory, more than --memory-limit 1\.00 MiB/);
      assert.match(run.stderr, why);
    }
  });

  it('a bad record is named by file and byte, as when the file is read whole', () => {
    const bad = uniform(30_000, 3, rng(305));
    bad[3 * 12_345 + 2] = Number.NaN;
    const path = writePointPly('bad.ply', bad);
    const [, a] = cases[0];
    const whole = runXhd(['compare', a, path, '--backend', 'cpu', '--quiet']);
    const streamed = runXhd(['compare', a, path, '--backend', 'cpu', '--quiet', '--memory-limit', '1M']);
    assert.equal(whole.code, 2, whole.stderr);
    assert.equal(streamed.code, 2, streamed.stderr);
    assert.match(streamed.stderr, /bad\.ply \(byte \d+\): non-finite coordinate \(NaN\) in vertex 12345/);
    assert.equal(streamed.stderr, whole.stderr);
    assert.equal(streamed.stdout, '');
  });
});
