// Sharded batch benchmark: a batch of small NIfTI mask pairs (generated: two ellipsoids a pair, the second
// moved and resized a little) run once as one `xhd batch` process and once as N shards side by side
// (`xhd batch --shard I/N --partial`, what the N tasks of a Slurm job array run), then `xhd merge`d; the
// merged stream must equal the single process's. The shards run as local processes, so the figures exclude
// a scheduler's queueing (Slurm's sbatch --wait polls every few seconds). Prints a markdown report.
//   scripts/bench-shard [--pairs 1000] [--shards 4] [--threads 1] [--size 48] [--distinct N] [--backend cpu|auto|cuda] [--pin] [--slurm] [--out docs/file.md]
// --slurm also runs the shards as a real job array (sbatch --array --wait of examples/slurm-batch.sh) on a
// one-node Slurm cluster started on localhost for the run (test/slurm-cluster.ts; needs slurm-wlm, munge, root);
// that wall time includes Slurm's scheduling and sbatch --wait's polling (seconds).
// --threads is each process's: the single process and every shard get the same, so the shards use
// N times the cores; on a host with fewer than N · threads cores they compete for them.
// --distinct N writes N pairs' files and lists them over and over in the manifest (masks of BraTS' size,
// 240×240×155, take a second or more each to generate in JavaScript); by default every pair is its own.
// --pin gives each process its own cores as a Slurm task's CPU set does (taskset: the single process cores
// 0 to threads-1, shard I the I-th such block), so that the single process cannot use more than one task's
// worth of cores (its reading on libuv's threads, say) while the shards are held to theirs.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

import { writeNifti } from '../test/nifti-writer.js';
import { LocalSlurm, slurmUnavailable } from '../test/slurm-cluster.js';
import { rng } from '../test/random-points.js';
import { formatMs, libraryVersion, publishReport, runLines } from './bench/report.js';
import { ROOT } from './bench/root.js';

const log = (line: string) => process.stderr.write(`${line}\n`);
const XHD = join(ROOT, 'bin', 'xhd');

interface Settings { pairs: number; distinct?: number; shards: number; threads: number; size: number; backend: string; slurm: boolean; pin: boolean; out?: string; keep: boolean }

