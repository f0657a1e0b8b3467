// A BraTS-sized mask pair end to end: the process wall of `xhd compare A.nii.gz B.nii.gz --percentile 95 --json`
// (per backend), the floor under it (Node's start, `xhd --version`), and the reading phases in-process: disk,
// gunzip, NIfTI parse, mask → surface points in TypeScript, in the CPU library (every core, and one thread) and on
// the GPU (xhd_mask_points on the CUDA library, where a GPU is usable). Every native pass's points are checked
// against the TypeScript ones bit for bit before they are timed.
//   scripts/bench-mask-wall [--runs 9] [--backends cpu,cuda] [--out docs/file.md]
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

import { parseNifti } from '../src/io/nifti.js';
import { maskToPointsInTs } from '../src/io/voxel-mask.js';
import { cudaDevice, probeBackend } from '../src/ops/backends.js';
import { maskPointsOn } from '../src/ops/mask-points.js';
import { distanceStats } from '../src/metrics/distance-stats.js';
import { nativeDistanceStats } from '../src/ops/distance-stats-native.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { formatMs, gpuDescription, libraryVersion, publishReport, runLines } from './bench/report.js';
import { ROOT } from './bench/root.js';
import { makeMaskPair, writeMask } from './bench/masks-shapes.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

function stats(ms: number[]): { best: number; median: number } {
  const s = [...ms].sort((p, q) => p - q);
  return { best: s[0], median: s[Math.floor((s.length - 1) / 2)] };
}

function timed<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const value = f();
  return [value, performance.now() - t0];
}

