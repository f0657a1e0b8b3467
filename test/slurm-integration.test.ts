// Sharding on a real Slurm: a one-node cluster on localhost (test/slurm-cluster.ts) runs the examples'
// job scripts as `sbatch --array=0-3 --wait`, a batch and a sharded compare, each task finding its shard in
// the job array's environment; `xhd merge` of the tasks' outputs must equal the unsharded runs. Skipped, with
// the reason, where Slurm is not installed (.ci/run installs Debian's slurm-wlm and munge when it can).
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';

import { repoRoot, xhdBin } from './helpers.js';
import { runXhd, writeXyz, type RunResult } from './cli-run.js';
import { rng, uniform } from './random-points.js';
import { LocalSlurm, slurmUnavailable } from './slurm-cluster.js';
import { suiteUnless } from './skippable-suite.js';

const RUN_KEYS = ['timings_ms', 'notes', 'backend', 'threads', 'device', 'peak_device_memory_bytes', 'query_chunks', 'coordinate_origin'];

/** The answer without what describes how it was run; each JSON Lines line, or the one (indented) object. */
function answers(r: RunResult, jsonLines = true): unknown[] {
  return (jsonLines ? r.stdout.trim().split('\n') : [r.stdout]).map((text) => {
    const o = JSON.parse(text);
    for (const key of RUN_KEYS) delete o[key];
    if (o.summary) {
      delete o.summary.total_ms;
      delete o.summary.shards;
    }
    return o;
  });
}

suiteUnless(slurmUnavailable(), 'sharded runs on a one-node Slurm cluster', () => {
  let cluster: LocalSlurm;
  let data: string;
  const env = { XHD: xhdBin };
  before(async () => {
    cluster = await LocalSlurm.start();
    data = join(cluster.dir, 'data');
    mkdirSync(data);
    const random = rng(4);
    for (let i = 0; i < 6; i++) writeXyz(join(data, `p${i}.xyz`), uniform(400 + 50 * i, 3, random, 0.05 * i));
    const rows = ['a,b,threshold'];
    for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) if (i !== j) rows.push(`p${i}.xyz,p${j}.xyz,${i + j > 5 ? '0.2' : ''}`);
    writeFileSync(join(data, 'pairs.csv'), rows.join('\n') + '\n');
  });
  after(async () => {
    await cluster?.stop();
  });

  it('a batch over a 4-task job array merges into the unsharded stream', () => {
    const manifest = join(data, 'pairs.csv');
    const parts = join(cluster.dir, 'batch-parts');
    const r = cluster.sbatch(['--array=0-3', '--wait', '--cpus-per-task=1', `--output=${join(cluster.dir, 'batch-%a.log')}`, `--chdir=${cluster.dir}`,
      join(repoRoot, 'examples', 'slurm-batch.sh'), manifest, parts, '--backend', 'cpu'], env);
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
    const files = readdirSync(parts).sort();
    assert.deepEqual(files, ['batch-0.jsonl', 'batch-1.jsonl', 'batch-2.jsonl', 'batch-3.jsonl']);
    const merged = runXhd(['merge', ...files.map((f) => join(parts, f))]);
    const whole = runXhd(['batch', manifest, '--backend', 'cpu', '--quiet'], { SLURM_ARRAY_TASK_ID: '' });
    assert.equal(merged.code, whole.code, merged.stderr);
    assert.equal(whole.code, 1, 'some pairs exceed their threshold');
    const expected = answers(whole);
    assert.equal(expected.length, 31);
    assert.deepEqual(answers(merged), expected);
  });

  it('a sharded compare over a 4-task job array merges into the unsharded answer', () => {
    const a = join(data, 'p0.xyz'), b = join(data, 'p5.xyz');
    const parts = join(cluster.dir, 'compare-parts');
    const options = ['--backend', 'cpu', '--percentile', '95', '--relative'];
    const r = cluster.sbatch(['--array=0-3', '--wait', '--cpus-per-task=1', `--output=${join(cluster.dir, 'compare-%a.log')}`, `--chdir=${cluster.dir}`,
      join(repoRoot, 'examples', 'slurm-compare.sh'), a, b, parts, ...options], env);
    assert.equal(r.code, 0, `${r.stdout}${r.stderr}`);
    const files = readdirSync(parts).sort();
    assert.deepEqual(files, ['compare-0.part', 'compare-1.part', 'compare-2.part', 'compare-3.part']);
    const merged = runXhd(['merge', ...files.map((f) => join(parts, f)), '--json']);
    const whole = runXhd(['compare', a, b, '--json', '--quiet', ...options], { SLURM_ARRAY_TASK_ID: '' });
    assert.equal(merged.code, 0, merged.stderr);
    const [m] = answers(merged, false) as Array<Record<string, unknown>>;
    assert.deepEqual(m, answers(whole, false)[0]);
    assert.equal(typeof m.hd95, 'number');
  });
});
