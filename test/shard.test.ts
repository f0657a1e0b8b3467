// Shard arithmetic (--shard I/N, the batch's dealt pairs, the compare's contiguous slices), the job
// schedulers' environment (Slurm job arrays, Kubernetes indexed Jobs), the run id and the merge checks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { UsageError, ValueSyntaxError } from '../src/core/errors.js';
import { dealtIndices, parseShard, shardFromEnvironment, sliceOf } from '../src/core/shard.js';
import { canonicalJson, runId } from '../src/jobs/shard-run.js';
import { checkParts, type PartIdentity } from '../src/jobs/merge-check.js';

describe('--shard I/N', () => {
  it('parses shard I of N, I from 0', () => {
    assert.deepEqual(parseShard('0/1'), { index: 0, count: 1 });
    assert.deepEqual(parseShard(' 3 / 4 '), { index: 3, count: 4 });
  });
  it('refuses what names no shard', () => {
    for (const bad of ['4/4', '1/0', '0/0', '-1/4', '1.5/4', '1', '1/4/2', 'a/b', '', '0/1000001']) {
      assert.throws(() => parseShard(bad), ValueSyntaxError, bad);
    }
  });
});

describe('the pairs a batch shard is dealt', () => {
  it('is every N-th from I, and the shards together hold every pair once', () => {
    assert.deepEqual(dealtIndices(10, { index: 1, count: 4 }), [1, 5, 9]);
    assert.deepEqual(dealtIndices(3, { index: 3, count: 4 }), []);
    for (const total of [0, 1, 7, 100]) {
      for (const count of [1, 2, 3, 8, 150]) {
        const all = Array.from({ length: count }, (_, index) => dealtIndices(total, { index, count })).flat().sort((x, y) => x - y);
        assert.deepEqual(all, Array.from({ length: total }, (_, i) => i), `${total} in ${count}`);
      }
    }
  });
});

describe("a compare shard's slice", () => {
  it('tiles the points in shard order, each within one point of total / count', () => {
    for (const total of [0, 1, 2, 5, 999, 1_000_003]) {
      for (const count of [1, 2, 3, 4, 7, 64]) {
        let next = 0;
        for (let index = 0; index < count; index++) {
          const { start, end } = sliceOf(total, { index, count });
          assert.equal(start, next, `${total} in ${count}: slice ${index} starts where the last ended`);
          assert.ok(end >= start);
          assert.ok(Math.abs(end - start - total / count) < 1, `${total} in ${count}: slice ${index} is ${end - start}`);
          next = end;
        }
        assert.equal(next, total);
      }
    }
  });
  it('is exact for billions of points', () => {
    const total = 10_000_000_007;
    assert.deepEqual(sliceOf(total, { index: 2, count: 3 }), { start: 6_666_666_671, end: total });
    assert.throws(() => sliceOf(2 ** 52, { index: 0, count: 4 }), RangeError);
  });
});

