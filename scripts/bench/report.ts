// The markdown report: number formatting, the per-size tables, and the header of machine facts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';

import { libraryDir } from '../../src/native/library.js';
import type { DeviceInfo } from '../../src/ops/backends.js';
import { METHOD_NAMES, referenceHd, type CaseRow, type MethodName, type Ours, type Peer } from './methods.js';
import { disturbed, OUTSIDE_LOAD_LIMIT } from './outside-load.js';
import { PYTHON, type PeerProbe } from './peers.js';
import { ROOT } from './root.js';
import type { Settings } from './settings.js';

export function formatSeconds(s: number): string {
  return s >= 100 ? Math.round(s).toLocaleString('en-US') : s.toPrecision(2);
}

export function formatMs(ms: number): string {
  if (ms >= 1000) return Math.round(ms).toLocaleString('en-US');
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  return ms.toFixed(2);
}

export function formatRatio(ratio: number): string {
  return `${ratio >= 100 ? Math.round(ratio).toLocaleString('en-US') : ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
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

/** The two tables of one size: computation times and ratios, then wall times, runs and distance evaluations. */
export function sizeTable(rows: CaseRow[], timeoutS: number): string {
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

export function cpuModel(): string {
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) return match[1].trim();
  } catch {
    // not Linux: fall back to what Node reports
  }
  return cpus()[0]?.model ?? 'unknown';
}

/** Which code was measured: the commit, and which of the folders had uncommitted changes. */
export function libraryVersion(folders: string[] = ['kernels']): string {
  try {
    const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { encoding: 'utf8' }).trim();
    const dirty = folders.filter((folder) => git('status', '--porcelain', '--', folder) !== '');
    return `git ${git('rev-parse', '--short', 'HEAD')}${dirty.length > 0 ? ` with uncommitted changes in ${dirty.map((f) => `${f}/`).join(' and ')}` : ''}`;
  } catch {
    return 'not a git checkout';
  }
}

/**
 * The CPU library's target as its build recorded it (build-native's .cmd beside the library): `-march=...` with the
 * flags native resolved to, shortened. A library built for another machine (x86-64-v3 for a GPU host, say) can
 * measure that host's CPU several times slower than its own build would.
 */
export function cpuLibraryTarget(): string {
  const dir = libraryDir();
  try {
    const identity = String(JSON.parse(readFileSync(`${dir}/libxhd_cpu.so.cmd`, 'utf8')).identity ?? '');
    const march = /-march=(\S+)/.exec(identity);
    if (!march) return 'CPU library target not recorded (a build for a named target, from before targets were recorded)';
    const native = identity.includes('-mtune=') ? ' (native to the machine it was built on)' : '';
    return `CPU library built for -march=${march[1]}${native}${identity.includes('-mavx512f') || march[1] === 'x86-64-v4' ? ', AVX-512' : ''}`;
  } catch {
    return `CPU library target unknown (no libxhd_cpu.so.cmd in ${dir})`;
  }
}

export function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The first facts of every benchmark report: the command that made it, when, and on what CPU. */
export function runLines(script: string, argv: string[]): string[] {
  return [
    `- Command: \`${[script, ...argv].map(shellQuote).join(' ')}\``,
    `- Date: ${new Date().toISOString()}`,
    `- CPU: ${cpuModel()}, ${availableParallelism()} logical cores; memory ${(totalmem() / 2 ** 30).toFixed(1)} GiB; load average at start ${loadavg()[0].toFixed(2)}`,
  ];
}

/** A GPU as a report names it, or why there is none. */
export function gpuDescription(gpu: DeviceInfo | { reason: string }): string {
  return 'reason' in gpu ? `none usable (${gpu.reason}): the GPU columns are skipped`
    : `${gpu.name} (compute ${gpu.computeCapability}, ${gpu.multiprocessors} SMs, ${(gpu.totalMemoryBytes / 2 ** 30).toFixed(0)} GiB, driver ${gpu.driverVersion}, CUDA runtime ${gpu.runtimeVersion})`;
}

/** The report's title and the facts needed to reproduce or judge it: command, machine, versions, method notes. */
export function header(settings: Settings, peers: Record<Peer, PeerProbe>, argv: string[]): string {
  const peerLine = (p: Peer) => (peers[p].error ? `not available (${peers[p].error})` : `${peers[p].version}`);
  return [
    '# CPU benchmark: point-set Hausdorff distance',
    '',
    ...runLines('scripts/bench-cpu', argv),
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

/** Prints the report on stdout and, with --out, writes it to that file too (its folder made if missing). */
export function publishReport(report: string, out: string | undefined, log?: (line: string) => void): void {
  process.stdout.write(report);
  if (!out) return;
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, report);
  log?.(`report written to ${out}`);
}
