// CPU benchmark: our grid and eb methods beside SciPy and Open3D on seeded synthetic point sets.
// Prints one markdown table per size; see `scripts/bench-cpu --help`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { CancelledError, hausdorff } from '../src/hausdorff.js';
import { DATASET_NAMES, makeDataset, type DatasetName } from './datasets.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PEER_SCRIPT = join(ROOT, 'scripts', 'bench_peers.py');
const PYTHON = '/usr/bin/python3';
const RELATIVE_TOLERANCE = 1e-6;
// A first run faster than this is repeated twice more and the best of the three kept (all methods alike).
const REPEAT_BELOW_MS = 2000;

const OURS = ['grid', 'eb'] as const;
const PEERS = ['scipy', 'open3d'] as const;
type Ours = (typeof OURS)[number];
type Peer = (typeof PEERS)[number];
type MethodName = Ours | Peer;
const METHOD_NAMES: readonly MethodName[] = [...OURS, ...PEERS];
const LABELS: Record<MethodName, string> = { grid: 'grid', eb: 'eb', scipy: 'SciPy', open3d: 'Open3D' };
// Early-break scans grow about quadratically with n (the cmax ball holds a roughly constant number
// of points), so a larger size is skipped when the smaller one's time scaled by n^2 exceeds the limit.
const QUADRATIC: ReadonlySet<MethodName> = new Set(['eb', 'scipy']);
// The machine may be shared: a measurement during which other processes used more CPU than this
// (in cores, averaged over its wall time) is repeated when short, and marked † otherwise.
const OUTSIDE_LOAD_LIMIT = 0.25;
const RETRY_BELOW_MS = 10_000;
const CLOCK_TICKS_PER_S = 100; // USER_HZ of /proc/stat

type Outcome =
  | { kind: 'done'; ms: number; wallMs: number; hd: number; runs: number; evals?: number; childCpuS?: number; outsideCores?: number }
  | { kind: 'timeout' }
  | { kind: 'skipped'; why: string }
  | { kind: 'failed'; why: string };

interface Settings {
  sizes: number[];
  cases: DatasetName[];
  timeoutS: number;
  threads: number;
  seed: number;
  out?: string;
}

const HELP = `Usage: scripts/bench-cpu [options]
  --sizes LIST      points per side, comma-separated (default 200000,1000000)
  --cases LIST      ${DATASET_NAMES.join(',')} (default: all)
  --timeout-s N     wall-clock limit per method per case (default 120)
  --threads N       threads for grid and eb (default: every core)
  --seed N          dataset seed, >= 1 (default 1)
  --out FILE        also write the markdown report to FILE`;

function positiveInteger(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} expects a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

function parseSettings(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: '200000,1000000' },
      cases: { type: 'string', default: DATASET_NAMES.join(',') },
      'timeout-s': { type: 'string', default: '120' },
      threads: { type: 'string' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const cases = values.cases!.split(',').map((c) => {
    if (!(DATASET_NAMES as readonly string[]).includes(c)) throw new Error(`unknown case ${JSON.stringify(c)}; expected ${DATASET_NAMES.join(', ')}`);
    return c as DatasetName;
  });
  return {
    sizes: values.sizes!.split(',').map((s) => positiveInteger(s, 'sizes')),
    cases,
    timeoutS: positiveInteger(values['timeout-s']!, 'timeout-s'),
    threads: values.threads === undefined ? availableParallelism() : positiveInteger(values.threads, 'threads'),
    seed: positiveInteger(values.seed!, 'seed'),
    out: values.out,
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function runOurs(method: Ours, a: Float32Array, b: Float32Array, settings: Settings): Promise<Outcome> {
  const once = async (): Promise<Outcome> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), settings.timeoutS * 1000);
    const start = performance.now();
    try {
      const r = await hausdorff(a, b, { method, threads: settings.threads, signal: controller.signal });
      const wallMs = performance.now() - start;
      const ms = r.ab.buildMs + r.ab.queryMs + r.ba!.buildMs + r.ba!.queryMs;
      return { kind: 'done', ms, wallMs, hd: r.hd, runs: 1, evals: r.ab.distanceEvals + r.ba!.distanceEvals };
    } catch (err) {
      if (err instanceof CancelledError) return { kind: 'timeout' };
      return { kind: 'failed', why: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  };
  let best = await once();
  if (best.kind !== 'done' || best.ms >= REPEAT_BELOW_MS) return best;
  for (let run = 2; run <= 3; ++run) {
    const next = await once();
    if (next.kind !== 'done') return next;
    if (next.ms < best.ms) best = next;
    best.runs = run;
  }
  return best;
}

/** Runs bench_peers.py under the wall-clock limit; resolves with its stdout, or null when killed. */
function runPython(args: string[], timeoutS: number): Promise<{ stdout: string; stderr: string; code: number | null } | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [PEER_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, timeoutS * 1000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve(killed ? null : { stdout, stderr, code });
    });
  });
}

