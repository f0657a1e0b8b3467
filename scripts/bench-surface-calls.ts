// Surface compare: wall time of compareSurfaces (what `xhd compare` runs on meshes after reading) and how many
// times it crosses into the native library, per compare, on real meshes. Every call of every entry point of the
// backend object is counted, synchronous or on a worker thread. Runs in a tree before the one-call compare too
// (it needs only compareSurfaces, readGeometry and loadBackend), so the same script measures both.
//   scripts/bench-surface-calls [--data DIR] [--runs N] [--threads T]
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';

import { readGeometry } from '../src/io/read.js';
import { loadBackend, type NativeBackend } from '../src/native/library.js';
import { compareSurfaces, type SurfaceCompareOptions } from '../src/ops/surface-compare.js';
import { median } from './bench/median.js';

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const dataDir = option('--data', join(process.cwd(), '..', 'shared', 'data', 'meshes'));
const runs = Number(option('--runs', '7'));
const threads = Number(option('--threads', String(availableParallelism())));

/** Replaces every entry point of the backend by a wrapper that counts its calls into counts. */
function countCalls(backend: NativeBackend, counts: Map<string, number>): void {
  const entries = backend as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(entries)) {
    if (typeof value !== 'function') continue;
    const fn = value as ((...args: unknown[]) => unknown) & { async: (...args: unknown[]) => unknown };
    const count = () => counts.set(key, (counts.get(key) ?? 0) + 1);
    const wrapped = (...args: unknown[]) => (count(), fn(...args));
    wrapped.async = (...args: unknown[]) => (count(), fn.async(...args));
    entries[key] = wrapped;
  }
}


const cases: [string, string, string, Partial<SurfaceCompareOptions>][] = [
  ['armadillo vs a copy, area (default count: 100,000 each)', 'armadillo.off', 'armadillo.off', {}],
  ['armadillo vs a copy, vertices+edges+faces', 'armadillo.off', 'armadillo.off', { sampling: 'vertices+edges+faces' }],
  ['armadillo vs a copy, area, one thread', 'armadillo.off', 'armadillo.off', { threads: 1 }],
  ['elephant vs a copy, area, 2,000 samples', 'elephant.off', 'elephant.off', { samples: 2000 }],
  ['cube_poly vs sphere.stl, vertices', 'cube_poly.off', 'sphere.stl', { sampling: 'vertices' }],
];

const counts = new Map<string, number>();
countCalls(loadBackend('cpu'), counts);
console.log(`node ${process.version}, ${cpus()[0]?.model ?? '?'} x${cpus().length}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ` +
  `${runs} runs each (after one warm-up), threads ${threads} unless said`);
console.log('| case | crossings per compare | median ms | best ms | HD |');
console.log('|---|---|---:|---:|---:|');
for (const [label, fileA, fileB, extra] of cases) {
  const a = readGeometry(join(dataDir, fileA)), b = readGeometry(join(dataDir, fileB));
  const o: SurfaceCompareOptions = { method: 'grid', directed: false, sampling: 'area', seed: 20260707, backend: 'cpu', threads, ...extra };
  await compareSurfaces(a, b, o); // warm-up: the worker pool, the code paths
  counts.clear();
  const times: number[] = [];
  let hd = 0;
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    const outcome = await compareSurfaces(a, b, o);
    times.push(performance.now() - start);
    hd = Math.max(outcome.ab.hd, outcome.ba?.hd ?? 0);
  }
  const perCompare = [...counts].map(([k, n]) => `${k} ${n / runs}`).join(', ');
  const total = [...counts.values()].reduce((s, n) => s + n, 0) / runs;
  console.log(`| ${label} | ${total}: ${perCompare} | ${median(times).toFixed(1)} | ${Math.min(...times).toFixed(1)} | ${hd.toPrecision(6)} |`);
}
