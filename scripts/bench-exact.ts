// Exactness benchmark: the survey-tile case of the exact-coordinates issue (a 100 m tile at x ≈ 5e5,
// y ≈ 4.2e6 and its copy moved 12 mm, written with 4 decimals) against SciPy's KD-tree in double, and the
// cost of the exactness pass (survivors of the float filter searched again in double) on the benchmark's
// synthetic cases, on the CPU and, where there is one, the GPU.
//   scripts/bench-exact [--tile 1000000] [--sizes 1000000] [--backends cpu,cuda] [--threads N] [--out docs/file.md]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

import { cudaDevice } from '../src/ops/backends.js';
import { type HausdorffResult } from '../src/ops/hausdorff.js';
import { bestOfThree, computeMs, usableBackends } from './bench/best-of.js';
import { formatMs, libraryVersion, publishReport, runLines } from './bench/report.js';
import { DATASET_NAMES, makeDataset, Rng } from './datasets.js';

const log = (line: string) => process.stderr.write(`${line}\n`);
const PYTHON = process.env.PYTHON ?? 'python3';

interface Settings {
  tile: number;
  sizes: number[];
  backends: Array<'cpu' | 'cuda'>;
  threads: number;
  out?: string;
}

function parseSettings(argv: string[]): Settings {
  const s: Settings = { tile: 1_000_000, sizes: [1_000_000], backends: ['cpu', 'cuda'], threads: availableParallelism() };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i] ?? '';
    switch (argv[i]) {
      case '--tile': s.tile = Number(next()); break;
      case '--sizes': s.sizes = next().split(',').map(Number); break;
      case '--backends': s.backends = next().split(',') as Settings['backends']; break;
      case '--threads': s.threads = Number(next()); break;
      case '--out': s.out = next(); break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return s;
}

/** The issue's tile: n points in 100 × 100 × 10 m at (5e5, 4.2e6, 100), B = A + 12 mm in x, both as %.4f. */
function surveyTile(n: number): [Float64Array, Float64Array] {
  const rng = new Rng(19);
  const a = new Float64Array(3 * n), b = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const x = 500_000 + 100 * rng.uniform(), y = 4_200_000 + 100 * rng.uniform(), z = 100 + 10 * rng.uniform();
    a.set([Number(x.toFixed(4)), Number(y.toFixed(4)), Number(z.toFixed(4))], 3 * i);
    b.set([Number((x + 0.012).toFixed(4)), a[3 * i + 1], a[3 * i + 2]], 3 * i);
  }
  return [a, b];
}

/** SciPy's cKDTree over the same doubles, both directions; null (with why) when SciPy is missing. */
function scipyHd(a: Float64Array, b: Float64Array): { hd: number; ms: number } | { skipped: string } {
  const dir = mkdtempSync(join(tmpdir(), 'xhd-exact-'));
  try {
    writeFileSync(join(dir, 'a.f64'), new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    writeFileSync(join(dir, 'b.f64'), new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
    const script = [
      'import sys, time, numpy as np',
      'from scipy.spatial import cKDTree',
      `a = np.fromfile("${dir}/a.f64").reshape(-1, 3); b = np.fromfile("${dir}/b.f64").reshape(-1, 3)`,
      't = time.perf_counter()',
      'hd = max(cKDTree(b).query(a, workers=-1)[0].max(), cKDTree(a).query(b, workers=-1)[0].max())',
      'print(repr(float(hd)), (time.perf_counter() - t) * 1000)',
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script], { encoding: 'utf8' });
    if (r.status !== 0) return { skipped: (r.stderr || r.error?.message || 'failed').trim().split('\n').pop()! };
    const [hd, ms] = r.stdout.trim().split(/\s+/).map(Number);
    return { hd, ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const compute = computeMs;
const exactMs = (r: HausdorffResult) => r.ab.exactMs + (r.ba ? r.ba.exactMs : 0);
const checks = (r: HausdorffResult) => r.ab.exactChecks + (r.ba ? r.ba.exactChecks : 0);

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = parseSettings(argv);
  const backends = usableBackends(s.backends, log);
  const lines = [
    '# Exactness benchmark: survey coordinates and the cost of the exactness pass', '',
    ...runLines('scripts/bench-exact', argv),
    `- GPU: ${backends.includes('cuda') ? `${cudaDevice(0).name} (driver ${cudaDevice(0).driverVersion})` : 'none used'}`,
    `- Native libraries from ${libraryVersion()}; CPU threads: ${s.threads}`,
    '- compute = index builds + queries of both directions as the library reports them; exact = the part of it spent',
    '  searching the float filter\'s survivors again in double; checks = survivors searched so (both directions). Best of 3.',
    '',
    `## The survey tile: ${s.tile.toLocaleString('en-US')} points at (5e5, 4.2e6, 100), B = A + 12 mm in x, 4 decimals`, '',
    '| method | HD | equal to SciPy (double KD-tree) | compute ms | exact ms | checks |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  const [a, b] = surveyTile(s.tile);
  const scipy = scipyHd(a, b);
  lines.push('skipped' in scipy ? `| SciPy cKDTree | (skipped: ${scipy.skipped}) | | | | |`
    : `| SciPy cKDTree (workers = all) | ${scipy.hd} | reference | ${formatMs(scipy.ms)} | | |`);
  for (const backend of backends) {
    const r = await bestOfThree(a, b, backend, s.threads);
    const same = 'skipped' in scipy ? 'n/a' : r.hd === scipy.hd ? 'yes' : `no (${r.hd - scipy.hd})`;
    lines.push(`| xhd grid, ${backend} | ${r.hd} | ${same} | ${formatMs(compute(r))} | ${formatMs(exactMs(r))} | ${checks(r).toLocaleString('en-US')} |`);
    log(`tile ${backend}: hd ${r.hd}, compute ${compute(r).toFixed(1)} ms, exact ${exactMs(r).toFixed(1)} ms`);
  }

  for (const n of s.sizes) {
    lines.push('', `## The exactness pass on the synthetic cases (float32 inputs), ${n.toLocaleString('en-US')} points`, '',
      '| case | backend | HD | compute ms | exact ms | exact / compute | checks |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const name of DATASET_NAMES) {
      const pair = makeDataset(name, n, 42);
      for (const backend of backends) {
        const r = await bestOfThree(pair.a, pair.b, backend, s.threads);
        const share = (100 * exactMs(r)) / compute(r);
        lines.push(`| ${name} | ${backend} | ${r.hd.toPrecision(10)} | ${formatMs(compute(r))} | ${formatMs(exactMs(r))} | ${share.toFixed(2)}% | ${checks(r).toLocaleString('en-US')} |`);
        log(`${name} ${n} ${backend}: compute ${compute(r).toFixed(1)} ms, exact ${exactMs(r).toFixed(2)} ms (${share.toFixed(2)}%)`);
      }
    }
  }
  publishReport(lines.join('\n') + '\n', s.out, log);
}

main().catch((err) => {
  log(err instanceof Error ? err.stack ?? err.message : String(err));
  process.exit(1);
});
