// The markdown report of scripts/bench-surface: a header of machine facts and method notes, the main
// table (HD, times, ratios) and a table of details (each method's split, HD per direction).

import type { DeviceInfo } from '../../src/ops/backends.js';
import type { CgalProbe } from './cgal.js';
import { disturbed, OUTSIDE_LOAD_LIMIT } from './outside-load.js';
import { cpuLibraryTarget, formatMs, formatRatio, gpuDescription, libraryVersion, runLines } from './report.js';
import { CASE_NOTES, type SurfaceCaseName } from './surface-cases.js';
import type { SurfaceOutcome } from './surface-ours.js';
import type { SurfaceSettings } from './surface-settings.js';

/** ours CPU and GPU measure the same samples, so their HDs must agree to rounding. */
const BACKEND_TOLERANCE = 1e-9;

export type CaseRow =
  | { name: SurfaceCaseName; skipped: string }
  | {
    name: SurfaceCaseName;
    triangles: [number, number];
    samples: number;
    cpu: SurfaceOutcome;
    gpu: SurfaceOutcome;
    cgal: SurfaceOutcome & { faces?: [number, number]; repaired?: boolean };
  };
type MeasuredRow = Extract<CaseRow, { cpu: SurfaceOutcome }>;

const count = (n: number) => n.toLocaleString('en-US');
const hd = (v: number) => v.toPrecision(6);

function timeCell(o: SurfaceOutcome, timeoutS: number): string {
  switch (o.kind) {
    case 'done': return formatMs(o.ms) + (disturbed(o) ? ' †' : '');
    case 'timeout': return `> ${timeoutS} s`;
    case 'skipped': return `(skipped: ${o.why})`;
    case 'failed': return `failed: ${o.why.slice(0, 80)}`;
  }
}

function ratio(numerator: SurfaceOutcome, denominator: SurfaceOutcome): string {
  return numerator.kind === 'done' && denominator.kind === 'done' ? formatRatio(numerator.ms / denominator.ms) : '';
}

const gpuComputeMs = (o: SurfaceOutcome) => (o.kind === 'done' ? o.parts.build + o.parts.query + o.parts.upload + o.parts.download : NaN);

function backendsDisagree(row: MeasuredRow): boolean {
  const { cpu, gpu } = row;
  return cpu.kind === 'done' && gpu.kind === 'done' && Math.abs(cpu.hd - gpu.hd) > BACKEND_TOLERANCE * cpu.hd;
}

function oursHd(row: MeasuredRow): string {
  const o = row.cpu.kind === 'done' ? row.cpu : row.gpu;
  return o.kind === 'done' ? hd(o.hd) + (backendsDisagree(row) ? ' ✗' : '') : '';
}

export function mainTable(rows: CaseRow[], timeoutS: number): string {
  const lines = [
    '| case | triangles A / B | samples per direction | HD ours | HD CGAL | ours CPU ms | ours GPU ms | GPU compute ms | CGAL ms | CGAL ÷ ours CPU | CGAL ÷ ours GPU | ours CPU ÷ ours GPU |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    if ('skipped' in row) {
      lines.push(`| ${row.name} | (skipped: ${row.skipped}) |  |  |  |  |  |  |  |  |  |  |`);
      continue;
    }
    const { cpu, gpu, cgal } = row;
    lines.push(`| ${row.name} | ${count(row.triangles[0])} / ${count(row.triangles[1])} | ${count(row.samples)} | ${oursHd(row)} | ` +
      `${cgal.kind === 'done' ? hd(cgal.hd) : ''} | ${timeCell(cpu, timeoutS)} | ${timeCell(gpu, timeoutS)} | ` +
      `${gpu.kind === 'done' ? formatMs(gpuComputeMs(gpu)) : ''} | ${timeCell(cgal, timeoutS)} | ` +
      `${ratio(cgal, cpu)} | ${ratio(cgal, gpu)} | ${ratio(cpu, gpu)} |`);
  }
  return lines.join('\n');
}

/** Relative difference of CGAL's directed HD from ours, in percent (different samples, so not zero). */
function hdPair(ours: SurfaceOutcome, cgal: SurfaceOutcome, key: 'hdAb' | 'hdBa'): string {
  if (ours.kind !== 'done') return '';
  if (cgal.kind !== 'done') return hd(ours[key]);
  const percent = (100 * (cgal[key] - ours[key])) / ours[key];
  return `${hd(ours[key])} / ${hd(cgal[key])} (${percent >= 0 ? '+' : ''}${percent.toFixed(2)} %)`;
}

