// --devices and --memory-limit without a GPU: the split of each direction's queries among workers and the merge
// of what they found, run by the CPU backend on groups of threads exactly as the CUDA backend runs it on
// devices (xhd_points_compare_placed), give one worker's answers bit for bit; the options' values are checked
// (exit 2 naming the value), and a worker that fails mid-run fails the run with exit 3 naming it, with no
// result printed.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { pointsSearch } from '../src/ops/points-search.js';
import { resolvePlacement } from '../src/ops/placement.js';
import { loadBackend } from '../src/native/library.js';
import { UsageError } from '../src/core/errors.js';
import { parseByteSize, parseDevices } from '../src/cli/option-parsers.js';
import { rng, uniform, withDuplicates } from './random-points.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz } from './cli-run.js';

function widen(p: Float32Array): Float64Array {
  const out = new Float64Array(p.length);
  for (let i = 0; i < p.length; i++) out[i] = p[i] * 1.000001 + 1e5;  // doubles that are not float32 copies
  return out;
}

describe('a compare split among CPU worker groups', () => {
  const r = rng(71);
  const a = withDuplicates(uniform(10_000, 3, r), 2, r);
  const b = uniform(15_000, 3, r, 0.2);
  b.set(a.subarray(0, 3 * 400), 0);  // exact ties between the sets
  for (const [label, x, y] of [['float32', a, b], ['double', widen(a), widen(b)]] as const) {
    for (const method of ['grid', 'eb'] as const) {
      it(`${label}, ${method}: every worker count gives one worker's per-point values and witnesses`, async () => {
        const one = await pointsSearch(x, y, { backend: 'cpu', method, threads: 4, distances: true, nearest: true });
        for (const devices of [[0, 0], [0, 0, 0], [0, 0, 0, 0, 0, 0, 0]]) {
          const many = await pointsSearch(x, y, { backend: 'cpu', method, threads: 4, distances: true, nearest: true, devices });
          assert.equal(many.placement.workers, devices.length);
          assert.deepEqual([many.ab.distance, many.ab.fromIndex, many.ab.toIndex, many.ba!.distance, many.ba!.fromIndex, many.ba!.toIndex],
            [one.ab.distance, one.ab.fromIndex, one.ab.toIndex, one.ba!.distance, one.ba!.fromIndex, one.ba!.toIndex]);
          assert.deepEqual(many.perPoint, one.perPoint);
        }
      });
    }
    it(`${label}: without per-point outputs, the pruned search's witnesses`, async () => {
      const plain = await pointsSearch(x, y, { backend: 'cpu', threads: 4 });
      const many = await pointsSearch(x, y, { backend: 'cpu', threads: 4, devices: [0, 0, 0] });
      assert.equal(many.perPoint, null);
      assert.deepEqual([many.hd, many.ab.fromIndex, many.ab.toIndex, many.ba!.fromIndex, many.ba!.toIndex],
        [plain.hd, plain.ab.fromIndex, plain.ab.toIndex, plain.ba!.fromIndex, plain.ba!.toIndex]);
    });
  }

  it('directed: B → A is neither measured nor reported', async () => {
    const one = await pointsSearch(a, b, { backend: 'cpu', directed: true, distances: true });
    const many = await pointsSearch(a, b, { backend: 'cpu', directed: true, distances: true, devices: [0, 0] });
    assert.equal(many.ba, null);
    assert.deepEqual(many.perPoint, one.perPoint);
    assert.equal(many.ab.fromIndex, one.ab.fromIndex);
  });
});

