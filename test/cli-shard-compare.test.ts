// xhd compare --shard I/N --partial FILE and xhd merge: the merged answer is the unsharded run's, key for key
// (HD, witnesses with ties to the smallest index, every statistic and percentile, relative values, verdict),
// on several inputs; every refusal is one line, exit 2, and a failed shard leaves no file.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { fixture, xhdBin } from './helpers.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz, type RunResult } from './cli-run.js';
import { rng, uniform } from './random-points.js';
import { probeBackend } from '../src/ops/backends.js';
import { suiteUnless } from './skippable-suite.js';
import { writeNifti } from './nifti-writer.js';

const dir = scratchDir();
const path = (name: string) => join(dir, name);

/** What describes how the shards ran rather than what they measured: left out when answers are compared. */
const RUN_KEYS = ['timings_ms', 'notes', 'backend', 'threads', 'device', 'peak_device_memory_bytes', 'query_chunks', 'coordinate_origin'];

function answer(r: RunResult): Record<string, unknown> {
  assert.ok(!hasStackTrace(r.stderr), r.stderr);
  const json = JSON.parse(r.stdout);
  for (const key of RUN_KEYS) delete json[key];
  return json;
}

/** Runs shards 0..n-1 into parts, returning their paths; every shard must succeed. backend(i): shard i's. */
function runShards(a: string, b: string, n: number, args: string[], tag: string, backend: (i: number) => string = () => 'cpu'): string[] {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const part = path(`${tag}-${i}.part`);
    const r = runXhd(['compare', a, b, '--backend', backend(i), '--quiet', '--shard', `${i}/${n}`, '--partial', part, ...args]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '', 'a shard prints nothing on stdout: its answer is in its part');
    parts.push(part);
  }
  return parts;
}

/** The unsharded run and the merge of n shards give the same answer (and the same exit code). */
function assertMergeIsWhole(a: string, b: string, n: number, args: string[], tag: string): Record<string, any> {
  const whole = runXhd(['compare', a, b, '--backend', 'cpu', '--quiet', '--json', ...args]);
  const parts = runShards(a, b, n, args, tag);
  const merged = runXhd(['merge', ...parts.reverse(), '--json']); // any order
  assert.equal(merged.code, whole.code, merged.stderr);
  const m = answer(merged);
  assert.deepEqual(m, answer(whole));
  return m;
}

function writeText(name: string, lines: string[]): string {
  writeFileSync(path(name), lines.join('\n') + '\n');
  return path(name);
}

// Random sets in float32; a grid whose every A → B distance ties (A shifted half a step) with B's points
// repeated, so the witness and every nearest index are decided by the tie rule; survey coordinates in
// double, where float32 would move the points by decimetres.
const random = rng(23);
const ua = path('ua.xyz'), ub = path('ub.xyz');
writeXyz(ua, uniform(2000, 3, random));
writeXyz(ub, uniform(1500, 3, random, 0.3));
const gridA: number[] = [], gridB: number[] = [];
for (let x = 0; x < 4; x++) for (let y = 0; y < 4; y++) for (let z = 0; z < 4; z++) gridA.push(x, y, z);
for (let i = 0; i < gridA.length; i += 3) for (let copy = 0; copy < 2; copy++) gridB.push(gridA[i] + 0.5, gridA[i + 1], gridA[i + 2]);
const ta = path('ties-a.xyz'), tb = path('ties-b.xyz');
writeXyz(ta, Float32Array.from(gridA));
writeXyz(tb, Float32Array.from(gridB));
const survey = (n: number, dx: number) => Array.from({ length: n }, () => `${(512345.678 + 100 * random() + dx).toFixed(4)} ${(4212345.123 + 100 * random()).toFixed(4)} ${(87.5 + random()).toFixed(4)}`);
const sa = writeText('survey-a.xyz', survey(900, 0));
const sb = writeText('survey-b.xyz', survey(700, 0.012));

