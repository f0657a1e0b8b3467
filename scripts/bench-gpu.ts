// GPU benchmark (run on a machine with a CUDA GPU): our X-HD GPU method beside our GPU eb, PyTorch's
// chunked brute force and our CPU backend, on the X-HD paper's four cases in 3D and 2D, plus the
// end-to-end wall time of `xhd compare` on binary PLY files. One markdown table per dimension and size.
//   scripts/bench-gpu [--sizes 1000000,12500000,25000000] [--dims 3,2] [--cases overlapping,...]
//                     [--timeout 60] [--eb-full-below 20] [--no-e2e] [--no-cpu] [--out docs/file.md]
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import { cudaDevice } from '../src/ops/backends.js';
import { CancelledError, hausdorff } from '../src/ops/hausdorff.js';
import { publishReport } from './bench/report.js';
import { ROOT } from './bench/root.js';
import { DATASET_NAMES, makeDataset, makeDataset2d, type DatasetName } from './datasets.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Settings {
  sizes: number[];
  dims: Array<2 | 3>;
  cases: DatasetName[];
  timeoutS: number;
  ebFullBelowS: number;
  e2e: boolean;
  cpu: boolean;
  out?: string;
}

function parseSettings(argv: string[]): Settings {
  const s: Settings = { sizes: [1_000_000, 12_500_000, 25_000_000], dims: [3, 2], cases: [...DATASET_NAMES], timeoutS: 60, ebFullBelowS: 20, e2e: true, cpu: true };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i] ?? '';
    switch (argv[i]) {
      case '--sizes': s.sizes = next().split(',').map(Number); break;
      case '--dims': s.dims = next().split(',').map((d) => (d === '2' ? 2 : 3)); break;
      case '--cases': s.cases = next().split(',') as DatasetName[]; break;
      case '--timeout': s.timeoutS = Number(next()); break;
      case '--eb-full-below': s.ebFullBelowS = Number(next()); break;
      case '--no-e2e': s.e2e = false; break;
      case '--no-cpu': s.cpu = false; break;
      case '--out': s.out = next(); break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return s;
}

type Cell = { ms: number; hd: number; note?: string } | { skipped: string };

/** Our GPU method: best of three, GPU time = index builds + queries of both directions (CUDA events). */
async function oursGpu(a: Float32Array, b: Float32Array): Promise<{ ms: number; hd: number; detail: string }> {
  let best = Infinity, hd = 0, detail = '';
  for (let run = 0; run < 3; run++) {
    const r = await hausdorff(a, b, { backend: 'cuda' });
    const ms = r.ab.buildMs + r.ab.queryMs + r.ba!.buildMs + r.ba!.queryMs;
    if (ms < best) {
      best = ms;
      hd = r.hd;
      detail = `build ${(r.ab.buildMs + r.ba!.buildMs).toFixed(2)} + query ${(r.ab.queryMs + r.ba!.queryMs).toFixed(2)} ms, ` +
        `grid ${r.ab.gridDims.join('×')}, upload ${r.uploadMs.toFixed(1)} ms, peak ${(r.peakDeviceBytes / 2 ** 20).toFixed(0)} MiB`;
    }
  }
  return { ms: best, hd, detail };
}

function strided(p: Float32Array, count: number): Float32Array {
  const n = p.length / 3, step = Math.max(1, Math.floor(n / count));
  const out = new Float32Array(3 * Math.min(count, n));
  for (let i = 0; i < out.length / 3; i++) out.set(p.subarray(3 * i * step, 3 * i * step + 3), 3 * i);
  return out;
}

