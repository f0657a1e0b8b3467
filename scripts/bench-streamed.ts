// Inputs larger than memory (issue 23): `xhd compare a.ply b.ply --backend cpu --memory-limit LIMIT` on an
// overlapping pair of binary float32 PLY files (or LAZ files, --format laz: the same points stored at 1e-7 steps,
// LASzip's 50,000-point chunks) too large for the limit, its wall time and the process's peak resident memory
// (GNU time's %M); and, on a pair small enough for this machine to compare whole, the streamed answer checked
// equal to the in-memory one (HD, both witnesses and their points).
//   scripts/bench-streamed [--points 200000000] [--limit 2G] [--check-points 50000000] [--check-limit 512M]
//                          [--format ply|laz] [--dir bench-data] [--keep] [--out docs/file.md]
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

import { writeLaz } from '../src/io/laz-write.js';
import { overlappingParallel } from './bench/overlapping-parallel.js';
import { libraryVersion, publishReport, runLines } from './bench/report.js';
import { ROOT } from './bench/root.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Settings {
  points: number;
  limit: string;
  checkPoints: number;
  checkLimit: string;
  dir: string;
  keep: boolean;
  format: 'ply' | 'laz';
  out?: string;
}

function parseSettings(argv: string[]): Settings {
  const s: Settings = { points: 200_000_000, limit: '2G', checkPoints: 50_000_000, checkLimit: '512M', dir: join(ROOT, 'bench-data'), keep: false, format: 'ply' };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i] ?? '';
    switch (argv[i]) {
      case '--points': s.points = Number(next()); break;
      case '--limit': s.limit = next(); break;
      case '--check-points': s.checkPoints = Number(next()); break;
      case '--check-limit': s.checkLimit = next(); break;
      case '--dir': s.dir = next(); break;
      case '--keep': s.keep = true; break;
      case '--format': {
        const format = next();
        if (format !== 'ply' && format !== 'laz') throw new Error(`--format ${format}: ply or laz`);
        s.format = format;
        break;
      }
      case '--out': s.out = next(); break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  return s;
}

/**
 * The overlapping pair of n points a side as binary little-endian float32 PLY files (x, y, z only), or as LAZ
 * files of point format 0 holding the same points at steps of 1e-7 (the unit cube's coordinates in int32).
 */