describe('xhd merge of compare parts: the unsharded answer', () => {
  it('random sets in 3 shards: HD, witnesses, HD95, ASSD, RMS, Chamfer, relative values', () => {
    const m = assertMergeIsWhole(ua, ub, 3, ['--percentile', '95', '--relative'], 'uniform');
    assert.ok(m.hd > 0 && typeof m.hd95 === 'number' && typeof m.assd === 'number' && m.relative_diagonal.basis === 'union', JSON.stringify(m).slice(0, 300));
  });
  it('ties everywhere in 4 shards: the witness with the smallest index, the pooled percentile and ASSD', () => {
    const m = assertMergeIsWhole(ta, tb, 4, ['--stats', '--percentile', '50', '--percentile-variant', 'pooled', '--assd-variant', 'pooled'], 'ties');
    assert.equal(m.hd_ab, 0.5);
    assert.equal(m.witness_ab.a_index, 0, 'every point of A ties: the first');
    assert.equal(m.witness_ab.b_index, 0, 'its nearest is B 0 and its copy B 1: the smaller');
  });
  it('survey coordinates in double in 3 shards, HD99.5 and a verdict (exit 1 both ways)', () => {
    const m = assertMergeIsWhole(sa, sb, 3, ['--percentile', '99.5', '--fail-above', '0.001', '--metric', 'hd'], 'survey');
    assert.equal(m.threshold.exceeded, true);
  });
  it('directed, more shards than points (empty slices), and the eb and brute methods', () => {
    const small = writeText('three.xyz', ['0 0 0', '1 0 0', '0 2 0']);
    assertMergeIsWhole(small, ta, 5, ['--directed', '--stats'], 'small');
    assertMergeIsWhole(ua, ub, 2, ['--method', 'eb', '--percentile', '90'], 'eb');
    assertMergeIsWhole(ta, small, 3, ['--method', 'brute'], 'brute');
  });
  it('2D points, and NIfTI masks (their surface voxels in millimetres) with a label and HD95', () => {
    const r2 = rng(5);
    const plane = (n: number, dx: number) => Array.from({ length: n }, () => `${(r2() + dx).toFixed(5)},${r2().toFixed(5)}`);
    const p2a = writeText('plane-a.csv', ['x,y', ...plane(700, 0)]), p2b = writeText('plane-b.csv', ['x,y', ...plane(500, 0.1)]);
    const m = assertMergeIsWhole(p2a, p2b, 3, ['--stats'], 'plane');
    assert.equal(m.witness_ab.a_point.length, 2);
    const n = 20;
    const blob = (cx: number, r: number, label: number) => {
      const v = new Uint8Array(n * n * n);
      for (let z = 0; z < n; z++) for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if ((x - cx) ** 2 + (y - 10) ** 2 + (z - 10) ** 2 <= r * r) v[x + n * (y + n * z)] = label;
      return v;
    };
    writeNifti(path('mask-a.nii.gz'), { dims: [n, n, n], values: blob(9, 6, 2), spacing: [1.5, 1, 2], gzip: true });
    writeNifti(path('mask-b.nii.gz'), { dims: [n, n, n], values: blob(11, 5, 2), spacing: [1.5, 1, 2], gzip: true });
    const mask = assertMergeIsWhole(path('mask-a.nii.gz'), path('mask-b.nii.gz'), 4, ['--label', '2', '--percentile', '95'], 'mask');
    assert.equal(mask.a.format, 'nifti');
  });
  it('an empty input: every part holds the policy\'s answer', () => {
    assertMergeIsWhole(fixture('empty.xyz'), ua, 2, ['--empty', 'zero-or-diagonal', '--stats'], 'empty');
  });
  it('prints text and CSV as compare does', () => {
    const parts = runShards(ua, ub, 2, [], 'text');
    const text = runXhd(['merge', ...parts]);
    assert.equal(text.code, 0, text.stderr);
    const whole = runXhd(['compare', ua, ub, '--backend', 'cpu', '--quiet', '--output', 'csv', '--csv-header']);
    const csv = runXhd(['merge', ...parts, '--output', 'csv', '--csv-header']);
    const [header, row] = csv.stdout.trim().split('\n');
    assert.equal(header, whole.stdout.split('\n')[0]);
    const hd = header.split(',').indexOf('hd');
    assert.equal(row.split(',')[hd], whole.stdout.split('\n')[1].split(',')[hd]);
    assert.match(text.stdout, new RegExp(`merged from 2 shards`));
  });
  it('takes the shard from a Slurm job array without --shard, and says so', () => {
    const part = path('slurm-1.part');
    const r = runXhd(['compare', ua, ub, '--backend', 'cpu', '--quiet', '--partial', part], { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '2', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_MAX: '1' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /xhd compare: running shard 1 of 2 \(from SLURM_ARRAY_TASK_ID=1, SLURM_ARRAY_TASK_COUNT=2\)/);
    const zero = runShards(ua, ub, 2, [], 'slurm')[0];
    assert.equal(runXhd(['merge', zero, part, '--json']).code, 0);
  });
});

function refused(r: RunResult, pattern: RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, pattern);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.ok(!hasStackTrace(r.stderr), r.stderr);
}