describe("the job scheduler's environment", () => {
  it('is nothing when no scheduler variable is set', () => {
    assert.equal(shardFromEnvironment({}), null);
    assert.equal(shardFromEnvironment({ SLURM_JOB_ID: '7', XHD_SHARD_COUNT: '4' }), null);
  });
  it('reads a Slurm job array, numbering its IDs from the first', () => {
    assert.deepEqual(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '2', SLURM_ARRAY_TASK_COUNT: '4', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_MAX: '3' }),
      { index: 2, count: 4, from: 'SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_COUNT=4' });
    // --array=1-4: IDs 1 to 4 are shards 0 to 3
    assert.equal(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '4', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '4' })!.index, 0);
    // --array=0-6:2: IDs 0, 2, 4, 6
    const stepped = shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_COUNT: '4', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_MAX: '6', SLURM_ARRAY_TASK_STEP: '2' })!;
    assert.deepEqual([stepped.index, stepped.count], [2, 4]);
    assert.match(stepped.from, /SLURM_ARRAY_TASK_STEP=2/);
  });
  it('refuses a Slurm array whose IDs are not evenly spaced, or half set', () => {
    // --array=1,4,9
    assert.throws(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_COUNT: '3', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '9' }), /not 3 evenly spaced IDs.*--array=0-2/);
    assert.throws(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '2' }), (e: Error) => e instanceof UsageError && /SLURM_ARRAY_TASK_COUNT/.test(e.message));
    assert.throws(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: 'two', SLURM_ARRAY_TASK_COUNT: '4' }), /SLURM_ARRAY_TASK_ID=two is not a whole number/);
    assert.throws(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_COUNT: '4' }), /does not name a shard/);
  });
  it('reads a Kubernetes indexed Job, whose count comes in XHD_SHARD_COUNT', () => {
    assert.deepEqual(shardFromEnvironment({ JOB_COMPLETION_INDEX: '5', XHD_SHARD_COUNT: '8' }), { index: 5, count: 8, from: 'JOB_COMPLETION_INDEX=5, XHD_SHARD_COUNT=8' });
    assert.throws(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '5' }), /not XHD_SHARD_COUNT: set it to the Job's completions/);
    assert.throws(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: '8', XHD_SHARD_COUNT: '8' }), /does not name a shard/);
  });
  it('prefers Slurm when both are set (a Slurm job inside a pod is still a Slurm job)', () => {
    assert.equal(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '2', JOB_COMPLETION_INDEX: '0', XHD_SHARD_COUNT: '2' })!.index, 1);
  });
});

describe('the run id', () => {
  it('is the same for the same description in any key order, and differs with the shard count or any value', () => {
    assert.equal(canonicalJson({ b: 1, a: [Infinity, { d: undefined, c: NaN }] }), '{"a":["Infinity",{"c":"NaN"}],"b":1}');
    const id = runId({ a: 1, b: 'x' }, 4);
    assert.match(id, /^[0-9a-f]{20}$/);
    assert.equal(runId({ b: 'x', a: 1 }, 4), id);
    assert.notEqual(runId({ a: 1, b: 'x' }, 3), id);
    assert.notEqual(runId({ a: 2, b: 'x' }, 4), id);
  });
});

describe('the merge checks', () => {
  const part = (file: string, index: number, extra: Partial<PartIdentity> = {}): PartIdentity => ({ file, kind: 'compare', runId: 'r1', shard: { index, count: 3 }, ...extra });
  it('pass every shard of one run, in any order', () => {
    assert.doesNotThrow(() => checkParts([part('p2', 2), part('p0', 0), part('p1', 1)]));
  });
  it('refuse parts of different runs, naming both files and runs', () => {
    assert.throws(() => checkParts([part('p0', 0), part('p1', 1, { runId: 'r2' }), part('p2', 2)]), (e: Error) => e instanceof UsageError && /p0 and p1 are parts of different runs: run r1 and run r2 \(different inputs or options\)/.test(e.message));
    assert.throws(() => checkParts([part('p0', 0), part('q1', 1, { runId: 'r2', shard: { index: 1, count: 4 } })]), /\(3 shards against 4\)/);
  });
  it('refuse a shard given twice, a failed shard, missing shards, mixed kinds, nothing', () => {
    assert.throws(() => checkParts([part('p0', 0), part('p1', 1), part('again', 1), part('p2', 2)]), /shard 1 of 3 is given twice: p1 and again/);
    assert.throws(() => checkParts([part('p0', 0), part('p1', 1, { failed: 'interrupted' }), part('p2', 2)]), /shard failed: shard 1 \(p1: interrupted\)/);
    assert.throws(() => checkParts([part('p1', 1)]), /missing shards 0, 2 of 3 \(run r1\)/);
    assert.throws(() => checkParts([part('p0', 0), part('b1', 1, { kind: 'batch' })]), /p0 is a compare part but b1 is a batch part/);
    assert.throws(() => checkParts([]), /no parts/);
  });
});