async function runPeer(peer: Peer, fileA: string, fileB: string, settings: Settings): Promise<Outcome> {
  const start = performance.now();
  const result = await runPython([peer, fileA, fileB], settings.timeoutS);
  const wallMs = performance.now() - start;
  if (result === null) return { kind: 'timeout' };
  if (result.code !== 0) return { kind: 'failed', why: result.stderr.trim().split('\n').pop() ?? `exit ${result.code}` };
  const { hd, seconds, runs, cpu_seconds } = JSON.parse(result.stdout) as { hd: number; seconds: number; runs: number; cpu_seconds: number };
  return { kind: 'done', ms: seconds * 1000, wallMs, hd, runs, childCpuS: cpu_seconds };
}

/** CPU time, in seconds, that all processes of the machine have spent so far (NaN where /proc/stat is missing). */
function machineBusySeconds(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = fields;
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_S;
  } catch {
    return NaN;
  }
}

/** Runs a measurement and records how many cores other processes kept busy meanwhile. */
async function withOutsideLoad(measure: () => Promise<Outcome>): Promise<Outcome> {
  const busy0 = machineBusySeconds();
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  const outcome = await measure();
  const wallS = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(own0);
  if (outcome.kind === 'done') {
    const ownS = (own.user + own.system) / 1e6 + (outcome.childCpuS ?? 0);
    // Two clock ticks of slack: /proc/stat counts in 10 ms steps, which would swamp very short runs.
    outcome.outsideCores = Math.max(0, (machineBusySeconds() - busy0 - ownS - 2 / CLOCK_TICKS_PER_S) / wallS);
  }
  return outcome;
}

const disturbed = (o: Outcome) => o.kind === 'done' && (o.outsideCores ?? 0) > OUTSIDE_LOAD_LIMIT;

interface PeerProbe {
  version?: string;
  error?: string;
}

async function probePeers(): Promise<Record<Peer, PeerProbe>> {
  const failed = (why: string) => ({ scipy: { error: why }, open3d: { error: why } });
  try {
    const result = await runPython(['probe'], 60);
    if (!result || result.code !== 0) return failed(result ? result.stderr.trim() : 'probe timed out');
    return JSON.parse(result.stdout) as Record<Peer, PeerProbe>;
  } catch (err) {
    return failed(`${PYTHON}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Why a quadratic method is not worth starting at size n, judging from its time at a smaller size. */
function skipReason(previous: { n: number; outcome: Outcome } | undefined, n: number, timeoutS: number): string | null {
  if (!previous || previous.n >= n) return null;
  const scale = (n / previous.n) ** 2;
  const { outcome } = previous;
  if (outcome.kind === 'timeout') return `est. > ${Math.round(timeoutS * scale)} s > limit`;
  if (outcome.kind === 'done' && (outcome.ms * scale) / 1000 > timeoutS) return `est. ~${formatSeconds((outcome.ms * scale) / 1000)} s > limit`;
  return null;
}

function formatSeconds(s: number): string {
  return s >= 100 ? Math.round(s).toLocaleString('en-US') : s.toPrecision(2);
}

function formatMs(ms: number): string {
  if (ms >= 1000) return Math.round(ms).toLocaleString('en-US');
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  return ms.toFixed(2);
}

function formatRatio(ratio: number): string {
  return `${ratio >= 100 ? Math.round(ratio).toLocaleString('en-US') : ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}

interface CaseRow {
  name: DatasetName;
  n: number;
  outcomes: Record<MethodName, Outcome>;
  disagreeing: Set<MethodName>;
}

function referenceHd(row: CaseRow): number | undefined {
  for (const m of METHOD_NAMES) {
    const o = row.outcomes[m];
    if (o.kind === 'done') return o.hd;
  }
  return undefined;
}

function cell(row: CaseRow, method: MethodName, timeoutS: number): string {
  const o = row.outcomes[method];
  switch (o.kind) {
    case 'done':
      return formatMs(o.ms) + (row.disagreeing.has(method) ? ' ✗' : '') + (disturbed(o) ? ' †' : '');
    case 'timeout':
      return `> ${timeoutS} s`;
    case 'skipped':
      return `(skipped: ${o.why})`;
    case 'failed':
      return 'failed';
  }
}

function ratio(row: CaseRow, method: MethodName): string {
  const o = row.outcomes[method];
  const grid = row.outcomes.grid;
  return o.kind === 'done' && grid.kind === 'done' ? formatRatio(o.ms / grid.ms) : '';
}

function sizeTable(rows: CaseRow[], timeoutS: number): string {
  const lines = [
    '| case | grid ms | eb ms | SciPy ms | Open3D ms | HD | SciPy/grid | Open3D/grid | eb/grid |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const hd = referenceHd(row);
    lines.push(
      `| ${row.name} | ${cell(row, 'grid', timeoutS)} | ${cell(row, 'eb', timeoutS)} | ${cell(row, 'scipy', timeoutS)} | ` +
        `${cell(row, 'open3d', timeoutS)} | ${hd === undefined ? '' : hd.toPrecision(9)} | ` +
        `${ratio(row, 'scipy')} | ${ratio(row, 'open3d')} | ${ratio(row, 'eb')} |`,
    );
  }
  lines.push('', 'Wall time of each call (ours: the `hausdorff()` promise; peers: the whole Python process, imports and file loading included), runs kept, distance evaluations:', '');
  lines.push('| case | grid wall ms | eb wall ms | SciPy wall ms | Open3D wall ms | runs (grid/eb/SciPy/Open3D) | grid dist. evals | eb dist. evals |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const wall = (m: MethodName) => {
      const o = row.outcomes[m];
      return o.kind === 'done' ? formatMs(o.wallMs) : '';
    };
    const runs = METHOD_NAMES.map((m) => {
      const o = row.outcomes[m];
      return o.kind === 'done' ? String(o.runs) : '–';
    }).join('/');
    const evals = (m: Ours) => {
      const o = row.outcomes[m];
      return o.kind === 'done' && o.evals !== undefined ? o.evals.toExponential(2) : '';
    };
    lines.push(`| ${row.name} | ${wall('grid')} | ${wall('eb')} | ${wall('scipy')} | ${wall('open3d')} | ${runs} | ${evals('grid')} | ${evals('eb')} |`);
  }
  return lines.join('\n');
}

function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1].trim();
  } catch {
    // not Linux: fall back to what Node reports
  }
  return cpus()[0]?.model ?? 'unknown';
}

