// `xhd batch` lanes on worker threads of their own (src/jobs/batch-lanes-in-workers.ts): the same outcomes, in
// manifest order, as lanes sharing the main thread; errors stay a pair's outcome; an interrupt stops every lane.
// Run on the CPU backend (laneThreads: true gives it `lanes` threads), where no GPU is needed.
import assert from 'node:assert/strict';
import { getMaxListeners } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { runBatch, type BatchPair, type PairOutcome, type RunBatchOptions } from '../src/jobs/batch.js';
import { laneThreadsStarted } from '../src/jobs/batch-lanes-in-workers.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';

const dir = scratchDir();
const N = 12;
function box(lo: number, hi: number, value = 1): Uint8Array {
  const v = new Uint8Array(N * N * N);
  for (let z = lo; z < hi; z++) for (let y = lo; y < hi; y++) for (let x = lo; x < hi + (value - 1); x++) v[x + N * (y + N * z)] = 1;
  return v;
}
const masks: string[][] = [];
for (let k = 0; k < 5; k++) {
  const a = join(dir, `m${k}-a.nii`), b = join(dir, `m${k}-b.nii.gz`);
  writeNifti(a, { dims: [N, N, N], values: box(2, 8 + (k % 3)), spacing: [1, 1, 1 + k / 4] });
  writeNifti(b, { dims: [N, N, N], values: box(3, 9, 1 + (k % 2)), spacing: [1, 1, 1 + k / 4], gzip: true });
  masks.push([a, b]);
}
writeXyz(join(dir, 'p.xyz'), Float32Array.of(0, 0, 0, 1, 0, 0, 0, 2, 0));
writeXyz(join(dir, 'q.xyz'), Float32Array.of(0.5, 0, 0, 1, 3, 0));

// 20 pairs: the masks in turn, a point cloud pair, and a missing file (an error outcome).
const rows: string[][] = [];
for (let i = 0; i < 20; i++) rows.push(i === 6 ? [join(dir, 'p.xyz'), join(dir, 'q.xyz')] : i === 11 ? [join(dir, 'missing.nii'), masks[0][1]] : masks[i % masks.length]);
const pairs: BatchPair[] = rows.map(([pathA, pathB], i) => ({ row: { line: i + 2, a: pathA, b: pathB, pathA, pathB, fields: {} } as BatchPair['row'], metric: 'hd' }));

/** An outcome without what varies from run to run (timings, threads). */
function comparable(outcome: PairOutcome): string {
  return JSON.stringify(outcome, (key, value) => (/ms$|Ms$|timings|threads/i.test(key) ? undefined : value));
}

async function run(laneThreads: boolean, extra: Partial<RunBatchOptions> = {}) {
  const seen: Array<{ line: number; outcome: string }> = [];
  const options: RunBatchOptions = {
    compare: { backend: 'cpu', method: 'grid', directed: false, percentile: 95 } as RunBatchOptions['compare'],
    lanes: 3,
    laneThreads,
    onPair: (pair, outcome) => {
      seen.push({ line: pair.row.line, outcome: comparable(outcome) });
    },
    ...extra,
  };
  const summary = await runBatch(pairs, options);
  return { summary, seen };
}