/** Wall times of a child process (`node …`) from spawn to exit, and the fastest run's stdout. */
function processWall(args: string[], runs: number): { ms: number[]; stdout: string } {
  const ms: number[] = [];
  let stdout = '', fastest = Infinity;
  for (let r = 0; r <= runs; r++) {
    const t0 = performance.now();
    const child = spawnSync(process.execPath, args, { encoding: 'utf8', cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    const wall = performance.now() - t0;
    if (child.status !== 0) throw new Error(`${args.join(' ')} failed: ${child.stderr}`);
    if (r === 0) continue; // the first run warms the page cache
    ms.push(wall);
    if (wall < fastest) [fastest, stdout] = [wall, child.stdout];
  }
  return { ms, stdout };
}

function sameBits(p: Float64Array, q: Float64Array): boolean {
  return p.length === q.length && Buffer.from(p.buffer, p.byteOffset, p.byteLength).equals(Buffer.from(q.buffer, q.byteOffset, q.byteLength));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let runs = 9, out: string | undefined, backends = ['cpu', 'cuda'];
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i];
    switch (argv[i]) {
      case '--runs': runs = Number(next()); break;
      case '--backends': backends = next().split(','); break;
      case '--out': out = next(); break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  const cuda = probeBackend('cuda');
  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-mask-wall-'));
  try {
    const pair = makeMaskPair(1, 1);
    const files = [join(dir, 'a.nii.gz'), join(dir, 'b.nii.gz')];
    writeMask(files[0], 'iso', pair.dims, pair.a);
    writeMask(files[1], 'iso', pair.dims, pair.b);
    const lines = [
      '# A BraTS-sized mask pair end to end: process wall and reading phases', '',
      ...runLines('scripts/bench-mask-wall', argv),
      `- GPU: ${gpuDescription(cuda.available ? cudaDevice(0) : { reason: cuda.reason ?? 'unknown' })}`,
      `- Native libraries from ${libraryVersion()}; masks: scripts/bench/masks-shapes.ts seed 1, 240×240×155, 1 mm (${pair.foregroundA} and ${pair.foregroundB} foreground voxels)`,
      `- Best and median of ${runs} runs after one warm-up; load average before the process runs ${loadavg()[0].toFixed(2)}`, '',
      '## Process wall (spawn to exit, `node bin/xhd …`)', '',
      '| command | best ms | median ms | timings_ms of the best run (read · build · query · stats · total) |',
      '| --- | ---: | ---: | --- |',
    ];
    for (const [label, args] of [['`node -e 0` (Node alone)', ['-e', '0']], ['`xhd --version`', ['bin/xhd', '--version']]] as const) {
      const s = stats(processWall([...args], runs).ms);
      lines.push(`| ${label} | ${formatMs(s.best)} | ${formatMs(s.median)} | |`);
      log(`${label}: best ${formatMs(s.best)} ms`);
    }
    // The command as a user types it (--backend auto), then each backend named, then the GPU with NSD at
    // 1 mm (issue 25's GPU metrics: HD, HD95, ASSD and NSD, summed from the timings as upload · build · query ·
    // download · statistics).
    const variants: Array<{ extra: string[]; gpu: boolean }> = [{ extra: [], gpu: false }, ...backends.map((b) => ({ extra: ['--backend', b], gpu: b !== 'cpu' }))];
    if (backends.includes('cuda')) variants.push({ extra: ['--backend', 'cuda', '--nsd', '1'], gpu: true });
    for (const { extra, gpu } of variants) {
      const shown = `\`xhd compare A B --percentile 95 --json${extra.length > 0 ? ' ' : ''}${extra.join(' ')}\``;
      if (gpu && !cuda.available) {
        lines.push(`| ${shown} | (skipped: no usable GPU) | | |`);
        continue;
      }
      const { ms, stdout } = processWall(['bin/xhd', 'compare', ...files, '--percentile', '95', '--json', ...extra], runs);
      const result = JSON.parse(stdout), t = result.timings_ms;
      const s = stats(ms);
      const gpuMetrics = result.backend === 'cpu' ? '' : `; on ${result.backend}: upload + build + query + download + statistics = ${formatMs(t.upload + t.build + t.query + t.download + t.stats)}`;
      lines.push(`| ${shown} | ${formatMs(s.best)} | ${formatMs(s.median)} | ` +
        `${[t.read, t.build, t.query, t.stats, t.total].map(formatMs).join(' · ')} (ran on ${result.backend}${gpuMetrics}) |`);
      log(`compare ${extra.join(' ')}: best ${formatMs(s.best)} ms, median ${formatMs(s.median)} ms${gpuMetrics}`);
    }

    lines.push('', '## Reading, in-process (both files, ms)', '', '| phase | best | median |', '| --- | ---: | ---: |');
    const phases: Record<string, number[]> = {};
    const add = (name: string, ms: number) => (phases[name] ??= []).push(ms);
    const volumes = files.map((f) => parseNifti(gunzipSync(readFileSync(f)), f));
    const reference = volumes.map((v) => maskToPointsInTs(v, { region: 'surface' }));
    const native = (backend: 'cpu' | 'cuda', threads: number) => volumes.map((v, n) => {
      const p = maskPointsOn(backend, { values: v.values, dims: v.dims, affine: v.affine, surface: true, threads });
      assert.ok(sameBits(p.positions, reference[n].positions), `${backend}: the TypeScript points bit for bit`);
      return p;
    });
    native('cpu', 0);
    if (cuda.available && backends.includes('cuda')) native('cuda', 0);
    for (let r = 0; r <= runs; r++) {
      const [bytes, disk] = timed(() => files.map((f) => readFileSync(f)));
      const [raw, gunzip] = timed(() => bytes.map((b) => gunzipSync(b)));
      const [parsed, parse] = timed(() => raw.map((b, n) => parseNifti(b, files[n])));
      const [, ts] = timed(() => parsed.map((v) => maskToPointsInTs(v, { region: 'surface' })));
      const [, cpuAll] = timed(() => native('cpu', 0));
      const [, cpuOne] = timed(() => native('cpu', 1));
      if (r === 0) continue;
      add('disk (readFileSync)', disk);
      add('gunzip', gunzip);
      add('NIfTI parse', parse);
      add('mask → surface points, TypeScript', ts);
      add('mask → surface points, CPU library, every core', cpuAll);
      add('mask → surface points, CPU library, 1 thread', cpuOne);
      if (cuda.available && backends.includes('cuda')) {
        const [gpu, gpuWall] = timed(() => native('cuda', 0));
        add('mask → surface points, CUDA library (wall, both files)', gpuWall);
        add('  of which upload', gpu[0].uploadMs + gpu[1].uploadMs);
        add('  of which kernels (selection and placement)', gpu[0].computeMs + gpu[1].computeMs);
        add('  of which download', gpu[0].downloadMs + gpu[1].downloadMs);
      }
    }
    for (const [name, ms] of Object.entries(phases)) {
      const s = stats(ms);
      lines.push(`| ${name} | ${formatMs(s.best)} | ${formatMs(s.median)} |`);
      log(`${name}: best ${formatMs(s.best)} ms`);
    }
    // The statistics of `--percentile 95` (max-of-directed HD95, ASSD, RMS, Chamfer) over the pair's per-point distances.
    const search = await pointsSearch(reference[0].positions, reference[1].positions, { backend: 'cpu', distances: true });
    const ab = search.perPoint!.ab.distances!, ba = search.perPoint!.ba!.distances!;
    lines.push('', `## Statistics of the per-point distances (${ab.length} + ${ba.length}), in-process, ms`, '',
      '| where | best | median | of which upload (GPU) |', '| --- | ---: | ---: | ---: |');
    const want = JSON.stringify(distanceStats(ab, ba, { percentile: 95 }));
    const statRuns: Array<[string, () => Promise<number>]> = [
      ['TypeScript (src/metrics)', async () => { distanceStats(ab, ba, { percentile: 95 }); return 0; }],
      ['CPU library, every core', async () => check((await nativeDistanceStats(ab, ba, { percentile: 95 }, { backend: 'cpu' })))],
      ['CPU library, every core, with NSD at 1 mm counted', async () => check((await nativeDistanceStats(ab, ba, { percentile: 95 }, { backend: 'cpu', tolerances: [1] })))],
    ];
    function check(r: { stats: unknown; uploadMs: number }): number {
      assert.equal(JSON.stringify(r.stats), want, 'the TypeScript statistics bit for bit');
      return r.uploadMs;
    }
    if (cuda.available && backends.includes('cuda')) {
      statRuns.push(['CUDA library, on the device', async () => check(await nativeDistanceStats(ab, ba, { percentile: 95 }, { backend: 'cuda', device: 0 }))]);
      statRuns.push(['CUDA library, on the device, with NSD at 1 mm counted', async () => check(await nativeDistanceStats(ab, ba, { percentile: 95 }, { backend: 'cuda', device: 0, tolerances: [1] }))]);
    }
    for (const [name, run] of statRuns) {
      await run();
      const ms: number[] = [], upload: number[] = [];
      for (let r = 0; r < runs; r++) {
        const t0 = performance.now();
        upload.push(await run());
        ms.push(performance.now() - t0);
      }
      const s = stats(ms);
      lines.push(`| ${name} | ${formatMs(s.best)} | ${formatMs(s.median)} | ${name.startsWith('CUDA') ? formatMs(stats(upload).median) : ''} |`);
      log(`statistics, ${name}: best ${formatMs(s.best)} ms`);
    }
    // Issue 25's GPU metrics as one evaluation after reading: the search with every point's distance, then HD95,
    // ASSD and NSD at 1 mm from them, on each backend, two ways: the search and then the statistics (two native
    // calls, the distances back on the host between them), and the search with its statistics (one call,
    // xhd_points_compare_stats, told that the voxel centres are distinct, as the CLI makes it: on the GPU the
    // distances stay there). The first run (the library's and kernels' first use) apart.
    lines.push('', '## The evaluation after reading (search with every point\'s distance, then HD95, ASSD, NSD at 1 mm), in-process, ms', '',
      '| backend | native calls | first run | best | median |', '| --- | --- | ---: | ---: | ---: |');
    const evaluations: Array<'cpu' | 'cuda'> = cuda.available && backends.includes('cuda') ? ['cpu', 'cuda'] : ['cpu'];
    const ways = {
      'search, then statistics': async (backend: 'cpu' | 'cuda') => {
        const found = await pointsSearch(reference[0].positions, reference[1].positions, { backend, device: 0, distances: true });
        return (await nativeDistanceStats(found.perPoint!.ab.distances!, found.perPoint!.ba!.distances!, { percentile: 95 }, { backend, device: 0, tolerances: [1] })).stats;
      },
      'search with statistics': async (backend: 'cpu' | 'cuda') => {
        const found = await pointsSearch(reference[0].positions, reference[1].positions,
          { backend, device: 0, distinct: true, stats: { options: { percentile: 95 }, tolerances: [1] } });
        return found.stats!.stats;
      },
    };
    for (const backend of evaluations) {
      for (const [way, measure] of Object.entries(ways)) {
        const evaluate = async () => {
          const t0 = performance.now();
          const s = await measure(backend);
          const ms = performance.now() - t0;
          assert.equal(JSON.stringify(s), want, 'the TypeScript statistics bit for bit');
          return ms;
        };
        const first = await evaluate();
        const ms: number[] = [];
        for (let r = 0; r < runs; r++) ms.push(await evaluate());
        const s = stats(ms);
        lines.push(`| ${backend} | ${way} | ${formatMs(first)} | ${formatMs(s.best)} | ${formatMs(s.median)} |`);
        log(`evaluation on ${backend}, ${way}: first ${formatMs(first)} ms, best ${formatMs(s.best)} ms, median ${formatMs(s.median)} ms`);
      }
    }
    publishReport(lines.join('\n') + '\n', out, log);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
