// The markdown report of scripts/bench-distance: a header of machine facts and method notes, one table per
// comparison (here: ours CPU against FCL; device: ours GPU against ours CPU), and a table of details.

import type { DeviceInfo } from '../../src/ops/backends.js';
import { percentile, type DistanceOutcome } from './distance-outcome.js';
import { SCENE_NOTES, type DistanceSceneName } from './distance-scenes.js';
import type { DistanceSettings } from './distance-settings.js';
import type { FclProbe } from './fcl.js';
import { disturbed, OUTSIDE_LOAD_LIMIT } from './outside-load.js';
import { cpuLibraryTarget, formatMs, formatRatio, gpuDescription, libraryVersion, runLines } from './report.js';

/** FCL's distance may differ from ours by this much relative, plus FLOAT_SLACK times the scene's extent. */
export const FCL_RELATIVE_TOLERANCE = 1e-5;
// Ours rounds B's posed vertices to float (each coordinate by at most 2^-24 of its size); FCL poses in double.
const FLOAT_SLACK = 2 ** -22;

export interface DistanceRow {
  scene: DistanceSceneName;
  measure: 'min' | 'max';
  triangles: [number, number];
  frames: number;
  extent: number;
  cpu: DistanceOutcome;
  gpu: DistanceOutcome;
  fcl: DistanceOutcome;
}

const count = (n: number) => n.toLocaleString('en-US');
/** formatMs, with two significant digits below 0.01 ms (FCL answers an intersecting pair in microseconds). */
// Below a millisecond two significant digits (0.042, not 0.04): the small scenes' frames differ by microseconds.
const ms = (v: number) => (v > 0 && v < 1 ? v.toPrecision(2) : formatMs(v));
const distance = (d: number) => (d === 0 ? '0' : d.toPrecision(6));
const ratio = (r: number) => (r > 0 && r < 0.01 ? `${r.toPrecision(2)}×` : formatRatio(r));
const pairs = (n: number) => (n < 1e5 ? count(Math.round(n)) : n.toExponential(2));
const hasFrames = (o: DistanceOutcome): o is Extract<DistanceOutcome, { frameMs: number[] }> => 'frameMs' in o && o.frameMs.length > 0;

function timeCells(o: DistanceOutcome, frames: number, timeoutS: number): string[] {
  switch (o.kind) {
    case 'done': {
      const mark = disturbed(o) ? ' †' : '';
      return [formatMs(o.buildMs), ms(o.ms) + mark, ms(percentile(o.frameMs, 50)), ms(percentile(o.frameMs, 95))];
    }
    case 'timeout':
      return o.buildMs === undefined ? ['', `> ${timeoutS} s (still building)`, '', '']
        : [formatMs(o.buildMs), `> ${timeoutS} s (${o.frameMs.length} of ${frames} frames)`, '', ''];
    case 'skipped':
      return ['', `(skipped: ${o.why})`, '', ''];
    case 'failed':
      return ['', `failed: ${o.why.slice(0, 80)}`, '', ''];
  }
}

/** How many times faster `fast` is than `slow`: per frame (means) and to build. */
function ratios(slow: DistanceOutcome, fast: DistanceOutcome): string[] {
  if (slow.kind !== 'done' || fast.kind !== 'done') return ['', ''];
  return [ratio(slow.ms / fast.ms), ratio(slow.buildMs / fast.buildMs)];
}

/** Frames both sides finished whose distances differ by more than `allowed(ours)`; the largest relative difference. */
function compareFrames(ours: DistanceOutcome, other: DistanceOutcome, allowed: (d: number) => number): { compared: number; differing: number; largest: number } | null {
  if (!hasFrames(ours) || !hasFrames(other)) return null;
  const compared = Math.min(ours.distances.length, other.distances.length);
  let differing = 0, largest = 0;
  for (let k = 0; k < compared; k++) {
    const d = ours.distances[k], e = other.distances[k];
    if (Math.abs(d - e) > allowed(d)) differing++;
    largest = Math.max(largest, Math.abs(d - e) / Math.max(Math.abs(d), Number.MIN_VALUE));
  }
  return { compared, differing, largest };
}

function agreementCell(check: ReturnType<typeof compareFrames>): string {
  if (!check) return '';
  if (check.differing === 0) return `✓ ${check.compared} of ${check.compared}`;
  return `✗ ${check.differing} of ${check.compared} differ (up to ${check.largest.toExponential(1)} relative)`;
}

