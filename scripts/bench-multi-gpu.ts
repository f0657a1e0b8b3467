// Multi-GPU benchmark (issue "Measure multi-GPU scaling"): one overlapping 3D compare of 12.5M points a side and
// one large one (200M by default, --large 1000000000 for the 1B target), each on every worker list asked for
// (--devices lists: one GPU, two, all; on a one-GPU machine `0,0` runs two workers on it) and each way of
// splitting a compare (--splits: `space`, the default split by slabs, and `queries`, every worker with the
// whole target, XHD_SPLIT_BY=queries), and a batch of 1,000 mask pairs spread over the same lists. Each list
// runs once untimed first (contexts, pinned buffers). Every answer is checked against the first list's
// (witnesses included): ✗ marks a difference. Prints a markdown report for docs/benchmarks.md.
//   scripts/bench-multi-gpu [--lists '0;0,1;all'] [--sizes 12500000] [--large 200000000] [--runs 3]
//                           [--splits space,queries] [--batch-pairs 1000] [--distinct-masks 40] [--mask-scale 0.3]
//                           [--memory-limit 0] [--out docs/file.md] [--backend cuda|cpu] [--pinned]
// --pinned: the compares' inputs page-locked by the CUDA library (xhd_host_pin, src/native/pinned-inputs.ts) before
// the timing; what pinning and unpinning cost is reported beside the rows, not timed as the call.
// --backend cpu runs the script itself where there is no GPU (its lists are thread groups; nothing scales there).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cudaDevice, probeBackend } from '../src/ops/backends.js';
import { pointsSearch, type PointsSearchResult } from '../src/ops/points-search.js';
import { pinInputs } from '../src/native/pinned-inputs.js';
import { loadBackend } from '../src/native/library.js';
import { gpuDescription, libraryVersion, publishReport, runLines } from './bench/report.js';
import { makeMaskPair, writeMask } from './bench/masks-shapes.js';
import { ROOT } from './bench/root.js';
import { overlappingParallel } from './bench/overlapping-parallel.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Settings {
  lists: Array<number[] | 'all'>;
  sizes: number[];
  large: number;
  runs: number;
  batchPairs: number;
  distinctMasks: number;
  maskScale: number;
  memoryLimit: number;
  splits: Split[];
  backend: 'cuda' | 'cpu';
  pinned: boolean;
  out?: string;
}

// `space-copied`: split by space with each worker's parts copied on the host first (XHD_GATHERED_SLABS=0), the way
// before the parts were gathered straight into the uploads, to measure what that saves. `space-gathered`: the
// parts gathered from the host's layouts (XHD_EXCHANGED_SLABS=0), the way before the GPUs made them
// (kernels/cuda/slab_exchange.h).
type Split = 'space' | 'queries' | 'space-copied' | 'space-gathered';

function parseList(text: string): number[] | 'all' {
  return text === 'all' ? 'all' : text.split(',').map(Number);
}

function parseSettings(argv: string[]): Settings {
  const s: Settings = { lists: [[0], [0, 0], 'all'], sizes: [12_500_000], large: 200_000_000, runs: 3, batchPairs: 1000, distinctMasks: 40, maskScale: 0.3, memoryLimit: 0, splits: ['space', 'queries'], backend: 'cuda', pinned: false };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i] ?? '';
    switch (argv[i]) {
      case '--lists': s.lists = next().split(';').map(parseList); break;
      case '--sizes': s.sizes = next().split(',').map(Number).filter((n) => n > 0); break;
      case '--large': s.large = Number(next()); break;
      case '--runs': s.runs = Number(next()); break;
      case '--batch-pairs': s.batchPairs = Number(next()); break;
      case '--distinct-masks': s.distinctMasks = Number(next()); break;
      case '--mask-scale': s.maskScale = Number(next()); break;
      case '--memory-limit': s.memoryLimit = Number(next()); break;
      case '--splits': s.splits = next().split(',') as Split[]; break;
      case '--backend': s.backend = next() === 'cpu' ? 'cpu' : 'cuda'; break;
      case '--out': s.out = next(); break;
      case '--pinned': s.pinned = true; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return s;
}

const listName = (l: number[] | 'all') => (l === 'all' ? 'all' : l.join(','));

function answerOf(r: PointsSearchResult): string {
  return JSON.stringify([r.ab.distance, r.ab.fromIndex, r.ab.toIndex, r.ba?.distance, r.ba?.fromIndex, r.ba?.toIndex]);
}

interface CompareRow {
  list: string;
  split: Split | 'one GPU';
  workers: number;
  wallMs: number;
  computeMs: number;
  uploadMs: number;
  bySpace: string;
  tiles: number;
  same: boolean;
  hd: number;
}

