// Distance benchmark: our mesh–mesh minimum/maximum distance (CPU and GPU backends) beside FCL's distance
// query, on generated scenes after the gDist paper's, frame by frame. Prints a markdown report; see
// `scripts/bench-distance --help`. This file only orchestrates; the parts live in scripts/bench/distance-*.ts
// and scripts/bench/fcl.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cudaDevice, probeBackend, type DeviceInfo } from '../src/ops/backends.js';
import { meshDistance } from '../src/ops/mesh-distance.js';
import type { DistanceOutcome } from './bench/distance-outcome.js';
import { inCoordinates } from './bench/distance-coordinates.js';
import { measureOurs } from './bench/distance-ours.js';
import { detailTable, distanceHeader, distanceWarnings, fclTable, gpuTable, type DistanceRow } from './bench/distance-report.js';
import { makeDistanceScene, triangleCount, type DistanceScene, type DistanceSceneName } from './bench/distance-scenes.js';
import { parseDistanceSettings, type DistanceSettings, type DistanceSide } from './bench/distance-settings.js';
import { fclMemoryRefusal, prepareFcl, runFcl, writeMeshFile, writePosesFile, type FclProbe } from './bench/fcl.js';
import { disturbed, measureUndisturbed } from './bench/outside-load.js';
import { formatMs, formatSeconds, publishReport } from './bench/report.js';

const log = (line: string) => process.stderr.write(`${line}\n`);
const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

function describe(label: string, o: DistanceOutcome): void {
  const what = o.kind === 'done'
    ? `build ${formatMs(o.buildMs)} ms, ${formatMs(o.ms)} ms/frame over ${o.runs} frames, distance ${o.hd.toPrecision(9)} (frame 0), ` +
      `outside load ${o.outsideCores?.toFixed(2) ?? '?'} cores${disturbed(o) ? ' †' : ''}`
    : o.kind === 'timeout' ? `timed out after ${o.frameMs.length} frames` : `${o.kind}: ${o.why}`;
  log(`  ${label.padEnd(8)} ${what}`);
}

/** Why each of our backends cannot be measured (null: it can); starts each once before any timing. */
async function warmUp(s: DistanceSettings): Promise<{ cpu: string | null; gpu: DeviceInfo | { reason: string } }> {
  const a = { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 2]) };
  const b = { positions: new Float32Array([0, 0, 1, 1, 0, 1, 0, 1, 1]), triangles: new Uint32Array([0, 1, 2]) };
  const tryOn = async (backend: 'cpu' | 'cuda') => {
    try {
      await meshDistance(a, b, { min: true, max: true, backend, threads: s.threads });
      return null;
    } catch (err) {
      return errorText(err).split('\n')[0];
    }
  };
  const cpu = s.sides.includes('cpu') ? await tryOn('cpu') : null;
  if (!s.sides.includes('cuda')) return { cpu, gpu: { reason: 'not asked for' } };
  const cuda = probeBackend('cuda');
  if (!cuda.available) return { cpu, gpu: { reason: cuda.reason ?? 'unknown' } };
  const gpuRefusal = await tryOn('cuda');
  return { cpu, gpu: gpuRefusal ? { reason: gpuRefusal } : cudaDevice(0) };
}

/** Sides that timed out on a scene are not tried on its larger sizes. */
const timedOut = new Set<string>();

async function measureSide(side: DistanceSide, scene: DistanceScene, unusable: string | null, measure: () => Promise<DistanceOutcome>): Promise<DistanceOutcome> {
  const label = { cpu: 'ours CPU', cuda: 'ours GPU', fcl: 'FCL' }[side];
  let outcome: DistanceOutcome;
  if (unusable !== null) outcome = { kind: 'skipped', why: unusable };
  else if (timedOut.has(`${side} ${scene.name}`)) outcome = { kind: 'skipped', why: 'timed out on a smaller size' };
  else {
    outcome = await measureUndisturbed(measure, (cores) => log(`  ${label.padEnd(8)} other processes used ${cores.toFixed(2)} cores meanwhile; measuring again`));
    if (outcome.kind === 'timeout') timedOut.add(`${side} ${scene.name}`);
  }
  describe(label, outcome);
  return outcome;
}