/** Runs one full computation under the wall-clock limit (cancelling the native work when it is hit). */
async function timed(run: (signal: AbortSignal) => Promise<Cell>, s: Settings): Promise<Cell> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), s.timeoutS * 1000);
  try {
    return await run(controller.signal);
  } catch (err) {
    if (err instanceof CancelledError) return { skipped: `> ${s.timeoutS} s` };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Our GPU eb: run in full when a sample says it ends within ebFullBelowS, else that estimate. */
async function ebGpu(a: Float32Array, b: Float32Array, s: Settings): Promise<Cell> {
  const n = a.length / 3, m = b.length / 3;
  const k = Math.min(n, m, Math.max(2000, Math.floor(Math.min(n, m) / 1000)));
  const sa = await hausdorff(strided(a, k), b, { backend: 'cuda', method: 'eb', directed: true });
  const sb = await hausdorff(strided(b, k), a, { backend: 'cuda', method: 'eb', directed: true });
  const estimateMs = sa.ab.queryMs * (n / k) + sb.ab.queryMs * (m / k) + sa.ab.buildMs + sb.ab.buildMs;
  if (estimateMs / 1000 > s.ebFullBelowS) {
    return { ms: estimateMs, hd: Math.max(sa.hd, sb.hd), note: `est. from ${k.toLocaleString('en-US')} sampled queries per direction` };
  }
  return timed(async (signal) => {
    const r = await hausdorff(a, b, { backend: 'cuda', method: 'eb', signal });
    return { ms: r.ab.buildMs + r.ab.queryMs + r.ba!.buildMs + r.ba!.queryMs, hd: r.hd };
  }, s);
}

function torchBrute(fileA: string, fileB: string, s: Settings): Promise<Cell> {
  return new Promise((resolve) => {
    const child = spawn('python3', [join(ROOT, 'scripts', 'bench_torch.py'), fileA, fileB, String(s.timeoutS)],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), (s.timeoutS + 60) * 1000);
    child.on('error', (e) => resolve({ skipped: `python3: ${e.message}` }));
    child.on('close', () => {
      clearTimeout(timer);
      try {
        const r = JSON.parse(out.trim().split('\n').pop() ?? '');
        if (r.error) resolve({ skipped: r.error });
        else if (r.estimate_s !== undefined) resolve({ skipped: `> ${s.timeoutS} s (est. ${Math.round(r.estimate_s).toLocaleString('en-US')} s)` });
        else resolve({ ms: r.ms, hd: r.hd });
      } catch {
        resolve({ skipped: `failed: ${err.trim().split('\n').pop() ?? 'no output'}` });
      }
    });
  });
}

async function cpuBackend(a: Float32Array, b: Float32Array, s: Settings): Promise<Cell> {
  return timed(async (signal) => {
    const r = await hausdorff(a, b, { backend: 'cpu', signal });
    return { ms: r.ab.buildMs + r.ab.queryMs + r.ba!.buildMs + r.ba!.queryMs, hd: r.hd };
  }, s);
}

function writePly(path: string, p: Float32Array): void {
  const fd = openSync(path, 'w');
  writeSync(fd, `ply\nformat binary_little_endian 1.0\nelement vertex ${p.length / 3}\n` +
    'property float x\nproperty float y\nproperty float z\nend_header\n');
  writeSync(fd, new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
  closeSync(fd);
}

/** Wall time of `xhd compare a.ply b.ply --json` as a user runs it, reading included. */
function endToEnd(a: Float32Array, b: Float32Array, dir: string): Cell {
  const fa = join(dir, 'a.ply'), fb = join(dir, 'b.ply');
  writePly(fa, a);
  writePly(fb, b);
  const start = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'xhd'), 'compare', fa, fb, '--json', '--quiet'], { encoding: 'utf8' });
  const ms = performance.now() - start;
  rmSync(fa);
  rmSync(fb);
  if (r.status !== 0) return { skipped: `failed: ${r.stderr.trim()}` };
  const json = JSON.parse(r.stdout);
  return { ms, hd: json.hd, note: `read ${json.timings_ms.read.toFixed(0)} ms, backend ${json.backend}` };
}