/** The runs of one compare split one way: with XHD_SPLIT_BY (and XHD_GATHERED_SLABS) set for the library (read at each call). */
async function withSplit<T>(split: Split, run: () => Promise<T>): Promise<T> {
  process.env.XHD_SPLIT_BY = split.startsWith('space') ? 'space' : split;
  if (split === 'space-copied') process.env.XHD_GATHERED_SLABS = '0';
  if (split === 'space-gathered') process.env.XHD_EXCHANGED_SLABS = '0';
  try {
    return await run();
  } finally {
    delete process.env.XHD_SPLIT_BY;
    delete process.env.XHD_GATHERED_SLABS;
    delete process.env.XHD_EXCHANGED_SLABS;
  }
}

/** One compare on each list and split: best wall time of `runs` (the native call: frame, uploads, both directions). */
async function compareRows(n: number, s: Settings): Promise<CompareRow[]> {
  log(`generating the overlapping pair of ${n.toLocaleString('en-US')} points a side`);
  const drawing = performance.now();
  const drawn = await overlappingParallel(n, 20260707);
  log(`  drawn in ${((performance.now() - drawing) / 1000).toFixed(1)} s`);
  if (!(s.pinned && s.backend === 'cuda')) return compareRowsOf(drawn.a, drawn.b, n, s);
  const pinning = performance.now();
  const pinned = pinInputs(loadBackend('cuda'), [drawn.a, drawn.b]);
  log(`  page-locked ${pinned.pinned} of 2 sets in ${(performance.now() - pinning).toFixed(0)} ms${pinned.refused ? ` (refused: ${pinned.refused})` : ''}`);
  try {
    return await compareRowsOf(drawn.a, drawn.b, n, s);
  } finally {
    const unpinning = performance.now();
    pinned.unpin();
    log(`  unpinned in ${(performance.now() - unpinning).toFixed(0)} ms`);
  }
}

async function compareRowsOf(a: Float32Array, b: Float32Array, n: number, s: Settings): Promise<CompareRow[]> {
  const warm = await overlappingParallel(100_000, 1);
  const rows: CompareRow[] = [];
  let reference: string | null = null;
  for (const list of s.lists) {
    const options = { backend: s.backend, devices: list, memoryLimit: s.memoryLimit || undefined };
    await pointsSearch(warm.a, warm.b, options);  // every device of the list in use once before the timing
    const alone = list !== 'all' && list.length === 1;
    for (const split of alone ? [s.splits[0]] : s.splits) {
      let best: CompareRow | null = null;
      for (let run = 0; run < s.runs; run++) {
        const started = performance.now();
        const r = await withSplit(split, () => pointsSearch(a, b, options));
        const wallMs = performance.now() - started;
        const answer = answerOf(r);
        reference ??= answer;
        const row: CompareRow = { list: listName(list), split: alone ? 'one GPU' : split, workers: r.placement.workers, wallMs,
          computeMs: r.ab.buildMs + r.ab.queryMs + r.ba!.buildMs + r.ba!.queryMs, uploadMs: r.uploadMs,
          bySpace: r.placement.splitBySpace.join(',') || '–', tiles: r.placement.targetTiles, same: answer === reference, hd: r.hd };
        if (!best || row.wallMs < best.wallMs) best = row;
        log(`  ${n} on ${row.list} (${row.split}): ${wallMs.toFixed(0)} ms wall, ${row.computeMs.toFixed(0)} ms build+query, ` +
          `${row.uploadMs.toFixed(0)} ms upload, by space ${row.bySpace}, HD ${r.hd}${row.same ? '' : ' ✗ differs'}`);
      }
      rows.push(best!);
    }
  }
  return rows;
}

interface BatchRow {
  list: string;
  wallMs: number;
  same: boolean;
  errors: number;
}

