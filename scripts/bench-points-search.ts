// The per-point pass of `xhd compare --stats / --percentile / --export` (points mode), in-process: the one search
// of xhd_points_compare (the HD and every point's nearest distance, src/ops/points-search.ts) against what compare
// ran before it, the HD search and then xhd_nearest_points both ways on the CPU library. Per backend (cpu, and
// cuda where a GPU is usable), on float32 clouds and on the same clouds as doubles at survey coordinates. Every
// timed answer is checked against the first backend's: the HD and every distance equal bit for bit.
//   scripts/bench-points-search [--sizes 100000,1000000] [--backends cpu,cuda] [--runs 3] [--threads N] [--out docs/file.md]
import assert from 'node:assert/strict';

import { cudaDevice, probeBackend } from '../src/ops/backends.js';
import { hausdorff, type BackendChoice } from '../src/ops/hausdorff.js';
import { nearestDistances } from '../src/ops/nearest.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { formatMs, gpuDescription, libraryVersion, publishReport, runLines } from './bench/report.js';
import { makeDataset } from './datasets.js';
import { median } from './bench/median.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

type Points = Float32Array | Float64Array;

/** The float32 cloud as doubles 100 times larger at x ≈ 5e5, y ≈ 4.2e6 (a survey tile in metres). */
function survey(p: Float32Array): Float64Array {
  const offset = [500_000, 4_200_000, 100];
  return Float64Array.from(p, (v, i) => offset[i % 3] + 100 * v);
}

interface Timed {
  ms: number;
  hd: number;
  distances: [Float64Array, Float64Array];
}

/** Before: the HD search, then every point's nearest both ways on the CPU library (two more grid builds). */
async function twoCalls(a: Points, b: Points, backend: BackendChoice, threads: number | undefined): Promise<Timed> {
  const start = performance.now();
  const h = await hausdorff(a, b, { backend, threads });
  const ab = await nearestDistances(a, b, { threads });
  const ba = await nearestDistances(b, a, { threads });
  return { ms: performance.now() - start, hd: h.hd, distances: [ab.distances, ba.distances] };
}

/** Now: one xhd_points_compare call on the backend. */
async function oneSearch(a: Points, b: Points, backend: BackendChoice, threads: number | undefined, nearest: boolean): Promise<Timed> {
  const start = performance.now();
  const r = await pointsSearch(a, b, { backend, threads, distances: true, nearest });
  return { ms: performance.now() - start, hd: r.hd, distances: [r.perPoint!.ab.distances!, r.perPoint!.ba!.distances!] };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let sizes = [100_000, 1_000_000], backends = ['cpu', 'cuda'], runs = 3, threads = 0, out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i] ?? '';
    switch (argv[i]) {
      case '--sizes': sizes = next().split(',').map(Number); break;
      case '--backends': backends = next().split(','); break;
      case '--runs': runs = Number(next()); break;
      case '--threads': threads = Number(next()); break;
      case '--out': out = next(); break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  const cuda = probeBackend('cuda');
  const usable = backends.filter((b) => b === 'cpu' || (b === 'cuda' && cuda.available)) as BackendChoice[];
  const threadCount = threads > 0 ? threads : undefined;
  const lines = [
    '# Per-point distances with the HD: one search (xhd_points_compare) against the HD search + xhd_nearest_points', '',
    ...runLines('scripts/bench-points-search', argv),
    `- GPU: ${gpuDescription(cuda.available ? cudaDevice(0) : { reason: cuda.reason ?? 'unknown' })}`,
    `- Native libraries from ${libraryVersion()}; ${threadCount ?? 'every'} CPU thread(s); median of ${runs} runs after one warm-up; ms, in-process`,
    '- "before": `hausdorff` on the backend, then `nearestDistances` A→B and B→A on the CPU library (what compare ran for --stats);',
    '  "one search": `pointsSearch` with distances; "+ indices": also every nearest index (what --export needs)', '',
    '| points per set | coordinates | backend | before ms | one search ms | + indices ms | before ÷ one search | HD |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const n of sizes) {
    const { a, b } = makeDataset('overlapping', n, 42);
    for (const [label, pa, pb] of [['float32', a, b], ['double, survey', survey(a), survey(b)]] as const) {
      let reference: Timed | null = null;
      for (const backend of usable) {
        const measure = async (f: () => Promise<Timed>) => {
          let last = await f();  // warm-up (library, threads, GPU context)
          const ms: number[] = [];
          for (let r = 0; r < runs; r++) ms.push((last = await f()).ms);
          reference ??= last;
          assert.equal(last.hd, reference.hd, `${label} ${backend}: HD`);
          assert.deepEqual(last.distances, reference.distances, `${label} ${backend}: distances`);
          return median(ms);
        };
        const before = await measure(() => twoCalls(pa, pb, backend, threadCount));
        const now = await measure(() => oneSearch(pa, pb, backend, threadCount, false));
        const indexed = await measure(() => oneSearch(pa, pb, backend, threadCount, true));
        log(`${n} ${label} ${backend}: before ${formatMs(before)} ms, one search ${formatMs(now)} ms, + indices ${formatMs(indexed)} ms`);
        lines.push(`| ${n.toLocaleString('en-US')} | ${label} | ${backend} | ${formatMs(before)} | ${formatMs(now)} | ${formatMs(indexed)} | ` +
          `${(before / now).toFixed(2)} | ${reference!.hd.toPrecision(10)} |`);
      }
    }
  }
  publishReport(lines.join('\n') + '\n', out, log);
}

await main();