const fclCheck = (row: DistanceRow) => compareFrames(row.cpu.kind === 'skipped' ? row.gpu : row.cpu, row.fcl,
  (d) => FCL_RELATIVE_TOLERANCE * Math.abs(d) + FLOAT_SLACK * row.extent);
const backendCheck = (row: DistanceRow) => compareFrames(row.cpu, row.gpu, () => 0);

/** The measured distance over the frames: one value, or the smallest and largest. */
function distanceCell(row: DistanceRow): string {
  const o = [row.cpu, row.gpu, row.fcl].find(hasFrames);
  if (!o) return '';
  const lo = Math.min(...o.distances), hi = Math.max(...o.distances);
  const label = row.measure === 'max' ? 'max ' : '';
  return distance(lo) === distance(hi) ? `${label}${distance(lo)}` : `${label}${distance(lo)} … ${distance(hi)}`;
}

const rowStart = (row: DistanceRow) => `| ${row.scene} | ${count(row.triangles[0])} / ${count(row.triangles[1])} | ${distanceCell(row)} |`;

/** Here: our CPU backend against FCL's distance query. */
export function fclTable(rows: DistanceRow[], timeoutS: number): string {
  const lines = [
    '| scene | triangles A / B | distance | ours CPU build ms | FCL build ms | ours CPU ms/frame | p50 | p95 | FCL ms/frame | p50 | p95 | FCL ÷ ours per frame | FCL ÷ ours build | FCL agrees (frames) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const [cpuBuild, ...cpu] = timeCells(row.cpu, row.frames, timeoutS);
    const [fclBuild, ...fcl] = row.measure === 'max' ? ['', '(FCL has no maximum distance)', '', ''] : timeCells(row.fcl, row.frames, timeoutS);
    lines.push(`${rowStart(row)} ${cpuBuild} | ${fclBuild} | ${cpu.join(' | ')} | ${fcl.join(' | ')} | ${ratios(row.fcl, row.cpu).join(' | ')} | ${agreementCell(fclCheck(row))} |`);
  }
  return lines.join('\n');
}

/** Device: our GPU backend against our CPU backend. */
export function gpuTable(rows: DistanceRow[], timeoutS: number): string {
  const lines = [
    '| scene | triangles A / B | distance | ours CPU build ms | ours GPU build ms | ours CPU ms/frame | p50 | p95 | ours GPU ms/frame | p50 | p95 | CPU ÷ GPU per frame | CPU ÷ GPU build | equal (frames) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const [cpuBuild, ...cpu] = timeCells(row.cpu, row.frames, timeoutS);
    const [gpuBuild, ...gpu] = timeCells(row.gpu, row.frames, timeoutS);
    lines.push(`${rowStart(row)} ${cpuBuild} | ${gpuBuild} | ${cpu.join(' | ')} | ${gpu.join(' | ')} | ${ratios(row.cpu, row.gpu).join(' | ')} | ${agreementCell(backendCheck(row))} |`);
  }
  return lines.join('\n');
}

export function detailTable(rows: DistanceRow[]): string {
  const lines = [
    '| scene | triangles A / B | ours CPU: wall ms/frame, box pairs, triangle pairs | ours GPU: wall ms/frame, transfer ms/frame, box pairs, triangle pairs | FCL: peak memory MiB, process CPU s |',
    '|---|---:|---:|---:|---:|',
  ];
  const ours = (o: DistanceOutcome, transfer: boolean) => (o.kind !== 'done' ? '' : [ms(o.details.wallMs), ...(transfer ? [ms(o.details.transferMs)] : []),
    pairs(o.details.boxPairs), pairs(o.details.trianglePairs)].join(', '));
  for (const row of rows) {
    const fcl = row.fcl.kind === 'done' ? `${count(Math.round(row.fcl.details.peakRssMiB))}, ${row.fcl.childCpuS?.toFixed(1)}` : '';
    lines.push(`| ${row.scene} | ${count(row.triangles[0])} / ${count(row.triangles[1])} | ${ours(row.cpu, false)} | ${ours(row.gpu, true)} | ${fcl} |`);
  }
  return lines.join('\n');
}