describe('--devices and --memory-limit values', () => {
  it('parse: all, ordinal lists with repeats, sizes with binary units', () => {
    assert.equal(parseDevices('all'), 'all');
    assert.deepEqual(parseDevices('0,1, 3'), [0, 1, 3]);
    assert.deepEqual(parseDevices('0,0'), [0, 0]);
    for (const bad of ['', 'x', '0,,1', '-1', '1.5', '0,2000']) assert.throws(() => parseDevices(bad), { name: 'InvalidArgumentError' });
    assert.equal(parseByteSize('4M'), 4 * 2 ** 20);
    assert.equal(parseByteSize('2G'), 2 * 2 ** 30);
    assert.equal(parseByteSize('512KiB'), 512 * 1024);
    assert.equal(parseByteSize('1.5g'), 1.5 * 2 ** 30);
    assert.equal(parseByteSize('1000'), 1000);
    for (const bad of ['0', '', 'M', '4Q', '-1G', '1e9']) assert.throws(() => parseByteSize(bad), { name: 'InvalidArgumentError' });
  });

  it('a placement is checked before the native call', () => {
    const cpu = loadBackend('cpu');
    assert.equal(resolvePlacement(cpu, undefined, undefined), null);
    assert.deepEqual(resolvePlacement(cpu, [0, 0], 1024)?.devices, [0, 0]);
    assert.throws(() => resolvePlacement(cpu, 'all', undefined), (e: unknown) => e instanceof UsageError && /no devices/.test((e as Error).message));
    assert.throws(() => resolvePlacement(cpu, [], undefined), UsageError);
    assert.throws(() => resolvePlacement(cpu, [0, -1], undefined), UsageError);
    assert.throws(() => resolvePlacement(cpu, [0], -5), UsageError);
  });
});

describe('xhd compare --devices on the command line', () => {
  const dir = scratchDir();
  const r = rng(72);
  const pa = join(dir, 'a.xyz'), pb = join(dir, 'b.xyz');
  writeXyz(pa, uniform(30_000, 3, r));
  writeXyz(pb, uniform(20_000, 3, r, 0.3));

  it('bad values are usage errors (exit 2) naming the value, with no stack trace', () => {
    for (const [flag, value] of [['--devices', 'one'], ['--devices', '0,-1'], ['--memory-limit', '0'], ['--memory-limit', '4Q']]) {
      const run = runXhd(['compare', pa, pb, flag, value, '--backend', 'cpu', '--quiet']);
      assert.equal(run.code, 2, `${flag} ${value}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.ok(!hasStackTrace(run.stderr));
      assert.equal(run.stdout, '');
    }
    const all = runXhd(['compare', pa, pb, '--devices', 'all', '--backend', 'cpu', '--quiet']);
    assert.equal(all.code, 2, all.stderr);
    assert.match(all.stderr, /no devices/);
  });

  it('the JSON names the workers and equals the run without --devices', () => {
    const plain = runXhd(['compare', pa, pb, '--backend', 'cpu', '--json', '--stats']);
    const split = runXhd(['compare', pa, pb, '--backend', 'cpu', '--json', '--stats', '--devices', '0,0,0']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(split.code, 0, split.stderr);
    const p = JSON.parse(plain.stdout), s = JSON.parse(split.stdout);
    assert.deepEqual(s.devices, [0, 0, 0]);
    assert.equal(s.workers, 3);
    assert.equal(s.target_tiles, 1);
    assert.equal(p.devices, undefined);
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'witness_ab', 'witness_ba', 'mean_ab', 'mean_ba', 'hd95']) assert.deepEqual(s[key], p[key], key);
  });

  it('a worker that fails mid-run fails the run (exit 3) naming it, and prints no result', () => {
    const out = join(dir, 'failed.csv');
    writeFileSync(out, 'before\n');
    const run = runXhd(['compare', pa, pb, '--backend', 'cpu', '--json', '--devices', '0,0,0', '--export', out], { XHD_TEST_FAIL_WORKER: '1' });
    assert.equal(run.code, 3, run.stderr);
    assert.match(run.stderr, /CPU worker group \(worker 2 of 3\) failed: fault injected/);
    assert.equal(run.stdout, '');
    assert.ok(!hasStackTrace(run.stderr));
    assert.equal(readFileSync(out, 'utf8'), 'before\n');  // no partial export
  });
});