/** The batch of `batchPairs` mask pairs (cycling over `distinctMasks` distinct ones) on each list, wall time of the CLI. */
function batchRows(s: Settings, dir: string): BatchRow[] {
  const lines = ['a,b'];
  const files: Array<[string, string]> = [];
  for (let k = 0; k < s.distinctMasks; k++) {
    const pair = makeMaskPair(1000 + k, s.maskScale);
    const fa = join(dir, `m${k}-a.nii.gz`), fb = join(dir, `m${k}-b.nii.gz`);
    writeMask(fa, 'iso', pair.dims, pair.a);
    writeMask(fb, 'iso', pair.dims, pair.b);
    files.push([fa, fb]);
  }
  for (let k = 0; k < s.batchPairs; k++) lines.push(files[k % files.length].join(','));
  const manifest = join(dir, 'pairs.csv');
  writeFileSync(manifest, lines.join('\n') + '\n');
  const rows: BatchRow[] = [];
  let reference: string | null = null;
  for (const list of s.lists) {
    // XHD_BENCH_NODE_ARGS: flags for the batch's node (e.g. --cpu-prof), and XHD_BENCH_BATCH_ARGS more options
    // of the batch (e.g. --threads 1): to see where a pair's time goes.
    const nodeArgs = (process.env.XHD_BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
    const args = [...nodeArgs, join(ROOT, 'bin', 'xhd'), 'batch', manifest, '--backend', s.backend, '--quiet', '--percentile', '95', '--devices', listName(list),
      // One lane a GPU, so that the rows measure GPUs (a mask batch defaults to four lanes a GPU; XHD_BENCH_BATCH_ARGS
      // can give --lanes, the last one counting).
      '--lanes', '1',
      ...(process.env.XHD_BENCH_BATCH_ARGS ?? '').split(' ').filter((a) => a !== '')];
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
    const wallMs = performance.now() - started;
    const records = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const summary = records.pop().summary;
    const answers = JSON.stringify(records.map((o) => [o.line, o.status, o.hd, o.hd95, o.witness_ab, o.witness_ba]));
    reference ??= answers;
    rows.push({ list: listName(list), wallMs, same: answers === reference, errors: summary.errors });
    log(`  batch on ${listName(list)}: ${(wallMs / 1000).toFixed(1)} s, ${summary.errors} errors${answers === reference ? '' : ' ✗ differs'}`);
  }
  return rows;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = parseSettings(argv);
  const cuda = probeBackend('cuda');
  if (!cuda.available && s.backend === 'cuda') throw new Error(`no usable CUDA GPU: ${cuda.reason}`);
  const report: string[] = ['# Multi-GPU benchmark: --devices', '', ...runLines('scripts/bench-multi-gpu', argv),
    s.backend === 'cuda' ? `- GPU 0: ${gpuDescription(cudaDevice(0))}; GPUs seen: ${cuda.devices?.length ?? '?'}` : '- Backend: cpu (a run of the script, not a measurement)',
    `- Native library: build/libxhd_${s.backend}.so from ${libraryVersion()}`,
    `- Inputs: ${s.pinned ? 'page-locked by the library before the runs (--pinned: xhd_host_pin)' : 'JavaScript\'s memory, pageable'}`,
    '- Compare: overlapping 3D pairs (scripts/bench/overlapping-parallel.ts), float32, no per-point outputs; wall = the',
    '  native call (framing, uploads, both directions), best of the runs; build+query and upload = the library\'s own',
    '  times (each the slowest worker\'s; build+query sums both directions, and an unsettled split by space\'s second search).',
    '- Split: `space`, slabs with halos (XHD_SPLIT_BY=space; README, "Several GPUs"); `queries`, every worker the whole target (XHD_SPLIT_BY=queries).',
    '  "by space": the directions the slabs settled. Speed-up: against the first row. ✗: an answer (HD, witnesses) differs.', ''];
  for (const n of [...s.sizes, ...(s.large > 0 ? [s.large] : [])]) {
    const rows = await compareRows(n, s);
    report.push(`## ${n.toLocaleString('en-US')} × ${n.toLocaleString('en-US')} points, overlapping 3D`, '',
      '| devices | split | workers | wall ms | speed-up (wall) | build+query ms | speed-up (build+query) | upload ms | by space | target tiles | HD | same answer |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | :---: |');
    for (const r of rows) {
      report.push(`| ${r.list} | ${r.split} | ${r.workers} | ${r.wallMs.toFixed(0)} | ${(rows[0].wallMs / r.wallMs).toFixed(2)}× | ${r.computeMs.toFixed(0)} | ` +
        `${(rows[0].computeMs / r.computeMs).toFixed(2)}× | ${r.uploadMs.toFixed(0)} | ${r.bySpace} | ${r.tiles} | ${r.hd.toPrecision(9)} | ${r.same ? '✓' : '✗'} |`);
    }
    report.push('');
  }
  if (s.batchPairs > 0) {
    const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-multi-'));
    try {
      const rows = batchRows(s, dir);
      report.push(`## Batch of ${s.batchPairs} mask pairs (HD, HD95; ${s.distinctMasks} distinct pairs at scale ${s.maskScale} of 240×240×155)`, '',
        '| devices | wall s | speed-up | errors | same answers |', '| --- | ---: | ---: | ---: | :---: |');
      for (const r of rows) report.push(`| ${r.list} | ${(r.wallMs / 1000).toFixed(1)} | ${(rows[0].wallMs / r.wallMs).toFixed(2)}× | ${r.errors} | ${r.same ? '✓' : '✗'} |`);
      report.push('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  publishReport(report.join('\n') + '\n', s.out, log);
}

main().catch((err) => {
  log(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