/** FCL on one scene: its files are written to dir for the harness and removed afterwards. */
async function measureFcl(scene: DistanceScene, binary: string, s: DistanceSettings, dir: string): Promise<DistanceOutcome> {
  const files = { a: join(dir, 'a.mesh'), b: join(dir, 'b.mesh'), poses: join(dir, 'b.poses') };
  writeMeshFile(files.a, scene.a);
  writeMeshFile(files.b, scene.b);
  writePosesFile(files.poses, scene.poses);
  try {
    return await runFcl(binary, files, s.timeoutS);
  } finally {
    for (const f of Object.values(files)) rmSync(f, { force: true });
  }
}

function fclUnusable(s: DistanceSettings, fcl: FclProbe, scene: DistanceScene): string | null {
  if (!s.sides.includes('fcl')) return 'not asked for';
  if (s.coordinates !== 'float32') return `FCL reads float32 meshes (--coordinates ${s.coordinates})`;
  if (scene.measure === 'max') return 'FCL has no maximum distance';
  if ('error' in fcl) return fcl.error;
  return fclMemoryRefusal(scene.a, scene.b);
}

async function benchmarkScene(name: DistanceSceneName, size: number, s: DistanceSettings, ours: Awaited<ReturnType<typeof warmUp>>, fcl: FclProbe, dir: string): Promise<DistanceRow> {
  const t0 = performance.now();
  const generated = makeDistanceScene(name, size, s.frames);
  // Every pass runs the same poses in the same order (the CPU's warm start sees the same previous frame).
  const scene = { ...generated, poses: Array.from({ length: s.passes }, () => generated.poses).flat() };
  const triangles: [number, number] = [triangleCount(scene.a), triangleCount(scene.b)];
  log(`\n${name}: ${triangles.map((t) => t.toLocaleString('en-US')).join(' / ')} triangles, ${s.frames} frames × ${s.passes} passes; generated in ${formatMs(performance.now() - t0)} ms`);
  const cpuUnusable = !s.sides.includes('cpu') ? 'not asked for' : ours.cpu;
  const gpuUnusable = 'reason' in ours.gpu ? ours.gpu.reason : null;
  const ourScene = inCoordinates(scene, s.coordinates);
  const cpu = await measureSide('cpu', scene, cpuUnusable, () => measureOurs(ourScene, 'cpu', s));
  const gpu = await measureSide('cuda', scene, gpuUnusable, () => measureOurs(ourScene, 'cuda', s));
  const binary = 'binary' in fcl ? fcl.binary : '';
  const peer = await measureSide('fcl', scene, fclUnusable(s, fcl, scene), () => measureFcl(scene, binary, s, dir));
  return { scene: name, measure: scene.measure, triangles, frames: scene.poses.length, extent: scene.extent, cpu, gpu, fcl: peer };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = parseDistanceSettings(argv);
  const ours = await warmUp(s);
  if (ours.cpu) log(`note: ours CPU skipped: ${ours.cpu}`);
  if (s.sides.includes('cuda') && 'reason' in ours.gpu) log(`note: ours GPU skipped: ${ours.gpu.reason}`);
  const fcl: FclProbe = s.sides.includes('fcl') ? prepareFcl(log) : { error: 'not asked for' };
  if (s.sides.includes('fcl') && 'error' in fcl) log(`note: FCL skipped: ${fcl.error}`);

  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-distance-'));
  const rows: DistanceRow[] = [];
  const started = performance.now();
  try {
    for (const size of s.sizes) for (const name of s.scenes) rows.push(await benchmarkScene(name, size, s, ours, fcl, dir));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  log(`\nbenchmark finished in ${formatSeconds((performance.now() - started) / 1000)} s\n`);

  const gpuSection = 'reason' in ours.gpu
    ? `Skipped: ${s.sides.includes('cuda') ? `no usable GPU (${ours.gpu.reason})` : 'not asked for (--backends)'}.`
    : gpuTable(rows, s.timeoutS);
  const warnings = distanceWarnings(rows);
  const report = [
    distanceHeader(s, argv, ours.gpu, fcl),
    `## Here: ours CPU against FCL\n\n${fclTable(rows, s.timeoutS)}`,
    `## Device: ours GPU against ours CPU\n\n${gpuSection}`,
    `Details: means per frame (ours: wall time of the ${s.calls === 'many' ? '\`queryMany\` call in Node shared out among its frames' : '\`query\` call in Node'} and the hierarchy work it did; GPU transfers), FCL's peak memory and CPU time:\n\n${detailTable(rows)}`,
    ...(warnings.length > 0 ? [warnings.map((w) => `- ${w}`).join('\n')] : []),
  ].join('\n\n') + '\n';
  publishReport(report, s.out, log);
}

main().catch((err) => {
  log(`bench-distance: ${errorText(err)}`);
  process.exit(1);
});
