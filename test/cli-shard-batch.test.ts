// xhd batch --shard I/N (or a job array's index) and xhd merge of the shards' outputs: one JSON Lines stream
// in manifest order with one summary, equal to the unsharded batch's; failed, missing, duplicate and foreign
// shards refused by name (exit 2); a shard that fails or is stopped leaves no --partial file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { fixture, xhdBin } from './helpers.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz, type RunResult } from './cli-run.js';
import { rng, uniform } from './random-points.js';

const dir = scratchDir();
const path = (name: string) => join(dir, name);
const random = rng(2323);
for (const [name, offset] of [['a', 0], ['b', 0.2], ['c', 0.05]] as const) writeXyz(path(`${name}.xyz`), uniform(300, 3, random, offset));
const manifest = path('pairs.csv');
writeFileSync(manifest, [
  'id,a,b,threshold,metric',
  'ab,a.xyz,b.xyz,0.1,', // exceeded
  'ac,a.xyz,c.xyz,5,hd95', // passed
  'ba,b.xyz,a.xyz,,', // unchecked
  `bad,a.xyz,${fixture('bad-token.xyz')},,`, // error
  'cb,c.xyz,b.xyz,1%,',
  'aa,a.xyz,a.xyz,0,',
  'bc,b.xyz,c.xyz,,',
].join('\n') + '\n');

const clean = { SLURM_ARRAY_TASK_ID: '', JOB_COMPLETION_INDEX: '' };
const batch = (args: string[], env: Record<string, string> = {}) => runXhd(['batch', manifest, '--backend', 'cpu', '--quiet', '--percentile', '95', ...args], { ...clean, ...env });

/** The JSON Lines without what differs from run to run (times, and the merge's own note of its shards). */
function stream(r: RunResult): unknown[] {
  assert.ok(!hasStackTrace(r.stderr), r.stderr);
  return r.stdout.trim().split('\n').map((line) => {
    const o = JSON.parse(line);
    delete o.timings_ms;
    if (o.summary) {
      delete o.summary.total_ms;
      delete o.summary.shards;
    }
    return o;
  });
}

function shardFiles(n: number, tag: string, args: string[] = []): string[] {
  return Array.from({ length: n }, (_, i) => {
    const out = path(`${tag}-${i}.jsonl`);
    const r = batch(['--shard', `${i}/${n}`, '--partial', out, ...args]);
    assert.ok(r.code === 0 || r.code === 1 || r.code === 2, r.stderr);
    assert.equal(r.stdout, '', 'with --partial the lines go to the file');
    assert.ok(existsSync(out), r.stderr);
    return out;
  });
}

describe('xhd merge of batch shards: the unsharded stream', () => {
  const whole = batch([]);
  it('3 shards with --partial: every pair in manifest order, one summary, the same exit code', () => {
    const merged = runXhd(['merge', ...shardFiles(3, 'three').reverse()]);
    assert.equal(whole.code, 2, 'the unsharded batch has an error pair');
    assert.equal(merged.code, whole.code, merged.stderr);
    assert.deepEqual(stream(merged), stream(whole));
    const summary = JSON.parse(merged.stdout.trim().split('\n').at(-1)!).summary;
    assert.equal(summary.shards.count, 3);
    assert.equal(summary.pairs, 7);
    assert.equal(summary.passed + summary.exceeded + summary.unchecked + summary.errors, 7);
    assert.ok(summary.passed > 0 && summary.exceeded > 0 && summary.unchecked > 0 && summary.errors === 1, JSON.stringify(summary));
  });
  it('shards printing on stdout, and more shards than pairs', () => {
    const files = Array.from({ length: 9 }, (_, i) => {
      const r = batch(['--shard', `${i}/9`]);
      const out = path(`stdout-${i}.jsonl`);
      writeFileSync(out, r.stdout);
      return out;
    });
    const merged = runXhd(['merge', ...files]);
    assert.equal(merged.code, whole.code, merged.stderr);
    assert.deepEqual(stream(merged), stream(whole));
  });
  it('takes the shard from a Slurm job array or a Kubernetes indexed Job, and says so on stderr', () => {
    const slurm = runXhd(['batch', manifest, '--backend', 'cpu', '--percentile', '95', '--partial', path('env-0.jsonl')],
      { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '2', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '2' });
    assert.match(slurm.stderr, /xhd batch: running shard 0 of 2 \(from SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_COUNT=2, SLURM_ARRAY_TASK_MIN=1\)/);
    const k8s = runXhd(['batch', manifest, '--backend', 'cpu', '--percentile', '95', '--partial', path('env-1.jsonl')], { ...clean, JOB_COMPLETION_INDEX: '1', XHD_SHARD_COUNT: '2' });
    assert.match(k8s.stderr, /xhd batch: running shard 1 of 2 \(from JOB_COMPLETION_INDEX=1, XHD_SHARD_COUNT=2\)/);
    const merged = runXhd(['merge', path('env-0.jsonl'), path('env-1.jsonl')]);
    assert.deepEqual(stream(merged), stream(whole));
    const noCount = runXhd(['batch', manifest], { ...clean, JOB_COMPLETION_INDEX: '1' });
    assert.equal(noCount.code, 2);
    assert.match(noCount.stderr, /JOB_COMPLETION_INDEX=1 is set .* but not XHD_SHARD_COUNT/);
  });
});