export function detailTable(rows: CaseRow[]): string {
  const lines = [
    '| case | ours CPU: sample / build / query ms | ours GPU: sample / upload / build / query / download ms (peak MiB) | CGAL A→B / B→A ms | HD A→B ours / CGAL | HD B→A ours / CGAL |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  const ms = (...values: number[]) => values.map(formatMs).join(' / ');
  for (const row of rows) {
    if ('skipped' in row) continue;
    const { cpu, gpu, cgal } = row;
    const ours = cpu.kind === 'done' ? cpu : gpu;
    lines.push(`| ${row.name} | ${cpu.kind === 'done' ? ms(cpu.parts.sample, cpu.parts.build, cpu.parts.query) : ''} | ` +
      `${gpu.kind === 'done' ? `${ms(gpu.parts.sample, gpu.parts.upload, gpu.parts.build, gpu.parts.query, gpu.parts.download)} (${gpu.parts.peakDeviceMiB.toFixed(0)})` : ''} | ` +
      `${cgal.kind === 'done' ? ms(cgal.parts.ab, cgal.parts.ba) : ''} | ${hdPair(ours, cgal, 'hdAb')} | ${hdPair(ours, cgal, 'hdBa')} |`);
  }
  return lines.join('\n');
}

/** Notes a reader needs beside the tables: CGAL reading a mesh differently, backends disagreeing. */
export function rowWarnings(rows: CaseRow[]): string[] {
  const warnings: string[] = [];
  for (const row of rows) {
    if ('skipped' in row) continue;
    const { cgal } = row;
    if (cgal.faces && (cgal.faces[0] !== row.triangles[0] || cgal.faces[1] !== row.triangles[1])) {
      warnings.push(`${row.name}: CGAL's meshes have ${count(cgal.faces[0])} / ${count(cgal.faces[1])} faces, ours ${count(row.triangles[0])} / ${count(row.triangles[1])}` +
        (cgal.repaired ? ' (CGAL read a file as a polygon soup and repaired it)' : ''));
    }
    if (backendsDisagree(row)) warnings.push(`${row.name}: ✗ ours CPU and GPU HDs differ on the same samples`);
  }
  return warnings;
}

export function surfaceHeader(s: SurfaceSettings, argv: string[], gpu: DeviceInfo | { reason: string }, cgal: CgalProbe): string {
  const cgalLine = 'error' in cgal ? `skipped: ${cgal.error}`
    : `CGAL ${cgal.version}, ${cgal.tbb ? `TBB, ${s.threads} threads` : 'no TBB headers: sequential'}; harness scripts/cgal_surface_hausdorff.cpp (g++ -O3 -march=native)`;
  return [
    '# Surface benchmark: mesh-to-mesh Hausdorff distance',
    '',
    ...runLines('scripts/bench-surface', argv),
    `- GPU: ${gpuDescription(gpu)}`,
    `- Code: build/ (native libraries, not rebuilt by the benchmark) and dist/ from ${libraryVersion(['kernels', 'src'])}; Node ${process.version}; ${cpuLibraryTarget()}`,
    `- Peer: ${cgalLine}`,
    `- Ours: method ${s.method ?? 'grid'}; ${s.threads} CPU threads; area sampling, seed ${s.seed} for A and ${s.seed + 1} for B; best of ${s.repeat} runs for every method`,
    `- Samples per direction: ${s.samples === undefined ? 'what `xhd compare` takes for the larger mesh, max(vertices, 100,000)' : count(s.samples)}; ` +
      'CGAL gets the same number (`number_of_points_on_faces`, random uniform sampling, no vertex or edge samples) and the',
    '  same seeds for its own generator (`random_seed`, and CGAL\'s default generator, which places points inside triangles)',
    '- Times cover sampling, index building and the queries of both directions, never file reading. Ours: wall time of the whole',
    '  in-process measurement: `compareSurfaces`, what `xhd compare` runs after reading (sampling in the native library on',
    '  every thread, both directions with their witnesses, E and Es; on the CPU the directions run side by side). GPU compute: the library\'s',
    '  upload + build + query + download of both directions. CGAL: `approximate_Hausdorff_distance` A→B plus B→A, timed in',
    '  its process (sampling, AABB tree, queries; CGAL samples and builds on one thread and queries in parallel with TBB).',
    '- Ratios: how many times faster the second is, from the ms columns (ours GPU: its wall time).',
    '- HD: ours and CGAL\'s sample different random points, so they are close but not equal; ✗ marks ours CPU and GPU disagreeing.',
    `- †: other processes kept more than ${OUTSIDE_LOAD_LIMIT} cores busy during this measurement (after up to two retries).`,
    '',
    'Cases:',
    '',
    ...Object.entries(CASE_NOTES).filter(([name]) => s.cases.includes(name as SurfaceCaseName)).map(([name, note]) => `- ${name}: ${note}`),
  ].join('\n');
}