function parseSettings(argv: string[]): Settings {
  const s: Settings = { pairs: 1000, shards: 4, threads: 1, size: 48, backend: 'cpu', slurm: false, pin: false, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
      return argv[++i];
    };
    const count = (name: string) => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number from 1`);
      return n;
    };
    switch (argv[i]) {
      case '--pairs': s.pairs = count('--pairs'); break;
      case '--shards': s.shards = count('--shards'); break;
      case '--threads': s.threads = count('--threads'); break;
      case '--size': s.size = count('--size'); break;
      case '--distinct': s.distinct = count('--distinct'); break;
      case '--backend': s.backend = value(); break;
      case '--out': s.out = value(); break;
      case '--keep': s.keep = true; break;
      case '--slurm': s.slurm = true; break;
      case '--pin': s.pin = true; break;
      case '--help':
        process.stdout.write('scripts/bench-shard [--pairs 1000] [--shards 4] [--threads 1] [--size 48] [--distinct N] [--backend cpu] [--pin] [--slurm] [--out FILE] [--keep]\n');
        process.exit(0);
        break;
      default: throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return s;
}

/** A filled ellipsoid on a size × size × (3/4 size) grid. */
function ellipsoid(size: number, centre: number[], radii: number[]): Uint8Array {
  const dims = [size, size, Math.round(0.75 * size)];
  const mask = new Uint8Array(dims[0] * dims[1] * dims[2]);
  for (let k = 0; k < dims[2]; k++) {
    for (let j = 0; j < dims[1]; j++) {
      for (let i = 0; i < dims[0]; i++) {
        const q = ((i - centre[0]) / radii[0]) ** 2 + ((j - centre[1]) / radii[1]) ** 2 + ((k - centre[2]) / radii[2]) ** 2;
        if (q <= 1) mask[i + dims[0] * (j + dims[1] * k)] = 1;
      }
    }
  }
  return mask;
}

/** The pairs' files and a CSV manifest naming them (relative paths, as a lab's manifest would). */
function makeManifest(dir: string, s: Settings): string {
  const random = rng(2026);
  const dims = [s.size, s.size, Math.round(0.75 * s.size)];
  const rows = ['a,b'];
  const distinct = Math.min(s.distinct ?? s.pairs, s.pairs);
  for (let p = 0; p < distinct; p++) {
    const centre = dims.map((d) => d * (0.4 + 0.2 * random()));
    const radii = dims.map((d) => d * (0.15 + 0.1 * random()));
    const moved = centre.map((c) => c + 2 * (random() - 0.5));
    const resized = radii.map((r) => r * (0.9 + 0.2 * random()));
    for (const [side, c, r] of [['a', centre, radii], ['b', moved, resized]] as const) {
      writeNifti(join(dir, `${p}-${side}.nii.gz`), { dims, values: ellipsoid(s.size, c, r), datatype: 'uint8', gzip: true });
    }
  }
  for (let p = 0; p < s.pairs; p++) rows.push(`${p % distinct}-a.nii.gz,${p % distinct}-b.nii.gz`);
  const manifest = join(dir, 'pairs.csv');
  writeFileSync(manifest, rows.join('\n') + '\n');
  return manifest;
}

function batchArgs(manifest: string, s: Settings): string[] {
  return [XHD, 'batch', manifest, '--backend', s.backend, '--threads', String(s.threads), '--quiet'];
}

/** The command that runs node with `args` as process `index` (0 for the single one): on its own cores with --pin. */
function pinned(s: Settings, index: number, args: string[]): [string, string[]] {
  if (!s.pin) return [process.execPath, args];
  const first = index * s.threads;
  return ['taskset', ['-c', `${first}-${first + s.threads - 1}`, process.execPath, ...args]];
}

/** The JSON Lines without timings and the merge's note of its shards: what must be identical. */
function answers(text: string): string {
  return text.trim().split('\n').map((line) => {
    const o = JSON.parse(line);
    delete o.timings_ms;
    if (o.summary) {
      delete o.summary.total_ms;
      delete o.summary.shards;
    }
    return JSON.stringify(o);
  }).join('\n');
}

/**
 * CPU seconds (user + system) of every child this process has waited for, from /proc/self/stat (cutime and
 * cstime, in clock ticks of 1/100 s on Linux), or NaN elsewhere. On a busy shared host the wall times depend on
 * the other processes; the CPU time a run took does not, and shows what sharding itself costs.
 */
function childCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd on (state)
    return (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime: the 16th and 17th fields
  } catch {
    return Number.NaN;
  }
}

function runShard(manifest: string, s: Settings, index: number, part: string): Promise<number | null> {
  return new Promise((resolve) => {
    const [command, args] = pinned(s, index, [...batchArgs(manifest, s), '--shard', `${index}/${s.shards}`, '--partial', part]);
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) => resolve(code));
  });
}

/** The largest of the shards' own batch times (their summaries' total_ms): the work, without process starts. */
function slowestShardMs(parts: string[]): number {
  return Math.max(...parts.map((p) => JSON.parse(readFileSync(p, 'utf8').trim().split('\n').at(-1)!).summary.total_ms as number));
}

/** The shards as a Slurm job array on a local one-node cluster: wall ms of sbatch --wait, or why not. */
async function runOnSlurm(manifest: string, s: Settings, dir: string): Promise<{ ms: number; parts: string[] } | { why: string }> {
  const unavailable = slurmUnavailable();
  if (unavailable) return { why: unavailable };
  const cluster = await LocalSlurm.start();
  try {
    const out = join(dir, 'slurm-parts');
    const started = performance.now();
    const r = cluster.sbatch([`--array=0-${s.shards - 1}`, '--wait', `--cpus-per-task=${s.threads}`, `--output=${join(dir, 'slurm-%a.log')}`, `--chdir=${dir}`,
      join(ROOT, 'examples', 'slurm-batch.sh'), manifest, out, '--backend', s.backend], { XHD: XHD });
    const ms = performance.now() - started;
    if (r.code !== 0) return { why: `sbatch failed (exit ${r.code}): ${r.stderr.trim()}` };
    return { ms, parts: Array.from({ length: s.shards }, (_, i) => join(out, `batch-${i}.jsonl`)) };
  } finally {
    await cluster.stop();
  }
}

async function main(): Promise<void> {
  const s = parseSettings(process.argv.slice(2));
  if (s.pin && availableParallelism() < s.shards * s.threads) throw new Error(`--pin needs ${s.shards} × ${s.threads} cores; this process may use ${availableParallelism()}`);
  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-shard-'));
  try {
    log(`generating ${Math.min(s.distinct ?? s.pairs, s.pairs)} distinct mask pairs (${s.size}×${s.size}×${Math.round(0.75 * s.size)}) in ${dir}`);
    const manifest = makeManifest(dir, s);

    log('warm-up: the first 20 pairs, so the page cache holds the program and the library');
    const warm = join(dir, 'warm.csv');
    writeFileSync(warm, readFileSync(manifest, 'utf8').split('\n').slice(0, 21).join('\n') + '\n');
    spawnSync(process.execPath, batchArgs(warm, s), { stdio: 'ignore' });

    log(`one process: xhd batch --threads ${s.threads}`);
    const oneCpuBefore = childCpuSeconds();
    const oneStarted = performance.now();
    const one = spawnSync(...pinned(s, 0, batchArgs(manifest, s)), { encoding: 'utf8', maxBuffer: 1 << 30 });
    const oneMs = performance.now() - oneStarted;
    const oneCpu = childCpuSeconds() - oneCpuBefore;
    if (one.status !== 0 && one.status !== 1) throw new Error(`the single batch failed (exit ${one.status}): ${one.stderr}`);

    log(`${s.shards} shards side by side: xhd batch --shard I/${s.shards} --threads ${s.threads} --partial`);
    const parts = Array.from({ length: s.shards }, (_, i) => join(dir, `part-${i}.jsonl`));
    const shardsCpuBefore = childCpuSeconds();
    const shardsStarted = performance.now();
    const codes = await Promise.all(parts.map((part, i) => runShard(manifest, s, i, part)));
    const shardsMs = performance.now() - shardsStarted;
    const shardsCpu = childCpuSeconds() - shardsCpuBefore;
    if (codes.some((c) => c !== 0 && c !== 1)) throw new Error(`a shard failed: exit codes ${codes.join(', ')}`);
    const mergeStarted = performance.now();
    const merged = spawnSync(process.execPath, [XHD, 'merge', ...parts, '--quiet'], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const mergeMs = performance.now() - mergeStarted;
    const mergeCpu = childCpuSeconds() - shardsCpuBefore - shardsCpu;
    const identical = merged.status === one.status && answers(merged.stdout) === answers(one.stdout);
    const slowest = slowestShardMs(parts);
    let slurmRow = '';
    if (s.slurm) {
      log(`${s.shards} Slurm array tasks: sbatch --array=0-${s.shards - 1} --wait examples/slurm-batch.sh`);
      const slurm = await runOnSlurm(manifest, s, dir);
      if ('why' in slurm) slurmRow = `| ${s.shards} Slurm array tasks | skipped: ${slurm.why} | | |`;
      else {
        const m = spawnSync(process.execPath, [XHD, 'merge', ...slurm.parts, '--quiet'], { encoding: 'utf8', maxBuffer: 1 << 30 });
        const same = m.status === one.status && answers(m.stdout) === answers(one.stdout);
        slurmRow = `| ${s.shards} Slurm array tasks (sbatch --wait), merged ${same ? 'identical' : 'DIFFERENT'} | ${formatMs(slurm.ms)} | ${(oneMs / slurm.ms).toFixed(2)}× | (not measured) |`;
        if (!same) process.exitCode = 1;
      }
    }

    const cores = availableParallelism();
    const report = [
      `## Sharded batch: ${s.pairs} mask pairs, 1 process against ${s.shards} shards`,
      '',
      ...runLines('scripts/bench-shard', process.argv.slice(2)),
      `- Code: ${libraryVersion(['src', 'kernels'])}; backend ${s.backend}; ${s.threads} thread${s.threads === 1 ? '' : 's'} a process`,
      `- Masks: ${s.size}×${s.size}×${Math.round(0.75 * s.size)} uint8 .nii.gz, two ellipsoids a pair${s.distinct !== undefined && s.distinct < s.pairs ? ` (${s.distinct} distinct pairs, listed over and over)` : ''}; shards run as local processes (no scheduler queueing)`,
      s.pin ? `- Pinned (--pin): each process on ${s.threads} cores of its own (taskset), as a Slurm task on --cpus-per-task=${s.threads}; the merge unpinned` : '- Not pinned: every process may run on any core',
      cores < s.shards * s.threads ? `- Note: ${s.shards} shards × ${s.threads} threads need ${s.shards * s.threads} cores; this host has ${cores}, so the shards share them and the speed-up is bounded by ${cores / s.threads}×` : `- Cores: ${s.shards} shards × ${s.threads} threads fit in ${cores}`,
      '',
      '| run | wall (ms) | wall speed-up | CPU time, all processes (s) |',
      '| --- | ---: | ---: | ---: |',
      `| 1 process | ${formatMs(oneMs)} | 1.00× | ${oneCpu.toFixed(2)} |`,
      `| ${s.shards} shards side by side | ${formatMs(shardsMs)} | ${(oneMs / shardsMs).toFixed(2)}× | ${shardsCpu.toFixed(2)} |`,
      `| ${s.shards} shards + xhd merge | ${formatMs(shardsMs + mergeMs)} | ${(oneMs / (shardsMs + mergeMs)).toFixed(2)}× | ${(shardsCpu + mergeCpu).toFixed(2)} |`,
      ...(slurmRow ? [slurmRow] : []),
      '',
      `The slowest shard's own batch time (its summary's total_ms, without its process start): ${formatMs(slowest)} ms; the single process's: ${formatMs(JSON.parse(one.stdout.trim().split('\n').at(-1)!).summary.total_ms)} ms.`,
      '',
      `With ${s.shards} shards on ${s.shards} · ${s.threads} free cores the wall time would be about the largest shard's CPU time plus the merge; ` +
        `the CPU time the shards add over the single process (${(shardsCpu + mergeCpu - oneCpu).toFixed(2)} s) is ${s.shards - 1} more process starts and library loads, and the merge.`,
      '',
      `Merged output identical to the single process's (every pair's answer, statuses, summary counts, exit code ${one.status}): ${identical ? 'yes' : 'NO'}.`,
      '',
    ].join('\n');
    publishReport(report, s.out, log);
    if (!identical) process.exitCode = 1;
  } finally {
    if (!s.keep) rmSync(dir, { recursive: true, force: true });
    else log(`files kept in ${dir}`);
  }
}

main().catch((error) => {
  log(`bench-shard: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
});