const fmt = (ms: number) => (ms >= 100 ? Math.round(ms).toLocaleString('en-US') : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const ratio = (c: Cell, ours: number) => ('ms' in c ? `${(c.ms / ours) >= 100 ? Math.round(c.ms / ours).toLocaleString('en-US') : (c.ms / ours).toFixed(1)}×` : '');

function show(c: Cell, reference: number): string {
  if (!('ms' in c)) return `(${c.skipped})`;
  // An estimate ran on a sample of the queries: its HD is the sample's, not comparable.
  if (c.note?.startsWith('est.')) return `≈ ${fmt(c.ms)}`;
  const agree = Math.abs(c.hd - reference) <= 1e-6 * Math.max(reference, 1e-300) ? '' : ` ✗ (HD ${c.hd.toPrecision(7)})`;
  return `${fmt(c.ms)}${agree}`;
}

async function main(): Promise<void> {
  const s = parseSettings(process.argv.slice(2));
  const device = cudaDevice(0);
  await hausdorff(new Float32Array([0, 0, 0, 1, 1, 1]), new Float32Array([0, 1, 0]), { backend: 'cuda' });
  await hausdorff(new Float32Array([0, 0, 0, 1, 1, 1]), new Float32Array([0, 1, 0]), { backend: 'cpu' });
  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-gpu-'));
  const sections = [
    `# GPU benchmark\n\n- date: ${new Date().toISOString().slice(0, 10)}\n- GPU: ${device.name} (compute ${device.computeCapability}, ` +
      `${device.multiprocessors} SMs, ${(device.totalMemoryBytes / 2 ** 30).toFixed(0)} GiB, driver CUDA ${device.driverVersion})\n` +
      `- CPU: ${cpus()[0]?.model ?? 'unknown'}, ${availableParallelism()} threads\n- command: \`scripts/bench-gpu ${process.argv.slice(2).join(' ')}\`\n` +
      '- xhd GPU, GPU eb: build + query of both directions, CUDA events, data already on the GPU (best of 3 for xhd).\n' +
      '- GPU eb marked ≈: estimated from a strided sample of the queries (sample time × set size / sample size), where the sample predicts more than the full-run limit.\n' +
      '- PyTorch: chunked `torch.cdist(a, b).min(1).max()` both ways (default compute mode), CUDA events; run where its first chunks predict ≤ the timeout, else the prediction.\n' +
      '- CPU: our CPU backend (grid), all cores, build + query. e2e: wall time of `xhd compare a.ply b.ply --json` on binary PLY.',
  ];
  try {
    for (const dims of s.dims) {
      for (const n of s.sizes) {
        const rows: string[] = [];
        const details: string[] = [];
        for (const name of s.cases) {
          const t0 = performance.now();
          const { a, b } = dims === 3 ? makeDataset(name, n, 1) : makeDataset2d(name, n, 1);
          log(`\n${dims}D ${name} n=${n.toLocaleString('en-US')}: data in ${fmt(performance.now() - t0)} ms`);
          const ours = await oursGpu(a, b);
          log(`  xhd GPU  ${fmt(ours.ms)} ms  HD ${ours.hd.toPrecision(9)}  (${ours.detail})`);
          const eb = await ebGpu(a, b, s);
          log(`  GPU eb   ${show(eb, ours.hd)}${'note' in eb && eb.note ? ` ${eb.note}` : ''}`);
          const fa = join(dir, 'a.f32'), fb = join(dir, 'b.f32');
          writeFileSync(fa, new Uint8Array(a.buffer));
          writeFileSync(fb, new Uint8Array(b.buffer));
          const torch = await torchBrute(fa, fb, s);
          rmSync(fa);
          rmSync(fb);
          log(`  PyTorch  ${show(torch, ours.hd)}`);
          const cpu: Cell = s.cpu ? await cpuBackend(a, b, s) : { skipped: 'not run' };
          log(`  CPU      ${show(cpu, ours.hd)}`);
          const e2e: Cell = s.e2e ? endToEnd(a, b, dir) : { skipped: 'not run' };
          log(`  e2e      ${show(e2e, ours.hd)} ${'note' in e2e ? e2e.note ?? '' : ''}`);
          rows.push(`| ${name} | ${fmt(ours.ms)} | ${show(eb, ours.hd)} | ${ratio(eb, ours.ms)} | ${show(torch, ours.hd)} | ${ratio(torch, ours.ms)} | ` +
            `${show(cpu, ours.hd)} | ${ratio(cpu, ours.ms)} | ${'ms' in e2e ? (e2e.ms / 1000).toFixed(2) : show(e2e, ours.hd)} | ${ours.hd.toPrecision(9)} |`);
          details.push(`- ${name}: ${ours.detail}`);
        }
        sections.push(`## ${dims}D, ${n.toLocaleString('en-US')} × ${n.toLocaleString('en-US')} points\n\n` +
          '| case | xhd GPU ms | GPU eb ms | eb / xhd | PyTorch ms | PyTorch / xhd | CPU ms | CPU / xhd | e2e compare s | HD |\n' +
          '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n' + rows.join('\n') + '\n\n' + details.join('\n'));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const report = sections.join('\n\n') + '\n';
  publishReport(report, s.out);
}

main().catch((err) => {
  log(`bench-gpu: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  process.exit(1);
});