async function writePair(dir: string, n: number, format: 'ply' | 'laz'): Promise<[string, string]> {
  const paths: [string, string] = [join(dir, `streamed-a-${n}.${format}`), join(dir, `streamed-b-${n}.${format}`)];
  if (paths.every(existsSync)) return paths;
  log(`drawing and writing the overlapping pair of ${n.toLocaleString('en-US')} points a side as ${format.toUpperCase()}`);
  const { a, b } = await overlappingParallel(n, 20260707);
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${n}\nproperty float x\nproperty float y\nproperty float z\nend_header\n`;
  for (const [path, xyz] of [[paths[0], a], [paths[1], b]] as const) {
    if (format === 'laz') {
      writeLaz(path, { xyz: Float64Array.from(xyz) }, { scale: [1e-7, 1e-7, 1e-7], offset: [0, 0, 0], chunkSize: 50_000 });
      continue;
    }
    const fd = openSync(path, 'w');
    try {
      writeSync(fd, header);
      const bytes = new Uint8Array(xyz.buffer, xyz.byteOffset, xyz.byteLength);
      for (let at = 0; at < bytes.length; at += 1 << 30) writeSync(fd, bytes, at, Math.min(1 << 30, bytes.length - at));
    } finally {
      closeSync(fd);
    }
  }
  return paths;
}

interface Run {
  wallMs: number;
  peakRssBytes: number;
  json: Record<string, unknown>;
}

/** One compare under GNU time: its JSON, wall time and peak resident memory. */
function compare(a: string, b: string, extra: string[]): Run {
  const started = performance.now();
  const run = spawnSync('/usr/bin/time', ['-f', 'peak-rss-kb %M', process.execPath, join(ROOT, 'bin', 'xhd'), 'compare', a, b, '--backend', 'cpu', '--json', '--quiet', ...extra],
    { encoding: 'utf8', maxBuffer: 1 << 26 });
  const wallMs = performance.now() - started;
  if (run.status !== 0) throw new Error(`xhd compare failed (${run.status}): ${run.stderr}`);
  const rss = /peak-rss-kb (\d+)/.exec(run.stderr);
  return { wallMs, peakRssBytes: rss ? 1024 * Number(rss[1]) : NaN, json: JSON.parse(run.stdout) };
}

const ANSWER = ['hd', 'hd_ab', 'hd_ba', 'witness_ab', 'witness_ba', 'bbox_diagonal'];
const sameAnswer = (x: Run, y: Run) => ANSWER.every((k) => JSON.stringify(x.json[k]) === JSON.stringify(y.json[k]));
const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;

function row(label: string, r: Run): string {
  const s = r.json.streamed as { slabs: number; passes: number; second_pass_queries: number } | undefined;
  return `| ${label} | ${(r.wallMs / 1000).toFixed(1)} | ${gb(r.peakRssBytes)} | ${s ? `${s.slabs} / ${s.passes} / ${s.second_pass_queries}` : 'read whole'} | ${Number(r.json.hd).toPrecision(10)} |`;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = parseSettings(argv);
  if (!existsSync('/usr/bin/time')) throw new Error('GNU time (/usr/bin/time) measures the peak memory: install the Debian package "time"');
  mkdirSync(s.dir, { recursive: true });
  const report = ['# Inputs larger than memory: a compare streamed from the files', '', ...runLines('scripts/bench-streamed', argv),
    `- Native library: build/libxhd_cpu.so from ${libraryVersion()}`,
    `- Inputs: the overlapping pair (scripts/bench/overlapping-parallel.ts) as ${s.format === 'laz' ? 'LAZ files (point format 0, steps of 1e-7, chunks of 50,000 points)' : 'binary float32 PLY files'}; page cache warm after the first pass`,
    '- Peak RSS: GNU time\'s maximum resident set of the xhd process (Node included)', '',
    '| run | wall s | peak RSS | slabs / passes / second-pass queries | HD |', '| --- | ---: | ---: | --- | ---: |'];
  const files: string[] = [];
  try {
    if (s.checkPoints > 0) {
      const [a, b] = await writePair(s.dir, s.checkPoints, s.format);
      files.push(a, b);
      log(`checking ${s.checkPoints.toLocaleString('en-US')} a side: in memory, then streamed within ${s.checkLimit}`);
      const whole = compare(a, b, []);
      const streamed = compare(a, b, ['--memory-limit', s.checkLimit]);
      report.push(row(`${s.checkPoints.toLocaleString('en-US')} a side, in memory`, whole),
        row(`${s.checkPoints.toLocaleString('en-US')} a side, --memory-limit ${s.checkLimit}`, streamed));
      report.push(`| same answer (HD, witnesses, their points, bbox diagonal) | ${sameAnswer(whole, streamed) ? '✓' : '✗'} | | | |`);
    }
    // The large pair, unless the check above was that run already (--check-points and --check-limit the same).
    if (s.checkPoints !== s.points || s.checkLimit !== s.limit) {
      const [a, b] = await writePair(s.dir, s.points, s.format);
      files.push(a, b);
      log(`streaming ${s.points.toLocaleString('en-US')} a side within ${s.limit}`);
      const big = compare(a, b, ['--memory-limit', s.limit]);
      report.push(row(`${s.points.toLocaleString('en-US')} a side, --memory-limit ${s.limit}`, big));
    }
    report.push('');
  } finally {
    if (!s.keep) for (const f of files) rmSync(f, { force: true });
  }
  publishReport(report.join('\n') + '\n', s.out, log);
}

main().catch((err) => {
  log(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});