describe('xhd compare --shard: refusals', () => {
  const shard = (...args: string[]) => runXhd(['compare', '--backend', 'cpu', '--quiet', ...args], { SLURM_ARRAY_TASK_ID: '', JOB_COMPLETION_INDEX: '' });
  it('--shard without --partial, --partial without a shard, a bad I/N', () => {
    refused(shard(ua, ub, '--shard', '0/2'), /--shard measures a part of the pair: give --partial FILE/);
    refused(shard(ua, ub, '--partial', path('x.part')), /--partial writes one shard's part: give --shard I\/N/);
    refused(shard(ua, ub, '--shard', '2/2', '--partial', path('x.part')), /shard 2 of 2 does not exist/);
  });
  it('what needs the whole answer, meshes surface to surface, standard input', () => {
    refused(shard(ua, ub, '--shard', '0/2', '--partial', path('x.part'), '--json'), /--json, --output and --csv-header .* do not apply to a shard's part/);
    refused(shard(ua, ub, '--shard', '0/2', '--partial', path('x.part'), '--export', path('d.csv')), /--export does not apply to a shard's part/);
    refused(shard(fixture('cube.off'), ua, '--shard', '0/2', '--partial', path('x.part')), /--shard splits point sets; .*cube\.off is a mesh.*--vertices-only/);
    refused(runXhd(['compare', '-', ub, '--format', 'xyz', '--shard', '0/2', '--partial', path('x.part')], {}, '0 0 0\n'), /standard input/);
  });
  it('a shard that fails leaves no part (and no temporary file)', () => {
    const before = readdirSync(dir).length;
    const r = shard(ua, fixture('bad-token.xyz'), '--shard', '1/2', '--partial', path('failed.part'));
    refused(r, /bad-token\.xyz:2: expected a number/);
    assert.equal(readdirSync(dir).length, before, 'nothing written');
  });
});

describe('xhd compare --shard: a shard stopped by SIGTERM (a job scheduler\'s time limit)', () => {
  it('exits 143 and leaves no part', async () => {
    // brute force on one thread over 150,000 × 150,000 points (2.25 · 10^10 distances): many seconds on any machine;
    // stopped after 4 s, when the process has long installed its handlers even on a loaded host
    const big = path('big.xyz'), bigB = path('big-b.xyz');
    writeXyz(big, uniform(150_000, 3, rng(7)));
    writeXyz(bigB, uniform(150_000, 3, rng(8)));
    const part = path('stopped.part');
    const child = spawn(process.execPath, [xhdBin, 'compare', big, bigB, '--method', 'brute', '--threads', '1', '--quiet', '--shard', '0/2', '--partial', part]);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise((resolve) => setTimeout(resolve, 4000));
    assert.equal(child.exitCode, null, 'the shard finished before it could be stopped');
    child.kill('SIGTERM');
    assert.equal(await exited, 143, stderr);
    assert.equal(stderr, 'xhd: terminated\n');
    assert.ok(!existsSync(part), 'no part');
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('stopped.part')), [], 'no temporary file either');
  });
});

describe('xhd merge: refusals', () => {
  const parts = runShards(ua, ub, 3, ['--stats'], 'ref');
  const merge = (...files: string[]) => runXhd(['merge', ...files, '--json']);
  it('a missing shard, a shard given twice', () => {
    refused(merge(parts[0], parts[2]), /missing shard 1 of 3 \(run [0-9a-f]{20}\)/);
    refused(merge(parts[0], parts[1], parts[1], parts[2]), /shard 1 of 3 is given twice: .*ref-1\.part and .*ref-1\.part/);
  });
  it('parts of another run: other options, another shard count, an input changed in between', () => {
    const other = runShards(ua, ub, 3, ['--percentile', '95'], 'other');
    refused(merge(parts[0], other[1], parts[2]), /ref-0\.part and .*other-1\.part are parts of different runs: run [0-9a-f]{20} and run [0-9a-f]{20} \(different inputs or options\)/);
    const four = runShards(ua, ub, 4, ['--stats'], 'four');
    refused(merge(parts[0], parts[1], four[2]), /\(3 shards against 4\)/);
    const copy = path('ub-copy.xyz');
    writeFileSync(copy, readFileSync(ub));
    const before = runShards(ua, copy, 2, [], 'touched');
    utimesSync(copy, new Date(), new Date(Date.now() + 5000)); // rewritten after shard 0 ran
    const after = runShards(ua, copy, 2, [], 'touched-again');
    refused(merge(before[0], after[1]), /are parts of different runs/);
  });
  it('a file that is not a complete part names the file and the byte', () => {
    const cut = path('cut.part');
    writeFileSync(cut, readFileSync(parts[1]));
    truncateSync(cut, readFileSync(cut).length - 5);
    refused(merge(parts[0], cut, parts[2]), /cut\.part \(byte \d+\): truncated: the header describes \d+ bytes, the file has \d+/);
    const garbled = path('garbled.part');
    const bytes = readFileSync(parts[1]);
    bytes.write('{{{{', 16, 'latin1');
    writeFileSync(garbled, bytes);
    refused(merge(parts[0], garbled, parts[2]), /garbled\.part \(byte 16\): the header is not valid JSON/);
    refused(merge(parts[0], path('nowhere.part'), parts[2]), /nowhere\.part: no such file/);
    const huge = path('huge.part');
    const lying = readFileSync(parts[1]);
    lying.writeBigUInt64LE(1n << 50n, 8); // a header length of a petabyte: refused, not allocated
    writeFileSync(huge, lying);
    refused(merge(parts[0], huge, parts[2]), /huge\.part \(byte 8\): the header length 1125899906842624 is beyond any part's/);
    refused(merge(parts[0], ua), /ref-0\.part is a compare part but .*ua\.xyz is not/);
  });
});

// The lead's GPU machine: shards on the CUDA backend, and shards on different backends in one run (the run id
// leaves the backend out), merge into the CPU's unsharded answer, bit for bit.
const cuda = probeBackend('cuda');
suiteUnless(cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`, 'xhd merge of compare parts measured on a GPU', () => {
  it('CUDA shards, and CPU and CUDA shards mixed, merge into the CPU\'s unsharded answer', () => {
    const cases = [[ua, ub, ['--percentile', '95']], [ta, tb, ['--stats']], [sa, sb, ['--percentile', '99.5']]] as const;
    for (const [n, [a, b, args]] of cases.entries()) {
      const whole = answer(runXhd(['compare', a, b, '--backend', 'cpu', '--quiet', '--json', ...args]));
      for (const [tag, backend] of [['gpu', () => 'cuda'], ['mixed', (i: number) => (i % 2 === 0 ? 'cuda' : 'cpu')]] as const) {
        const parts = runShards(a, b, 3, [...args], `${tag}-${n}`, backend);
        const merged = runXhd(['merge', ...parts, '--json']);
        assert.equal(merged.code, 0, merged.stderr);
        assert.deepEqual(answer(merged), whole, `${tag}: ${a} against ${b}`);
        assert.match(JSON.parse(merged.stdout).backend, tag === 'gpu' ? /^cuda$/ : /cuda\+cpu|cpu\+cuda/);
      }
    }
  });
});