/** Disagreements spelled out, for the lines under the tables. */
export function distanceWarnings(rows: DistanceRow[]): string[] {
  const warnings: string[] = [];
  for (const row of rows) {
    const where = `${row.scene} at ${count(row.triangles[0])} triangles`;
    const backends = backendCheck(row), fcl = row.measure === 'min' ? fclCheck(row) : null;
    if (backends && backends.differing > 0) warnings.push(`${where}: ✗ ours CPU and GPU differ on ${backends.differing} of ${backends.compared} frames`);
    if (fcl && fcl.differing > 0) warnings.push(`${where}: ✗ FCL differs from ours on ${fcl.differing} of ${fcl.compared} frames beyond the tolerance`);
  }
  return warnings;
}

export function distanceHeader(s: DistanceSettings, argv: string[], gpu: DeviceInfo | { reason: string }, fcl: FclProbe): string {
  const gpuLine = !s.sides.includes('cuda') ? 'not asked for (--backends)' : gpuDescription(gpu);
  const fclLine = !s.sides.includes('fcl') ? 'not asked for (--backends)' : 'error' in fcl ? `skipped: ${fcl.error}`
    : `FCL ${fcl.version}, one thread (FCL's distance query is sequential); harness scripts/fcl_mesh_distance.cpp (g++ -O3 -march=native), ` +
      '`BVHModel<OBBRSS>` for both meshes, `fcl::distance` with rel_err = abs_err = 0 (exact), A at the identity and B at the frame\'s pose';
  return [
    '# Distance benchmark: mesh–mesh minimum and maximum distance',
    '',
    ...runLines('scripts/bench-distance', argv),
    `- GPU: ${gpuLine}`,
    `- Code: build/ (native libraries, not rebuilt by the benchmark) and dist/ from ${libraryVersion(['kernels', 'src'])}; Node ${process.version}; ${cpuLibraryTarget()}`,
    `- Peer: ${fclLine}`,
    `- Ours: \`MeshDistance\` (method bvh), ${s.threads} CPU threads; both hierarchies built once per scene, then ${s.calls === 'many' ? 'every pose in one \`queryMany(poses)\`' : 'one \`query(pose)\` per frame'}; inputs ${s.coordinates} (--coordinates)`,
    `- Frames: ${s.frames} poses of B per scene, run through ${s.passes} times in order (${s.frames * s.passes} timed frames a side); ours first answers the last frame once untimed (warm-up), FCL frame 0; then every frame in order${s.calls === 'many' ? ', ours all in one native call (queryMany, as `xhd distance --frames`)' : ', ours a native call each'}.`,
    '  Ours on both backends starts each query from the previous answer (a triangle pair at its distance bounds the search from the start): frame 0',
    '  from the last frame\'s, the others from the frame before; FCL keeps nothing between queries.',
    '  ms/frame: the mean over the frames; p50, p95: nearest-rank percentiles. Ours: the library\'s own query time (the traversal',
    `  and exact triangle tests, with B moved by the pose on the way; GPU: ${s.calls === 'many' ? 'one cooperative launch for up to 64 frames, a frame\'s own time on the device plus a share of the rest of its batch\'s' : 'one cooperative launch a search'}, and the`,
    '  uploads and downloads). FCL: the `fcl::distance` call, timed',
    '  in its process. Build: ours `MeshDistance.create` (both hierarchies; GPU: their upload and their build on the device), FCL both `BVHModel`s. Never file writing or reading.',
    `- Limit ${s.timeoutS} s per side per scene (build and frames); a side that timed out shows the frames it finished.`,
    '- Ratios: how many times faster the second is (per frame: from the means). Agreement, frame by frame: ours CPU and GPU must give',
    `  the same double; FCL must be within ${FCL_RELATIVE_TOLERANCE.toExponential()} relative of ours plus 2^-22 × the scene's extent (ours rounds B's posed`,
    '  vertices to float, FCL poses them in double). ✗ marks a disagreement.',
    `- †: other processes kept more than ${OUTSIDE_LOAD_LIMIT} cores busy during this measurement (after up to two retries).`,
    '',
    'Scenes (after the gDist paper, Fan et al. 2024, §8; sizes are triangles per object):',
    '',
    ...Object.entries(SCENE_NOTES).filter(([name]) => s.scenes.includes(name as DistanceSceneName)).map(([name, note]) => `- ${name}: ${note}`),
  ].join('\n');
}
