// Surface benchmark: our mesh-to-mesh distance (CPU and GPU backends) beside CGAL's
// approximate_Hausdorff_distance with the same number of samples, on real and synthetic mesh pairs.
// Prints a markdown report; see `scripts/bench-surface --help`. This file only orchestrates; the parts
// live in scripts/bench/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cudaDevice, probeBackend, type DeviceInfo } from '../src/ops/backends.js';
import { defaultSampleCount } from '../src/sampling/sample-mesh.js';
import { pointSurfaceDistances } from '../src/ops/surface-distance.js';
import { prepareCgal, runCgal, type CgalProbe } from './bench/cgal.js';
import { disturbed, measureUndisturbed } from './bench/outside-load.js';
import { formatMs, formatSeconds, publishReport } from './bench/report.js';
import { makeSurfaceCase, type SurfaceCaseName } from './bench/surface-cases.js';
import { measureOurs, type SurfaceOutcome } from './bench/surface-ours.js';
import { detailTable, mainTable, rowWarnings, surfaceHeader, type CaseRow } from './bench/surface-report.js';
import { parseSurfaceSettings, type SurfaceSettings } from './bench/surface-settings.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

function describe(label: string, o: SurfaceOutcome): void {
  const what = o.kind === 'done'
    ? `${formatMs(o.ms)} ms (best of ${o.runs}), HD ${o.hd.toPrecision(9)} (A→B ${o.hdAb.toPrecision(6)}, B→A ${o.hdBa.toPrecision(6)}), ` +
      `outside load ${o.outsideCores?.toFixed(2) ?? '?'} cores${disturbed(o) ? ' †' : ''}`
    : o.kind === 'timeout' ? 'timed out' : `${o.kind}: ${o.why}`;
  log(`  ${label.padEnd(8)} ${what}`);
}

async function benchmarkCase(name: SurfaceCaseName, s: SurfaceSettings, gpuUsable: boolean, cgal: CgalProbe, dir: string): Promise<CaseRow> {
  const t0 = performance.now();
  const c = makeSurfaceCase(name, s.dataDir, dir, s.seed);
  if ('skipped' in c) {
    log(`\n${name}: skipped (${c.skipped})`);
    return { name, skipped: c.skipped };
  }
  const triangles: [number, number] = [c.a.triangles.length / 3, c.b.triangles.length / 3];
  const samples = s.samples ?? Math.max(defaultSampleCount(c.a), defaultSampleCount(c.b));
  log(`\n${name}: ${triangles.map((t) => t.toLocaleString('en-US')).join(' / ')} triangles, ${samples.toLocaleString('en-US')} samples per direction; ` +
    `ready in ${formatMs(performance.now() - t0)} ms`);
  const onRetry = (label: string) => (cores: number) => log(`  ${label.padEnd(8)} other processes used ${cores.toFixed(2)} cores meanwhile; measuring again`);

  const cpu = await measureUndisturbed(() => measureOurs(c, 'cpu', samples, s), onRetry('ours CPU'));
  describe('ours CPU', cpu);
  const gpu: SurfaceOutcome = gpuUsable
    ? await measureUndisturbed(() => measureOurs(c, 'cuda', samples, s), onRetry('ours GPU'))
    : { kind: 'skipped', why: 'no GPU' };
  describe('ours GPU', gpu);
  const peer = 'binary' in cgal
    ? await measureUndisturbed(() => runCgal(cgal.binary, c, samples, s), onRetry('CGAL'))
    : { kind: 'skipped' as const, why: cgal.error };
  describe('CGAL', peer);
  return { name, triangles, samples, cpu, gpu, cgal: peer };
}

/** The GPU to measure on, or why there is none; starts CUDA and the library's threads before any timing. */
async function warmUp(s: SurfaceSettings): Promise<DeviceInfo | { reason: string }> {
  const triangle = { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 2]) };
  const point = new Float32Array([0.2, 0.2, 1]);
  await pointSurfaceDistances(point, triangle, { backend: 'cpu', method: s.method, threads: s.threads });
  const cuda = probeBackend('cuda');
  if (!cuda.available) return { reason: cuda.reason ?? 'unknown' };
  await pointSurfaceDistances(point, triangle, { backend: 'cuda', method: s.method });
  return cudaDevice(0);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = parseSurfaceSettings(argv);
  const gpu = await warmUp(s);
  if ('reason' in gpu) log(`note: ours GPU skipped: ${gpu.reason}`);
  const cgal = prepareCgal(log);
  if ('error' in cgal) log(`note: CGAL skipped: ${cgal.error}`);

  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-surface-'));
  const rows: CaseRow[] = [];
  const started = performance.now();
  try {
    for (const name of s.cases) rows.push(await benchmarkCase(name, s, !('reason' in gpu), cgal, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  log(`\nbenchmark finished in ${formatSeconds((performance.now() - started) / 1000)} s\n`);
  const warnings = rowWarnings(rows);
  const report = [
    surfaceHeader(s, argv, gpu, cgal),
    `## Results\n\n${mainTable(rows, s.timeoutS)}`,
    `Details: each method's split of its best run (ours: milliseconds of both directions together), and the directed HDs, ours / CGAL (CGAL's difference from ours):\n\n${detailTable(rows)}`,
    ...(warnings.length > 0 ? [warnings.map((w) => `- ${w}`).join('\n')] : []),
  ].join('\n\n') + '\n';
  publishReport(report, s.out, log);
}

main().catch((err) => {
  log(`bench-surface: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
