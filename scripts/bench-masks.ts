// Mask benchmark: HD, HD95 and ASSD of a BraTS-sized segmentation mask pair (two .nii.gz files of about
// 1.5M foreground voxels on 240×240×155), ours (CPU and GPU backends) beside SciPy the way MONAI and medpy
// measure them; file reading reported apart. Prints a markdown report; see `scripts/bench-masks --help`.
// This file only orchestrates; the parts live in scripts/bench/masks-*.ts and scripts/bench_masks_peers.py.
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cudaDevice, probeBackend, type DeviceInfo } from '../src/ops/backends.js';
import { disturbed, measureUndisturbed } from './bench/outside-load.js';
import { formatMs, formatSeconds, publishReport } from './bench/report.js';
import { measureCompare, measureReading, runCli, type OursOutcome } from './bench/masks-ours.js';
import { PEER_LABELS, probePython, runPeer, type PeerOutcome, type PythonProbe } from './bench/masks-peers.js';
import { caseHeading, cliTable, goalLines, masksHeader, readingTable, timingTable, valuesTable, type CaseResult } from './bench/masks-report.js';
import { parseMaskSettings, type MaskBackend, type MaskSettings } from './bench/masks-settings.js';
import { makeMaskPair, spacingOf, writeMask, type MaskCaseName, type MaskPair } from './bench/masks-shapes.js';
import { compareValues } from './bench/masks-values.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

function describe(label: string, o: OursOutcome | PeerOutcome): void {
  const what = o.kind === 'done'
    ? `${formatMs(o.ms)} ms (median of ${o.runs}), HD ${o.values.hd.toPrecision(9)}, HD95 ${o.values.hd95.toPrecision(9)}, ASSD ${o.values.assd.toPrecision(9)}, ` +
      `surfaces ${o.values.surfaceA} / ${o.values.surfaceB}, outside load ${o.outsideCores?.toFixed(2) ?? '?'} cores${disturbed(o) ? ' †' : ''}`
    : o.kind === 'timeout' ? 'timed out' : `${o.kind}: ${o.why}`;
  log(`  ${label.padEnd(32)} ${what}`);
}

/** The GPU to measure on, or why there is none. */
function findGpu(s: MaskSettings): DeviceInfo | { reason: string } {
  if (!s.backends.includes('cuda')) return { reason: 'not asked for (--backends)' };
  const cuda = probeBackend('cuda');
  return cuda.available ? cudaDevice(0) : { reason: cuda.reason ?? 'unknown' };
}

async function benchmarkCase(name: MaskCaseName, pair: MaskPair, s: MaskSettings, gpuUsable: boolean, python: PythonProbe, dir: string): Promise<CaseResult> {
  const fileA = join(dir, `${name}-a.nii.gz`), fileB = join(dir, `${name}-b.nii.gz`);
  writeMask(fileA, name, pair.dims, pair.a);
  writeMask(fileB, name, pair.dims, pair.b);
  log(`\n${name}: ${fileA}, ${fileB}`);
  const onRetry = (label: string) => (cores: number) => log(`  ${label.padEnd(32)} other processes used ${cores.toFixed(2)} cores meanwhile; measuring again`);

  const reading = measureReading([fileA, fileB], s.repeat);
  log(`  ${'reading (both files)'.padEnd(32)} disk ${formatMs(reading.disk)} · gunzip ${formatMs(reading.gunzip)} · parse ${formatMs(reading.parse)} · ` +
    `surface points ${formatMs(reading.surface)} ms`);

  const ours = {} as Record<MaskBackend, OursOutcome>;
  const cli = {} as CaseResult['cli'];
  for (const backend of ['cpu', 'cuda'] as const) {
    const why = !s.backends.includes(backend) ? 'not asked for' : backend === 'cuda' && !gpuUsable ? 'no usable GPU' : null;
    const label = backend === 'cpu' ? 'ours CPU' : 'ours GPU';
    ours[backend] = why ? { kind: 'skipped', why } : await measureUndisturbed(() => measureCompare(fileA, fileB, backend, s), onRetry(label));
    describe(label, ours[backend]);
    cli[backend] = why ? { kind: 'skipped', why } : !s.cli ? { kind: 'skipped', why: '--no-cli' } : await runCli(fileA, fileB, backend, s);
    const c = cli[backend];
    if (c.kind === 'done') log(`  ${`${label}, bin/xhd process`.padEnd(32)} ${formatMs(c.wallMs)} ms wall; timings_ms.total ${formatMs(c.timings.total)}`);
    else if (c.kind === 'failed') log(`  ${`${label}, bin/xhd process`.padEnd(32)} failed: ${c.why}`);
  }

  const peers: CaseResult['peers'] = {};
  for (const variant of s.peers) {
    const label = PEER_LABELS[variant];
    peers[variant] = 'error' in python ? { kind: 'skipped', why: 'no NumPy/SciPy' } : await measureUndisturbed(() => runPeer(variant, fileA, fileB, s), onRetry(label));
    describe(label, peers[variant]!);
  }

  const row: CaseResult = {
    name, dims: pair.dims, spacing: spacingOf(name), foreground: [pair.foregroundA, pair.foregroundB],
    fileBytes: [statSync(fileA).size, statSync(fileB).size], reading, ours, cli, peers,
  };
  for (const w of disagreements(row)) log(`  ✗ WARNING: ${w}`);
  return row;
}