describe('batch lanes on worker threads', () => {
  it('give every pair the outcome one thread gives, reported in manifest order, errors included', async () => {
    const before = laneThreadsStarted();
    const one = await run(false);
    assert.equal(laneThreadsStarted(), before, 'laneThreads: false starts no thread');
    const threaded = await run(true);
    assert.equal(laneThreadsStarted(), before + 3, 'three lanes, three threads');
    assert.deepEqual(threaded.seen.map((s) => s.line), pairs.map((p) => p.row.line));
    assert.deepEqual(threaded.seen, one.seen);
    assert.equal(threaded.summary.errors, 1);
    assert.equal(threaded.summary.unchecked, 19);
    assert.equal(threaded.summary.exitCode, 2);
    assert.match(threaded.seen[11].outcome, /"status":"error".*missing\.nii/);
    const hd = (i: number) => JSON.parse(threaded.seen[i].outcome).result.hd as number;
    assert.equal(hd(4), JSON.parse(one.seen[4].outcome).result.hd);
    assert.ok(hd(0) > 0);
  });

  it('stop at an interrupt: the pairs after it are not run, and every lane thread ends', async () => {
    const controller = new AbortController();
    let reported = 0;
    const { summary } = await run(true, {
      signal: controller.signal,
      onPair: () => {
        if (++reported === 4) controller.abort(new Error('stop'));
      },
    });
    assert.equal(summary.interrupted, true);
    // Room for each lane's calls to listen to the signal (no MaxListenersExceededWarning with many lanes).
    assert.ok(getMaxListeners(controller.signal) >= 12, `max listeners ${getMaxListeners(controller.signal)}`);
    assert.ok(summary.notRun > 0 && summary.notRun <= pairs.length - 4, `not run: ${summary.notRun}`);
    assert.equal(summary.exitCode, 130);
  });

  it('XHD_BATCH_LANE_THREADS=1 on the CLI: the same JSON Lines as 0, less the timings', () => {
    const manifest = join(dir, 'pairs.csv');
    writeFileSync(manifest, ['a,b', ...rows.map((r) => r.join(','))].join('\n') + '\n');
    const strip = (text: string) => text.trim().split('\n').map((l) => JSON.stringify(JSON.parse(l), (k, v) => (/ms$|timings|threads/.test(k) ? undefined : v)));
    const args = ['batch', manifest, '--backend', 'cpu', '--quiet', '--percentile', '95', '--lanes', '3'];
    const off = runXhd(args, { XHD_BATCH_LANE_THREADS: '0' });
    const on = runXhd(args, { XHD_BATCH_LANE_THREADS: '1' });
    assert.equal(off.code, 2, off.stderr);
    assert.equal(on.code, 2, on.stderr);
    assert.equal(on.stdout.trim().split('\n').length, 21);
    assert.deepEqual(strip(on.stdout), strip(off.stdout));
  });

  it('every label, lesions and the dataset summary come back from the lane threads whole (results cross threads by structured clone)', () => {
    const n = 14, lines = ['a,b'];
    for (let k = 0; k < 4; k++) {
      const va = new Uint8Array(n * n * n), vb = new Uint8Array(n * n * n);
      for (let z = 1; z < 12; z++) for (let y = 1; y < 12; y++) for (let x = 1; x < 12; x++) {
        const i = x + n * (y + n * z);
        if (x < 6) va[i] = 1; else if (x > 7 && y < 7) va[i] = 2;
        if (x < 6 + (k % 2)) vb[i] = 1; else if (x > 8 && y < 8) vb[i] = 2;
        if (z === 10 && x === 10 && y === 10) vb[i] = 3;
      }
      writeNifti(join(dir, `l${k}a.nii`), { dims: [n, n, n], values: va });
      writeNifti(join(dir, `l${k}b.nii`), { dims: [n, n, n], values: vb });
      lines.push(`${join(dir, `l${k}a.nii`)},${join(dir, `l${k}b.nii`)}`);
    }
    const manifest = join(dir, 'labels.csv');
    writeFileSync(manifest, lines.join('\n') + '\n');
    const strip = (text: string) => text.trim().split('\n').map((l) => JSON.stringify(JSON.parse(l), (k, v) => (/ms$|timings|threads/.test(k) ? undefined : v)));
    for (const extra of [['--labels', 'all', '--summary'], ['--label', '1', '--components', '--summary']]) {
      const args = ['batch', manifest, '--backend', 'cpu', '--quiet', '--percentile', '95', '--lanes', '2', ...extra];
      const off = runXhd(args, { XHD_BATCH_LANE_THREADS: '0' });
      const on = runXhd(args, { XHD_BATCH_LANE_THREADS: '1' });
      assert.equal(on.code, 0, `${extra.join(' ')}: ${on.stderr}`);
      assert.equal(off.code, 0, off.stderr);
      assert.equal(on.stdout.trim().split('\n').length, 6, `${extra.join(' ')}: four pairs, the batch line, the summary`);
      assert.deepEqual(strip(on.stdout), strip(off.stdout), extra.join(' '));
    }
  });
});