function refused(r: RunResult, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, pattern);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.ok(!hasStackTrace(r.stderr), r.stderr);
}

describe('xhd merge of batch shards: refusals', () => {
  const files = shardFiles(3, 'ref');
  const write = (name: string, text: string) => {
    writeFileSync(path(name), text);
    return path(name);
  };
  const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n');
  it('a missing shard, a shard given twice, the output of another run', () => {
    refused(runXhd(['merge', files[0], files[1]]), /missing shard 2 of 3/);
    refused(runXhd(['merge', files[0], files[1], files[2], files[1]]), /shard 1 of 3 is given twice/);
    const other = shardFiles(3, 'other', ['--stats']);
    refused(runXhd(['merge', files[0], other[1], files[2]]), /ref-0\.jsonl and .*other-1\.jsonl are parts of different runs/);
  });
  it('a shard that stopped before its summary, or was interrupted, is named as failed', () => {
    const cut = write('cut.jsonl', lines(files[1]).slice(0, -1).join('\n') + '\n');
    refused(runXhd(['merge', files[0], cut, files[2]]), /shard failed: shard 1 \(.*cut\.jsonl: it stopped before its summary line\)/);
    const mid = write('mid.jsonl', readFileSync(files[1], 'utf8').slice(0, -40));
    refused(runXhd(['merge', files[0], mid, files[2]]), /shard 1 \(.*mid\.jsonl: it stopped before its summary line\)/);
    const last = JSON.parse(lines(files[1]).at(-1)!);
    last.summary.interrupted = true;
    last.summary.not_run = 1;
    const stopped = write('stopped.jsonl', [...lines(files[1]).slice(0, -1), JSON.stringify(last)].join('\n') + '\n');
    refused(runXhd(['merge', files[0], stopped, files[2]]), /stopped\.jsonl: interrupted with 1 pair not run/);
  });
  it('a shard missing a pair, an unsharded output, a line that is not JSON, an empty file', () => {
    const short = write('short.jsonl', lines(files[0]).slice(1).join('\n') + '\n');
    refused(runXhd(['merge', short, files[1], files[2]]), /short\.jsonl: shard 0 of 3 holds 2 pairs, but it was dealt 3 of the manifest's 7/);
    const unsharded = write('unsharded.jsonl', batch([]).stdout);
    refused(runXhd(['merge', unsharded, files[1]]), /unsharded\.jsonl:1: names no shard/);
    const garbage = write('garbage.jsonl', 'not json\n' + readFileSync(files[0], 'utf8'));
    refused(runXhd(['merge', garbage, files[1], files[2]]), /garbage\.jsonl:1: not a JSON object/);
    refused(runXhd(['merge', write('empty.jsonl', ''), files[1]]), /empty\.jsonl: is empty/);
    refused(runXhd(['merge', files[0], files[1], files[2], '--json']), /--json, --output and --csv-header apply to compare parts/);
  });
});

describe('xhd batch --shard: refusals and no partial file', () => {
  it('--report with a shard, --partial without one', () => {
    refused(batch(['--shard', '0/2', '--report', path('r.html')]), /--report draws the whole batch/);
    refused(batch(['--partial', path('p.jsonl')]), /--partial writes one shard's output: give --shard I\/N/);
  });
  it('a bad manifest fails every shard alike and writes nothing', () => {
    const bad = path('bad.csv');
    writeFileSync(bad, 'a,b,threshold\na.xyz,b.xyz,x%\n');
    refused(runXhd(['batch', bad, '--shard', '0/2', '--partial', path('bad-0.jsonl')], clean), /bad\.csv:2: threshold/);
    assert.ok(!existsSync(path('bad-0.jsonl')));
  });
  it('a shard stopped by SIGTERM (a job scheduler\'s time limit) leaves no file', async () => {
    const long = path('long.csv');
    // 10,000 pairs for shard 0: tens of seconds even on a fast machine; stopped half a second in
    writeFileSync(long, 'a,b\n' + 'a.xyz,b.xyz\n'.repeat(20_000));
    const out = path('long-0.jsonl');
    const child = spawn(process.execPath, [xhdBin, 'batch', long, '--backend', 'cpu', '--shard', '0/2', '--partial', out], { env: { ...process.env, ...clean } });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal === 'SIGTERM' ? 143 : null))));
    await new Promise<void>((resolve) => child.stderr.on('data', (d) => {
      stderr += String(d);
      if (stderr.includes('10000 of 20000 pairs')) setTimeout(resolve, 500);
    }));
    child.kill('SIGTERM');
    assert.equal(await exited, 143, stderr);
    assert.ok(!existsSync(out), 'no partial output file');
  });
});
