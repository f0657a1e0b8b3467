// CPU benchmark: our grid and eb methods beside SciPy and Open3D on seeded synthetic point sets.
// Prints one markdown table per size; see `scripts/bench-cpu --help`.
// This file only orchestrates; the parts live in scripts/bench/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { hausdorff } from '../src/ops/hausdorff.js';
import { LABELS, METHOD_NAMES, PEERS, referenceHd, type CaseRow, type MethodName, type Ours, type Outcome, type Peer } from './bench/methods.js';
import { runOurs } from './bench/ours.js';
import { disturbed, measureUndisturbed } from './bench/outside-load.js';
import { probePeers, PYTHON, runPeer, type PeerProbe } from './bench/peers.js';
import { formatMs, formatSeconds, header, sizeTable } from './bench/report.js';
import { parseSettings, type Settings } from './bench/settings.js';
import { QUADRATIC, skipReason } from './bench/skip.js';
import { makeDataset, type DatasetName } from './datasets.js';

const RELATIVE_TOLERANCE = 1e-6;

const log = (line: string) => process.stderr.write(`${line}\n`);

async function benchmarkCase(name: DatasetName, n: number, settings: Settings, peers: Record<Peer, PeerProbe>,
  history: Map<string, { n: number; outcome: Outcome }>, dir: string): Promise<CaseRow> {
  const t0 = performance.now();
  const { a, b } = makeDataset(name, n, settings.seed);
  const fileA = join(dir, `${name}-${n}-a.f32`);
  const fileB = join(dir, `${name}-${n}-b.f32`);
  // Float32Array bytes are host order; every supported host is little-endian, as the .f32 files must be.
  writeFileSync(fileA, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  writeFileSync(fileB, new Uint8Array(b.buffer, b.byteOffset, b.byteLength));
  log(`\n${name}, n = ${n.toLocaleString('en-US')}: data ready in ${formatMs(performance.now() - t0)} ms`);

  const outcomes = {} as Record<MethodName, Outcome>;
  for (const method of METHOD_NAMES) {
    const key = `${method}/${name}`;
    const isPeer = (PEERS as readonly string[]).includes(method);
    const reason = QUADRATIC.has(method) ? skipReason(history.get(key), n, settings.timeoutS) : null;
    let outcome: Outcome;
    if (!settings.methods.includes(method)) outcome = { kind: 'skipped', why: 'not selected' };
    else if (isPeer && peers[method as Peer].error) outcome = { kind: 'skipped', why: 'not installed' };
    else if (reason) outcome = { kind: 'skipped', why: reason };
    else {
      const measure = () => (isPeer ? runPeer(method as Peer, fileA, fileB, settings) : runOurs(method as Ours, a, b, settings));
      outcome = await measureUndisturbed(measure, (outsideCores) =>
        log(`  ${LABELS[method].padEnd(7)} other processes used ${outsideCores.toFixed(2)} cores meanwhile; measuring again`));
    }
    outcomes[method] = outcome;
    if (outcome.kind === 'done' || outcome.kind === 'timeout') history.set(key, { n, outcome });
    const what = outcome.kind === 'done'
      ? `${formatMs(outcome.ms)} ms${outcome.buildMs === undefined ? '' : ` (build ${formatMs(outcome.buildMs)} + query ${formatMs(outcome.queryMs!)})`}` +
        ` (wall ${formatMs(outcome.wallMs)} ms, best of ${outcome.runs}), HD ${outcome.hd.toPrecision(9)}` +
        `, outside load ${outcome.outsideCores?.toFixed(2) ?? '?'} cores${disturbed(outcome) ? ' †' : ''}`
      : outcome.kind === 'timeout' ? `> ${settings.timeoutS} s` : `${outcome.kind}: ${outcome.why}`;
    log(`  ${LABELS[method].padEnd(7)} ${what}`);
  }
  rmSync(fileA);
  rmSync(fileB);

  const row: CaseRow = { name, n, outcomes, disagreeing: new Set() };
  const reference = referenceHd(row);
  for (const method of METHOD_NAMES) {
    const o = outcomes[method];
    if (o.kind !== 'done' || reference === undefined) continue;
    const relative = Math.abs(o.hd - reference) / Math.max(Math.abs(reference), Number.MIN_VALUE);
    if (relative > RELATIVE_TOLERANCE) {
      row.disagreeing.add(method);
      log(`  ✗ WARNING: ${LABELS[method]} HD ${o.hd.toPrecision(12)} differs from ${reference.toPrecision(12)} by ${relative.toExponential(2)} relative`);
    }
  }
  return row;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const settings = parseSettings(argv);
  const peers = await probePeers();
  for (const p of PEERS) if (peers[p].error) log(`note: ${LABELS[p]} skipped: import failed under ${PYTHON}: ${peers[p].error}`);
  // Load the native library and spin up its threads once, so the first timed call is not penalized.
  await hausdorff(new Float32Array([0, 0, 0, 1, 1, 1]), new Float32Array([0, 1, 0]), { backend: 'cpu', threads: settings.threads });

  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-cpu-'));
  const sections: string[] = [header(settings, peers, argv)];
  const history = new Map<string, { n: number; outcome: Outcome }>();
  const started = performance.now();
  try {
    for (const n of [...settings.sizes].sort((x, y) => x - y)) {
      const rows: CaseRow[] = [];
      for (const name of settings.cases) rows.push(await benchmarkCase(name, n, settings, peers, history, dir));
      sections.push(`## ${n.toLocaleString('en-US')} × ${n.toLocaleString('en-US')} points\n\n${sizeTable(rows, settings.timeoutS)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  log(`\nbenchmark finished in ${formatSeconds((performance.now() - started) / 1000)} s\n`);
  const report = `${sections.join('\n\n')}\n`;
  process.stdout.write(report);
  if (settings.out) {
    mkdirSync(dirname(settings.out), { recursive: true });
    writeFileSync(settings.out, report);
    log(`report written to ${settings.out}`);
  }
}

main().catch((err) => {
  log(`bench-cpu: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