/** Methods whose surfaces or distances differ from ours CPU. */
function disagreements(row: CaseResult): string[] {
  const ours = row.ours.cpu;
  if (ours.kind !== 'done') return [];
  const warnings: string[] = [];
  const check = (label: string, values: Parameters<typeof compareValues>[1]) => {
    const a = compareValues(ours.values, values);
    if (!a.agrees) warnings.push(`${row.name}: ${label} differs from ours CPU: ${a.differences.join('; ')}`);
  };
  if (row.ours.cuda.kind === 'done') check('ours GPU', row.ours.cuda.values);
  for (const backend of ['cpu', 'cuda'] as const) {
    const c = row.cli[backend];
    if (c.kind === 'done') check(`bin/xhd --backend ${backend}`, c.values);
  }
  for (const [variant, o] of Object.entries(row.peers)) if (o?.kind === 'done') check(PEER_LABELS[variant as keyof typeof PEER_LABELS], o.values);
  return warnings;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = parseMaskSettings(argv);
  const gpu = findGpu(s);
  if ('reason' in gpu) log(`note: ours GPU skipped: ${gpu.reason}`);
  const python: PythonProbe = s.peers.length === 0 ? { error: 'not asked for (--peers none)' } : await probePython(s.python);
  if ('error' in python) log(`note: peers skipped: ${s.python}: ${python.error}`);

  const started = performance.now();
  const pair = makeMaskPair(s.seed, s.scale);
  log(`masks ${pair.dims.join('×')}: ${pair.foregroundA.toLocaleString('en-US')} / ${pair.foregroundB.toLocaleString('en-US')} foreground voxels, ` +
    `made in ${formatMs(performance.now() - started)} ms`);

  const dir = s.keep ?? mkdtempSync(join(tmpdir(), 'xhd-bench-masks-'));
  if (s.keep) mkdirSync(s.keep, { recursive: true });
  const rows: CaseResult[] = [];
  try {
    for (const name of s.cases) rows.push(await benchmarkCase(name, pair, s, !('reason' in gpu), python, dir));
  } finally {
    if (!s.keep) rmSync(dir, { recursive: true, force: true });
  }
  log(`\nbenchmark finished in ${formatSeconds((performance.now() - started) / 1000)} s\n`);

  const warnings = rows.flatMap(disagreements);
  const report = [
    masksHeader(s, argv, gpu, python),
    ...rows.map((row) => [caseHeading(row, s.seed), timingTable(row, s), `Goal, file reading excluded:\n\n${goalLines(row, s)}`,
      `Values (mm):\n\n${valuesTable(row)}`].join('\n\n')),
    `## File reading (both files; medians of ${s.repeat} runs; not part of the goal)\n\nOurs phase by phase with the library's own functions ` +
      '(`readFileSync`, `gunzipNifti`, `parseNifti`, `maskToPoints`), beside what `compareFiles` measured as `timings_ms.read` and its whole `total`:\n\n' +
      readingTable(rows),
    `## Command line\n\nOne \`bin/xhd compare A B --json --percentile 95 -q --backend B --threads ${s.threads}\` process per case and backend (Node start-up included in the wall time):\n\n` +
      cliTable(rows),
    ...(warnings.length > 0 ? [warnings.map((w) => `- ✗ ${w}`).join('\n')] : []),
  ].join('\n\n') + '\n';
  publishReport(report, s.out, log);
}

main().catch((err) => {
  log(`bench-masks: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