/** Which native code was measured: the commit, and whether kernels/ had uncommitted changes. */
function libraryVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'kernels') !== '';
    return `git ${git('rev-parse', '--short', 'HEAD')}${dirty ? ' with uncommitted changes in kernels/' : ''}`;
  } catch {
    return 'not a git checkout';
  }
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

function header(settings: Settings, peers: Record<Peer, PeerProbe>, argv: string[]): string {
  const peerLine = (p: Peer) => (peers[p].error ? `not available (${peers[p].error})` : `${peers[p].version}`);
  return [
    '# CPU benchmark: point-set Hausdorff distance',
    '',
    `- Command: \`${['scripts/bench-cpu', ...argv].map(shellQuote).join(' ')}\``,
    `- Date: ${new Date().toISOString()}`,
    `- CPU: ${cpuModel()}, ${availableParallelism()} logical cores; memory ${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average at start ${loadavg()[0].toFixed(2)}`,
    `- Native library: build/libxhd_cpu.so from ${libraryVersion()}`,
    `- Node ${process.version}; ${PYTHON}: SciPy ${peerLine('scipy')}, Open3D ${peerLine('open3d')}`,
    `- grid and eb threads: ${settings.threads}; SciPy single-threaded; Open3D uses all cores (OpenMP)`,
    `- Limit ${settings.timeoutS} s per method per case; dataset seed ${settings.seed}`,
    '- Times are computation only: ours = build + query of both directions as reported by the library;',
    '  SciPy = `directed_hausdorff` both ways; Open3D = PointCloud construction + `compute_point_cloud_distance` both ways',
    '  (each call builds a KD-tree on its target). Input loading is never timed. A run under 2 s is repeated, best of 3 kept.',
    '- Ratios: how many times faster grid is. ✗: HD differs from the first finished method by more than 1e-6 relative.',
    `- †: other processes kept more than ${OUTSIDE_LOAD_LIMIT} cores busy during this measurement (after up to two retries), so it may be inflated.`,
  ].join('\n');
}

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
    if (isPeer && peers[method as Peer].error) outcome = { kind: 'skipped', why: 'not installed' };
    else if (reason) outcome = { kind: 'skipped', why: reason };
    else {
      const measure = () => (isPeer ? runPeer(method as Peer, fileA, fileB, settings) : runOurs(method as Ours, a, b, settings));
      outcome = await withOutsideLoad(measure);
      for (let retry = 1; retry <= 2 && disturbed(outcome) && outcome.kind === 'done' && outcome.wallMs < RETRY_BELOW_MS; ++retry) {
        log(`  ${LABELS[method].padEnd(7)} other processes used ${outcome.outsideCores!.toFixed(2)} cores meanwhile; measuring again`);
        await new Promise((resolve) => setTimeout(resolve, 3000)); // let a short burst (a compile, a test) pass
        outcome = await withOutsideLoad(measure);
      }
    }
    outcomes[method] = outcome;
    if (outcome.kind === 'done' || outcome.kind === 'timeout') history.set(key, { n, outcome });
    const what = outcome.kind === 'done'
      ? `${formatMs(outcome.ms)} ms (wall ${formatMs(outcome.wallMs)} ms, best of ${outcome.runs}), HD ${outcome.hd.toPrecision(9)}` +
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
  await hausdorff(new Float32Array([0, 0, 0, 1, 1, 1]), new Float32Array([0, 1, 0]), { threads: settings.threads });

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
