// Inputs larger than memory (issue 23): `xhd compare a.ply b.ply --backend cpu --memory-limit LIMIT` on an
// overlapping pair of binary float32 PLY files (or LAZ files, --format laz: the same points stored at 1e-7 steps,
// LASzip's 50,000-point chunks) too large for the limit, its wall time and the process's peak resident memory
// (GNU time's %M); and, on a pair small enough for this machine to compare whole, the streamed answer checked
// equal to the in-memory one (HD, both witnesses and their points).
//   scripts/bench-streamed [--points 200000000] [--limit 2G] [--check-points 50000000] [--check-limit 512M]
//                          [--format ply|laz] [--order drawn|morton] [--dir bench-data] [--keep] [--out docs/file.md]
// --order morton stores each set in Morton order (a 1024^3 grid), as scanners and tilers store LiDAR points: a
// LAZ chunk then covers a compact part of the space, which a streamed pass can skip when it needs none of it.
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
  order: 'drawn' | 'morton';
  out?: string;
}

function parseSettings(argv: string[]): Settings {
  const s: Settings = { points: 200_000_000, limit: '2G', checkPoints: 50_000_000, checkLimit: '512M', dir: join(ROOT, 'bench-data'), keep: false, format: 'ply', order: 'drawn' };
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i] ?? '';
    switch (argv[i]) {
      case '--points': s.points = Number(next()); break;
      case '--limit': s.limit = next(); break;
      case '--check-points': s.checkPoints = Number(next()); break;
      case '--check-limit': s.checkLimit = next(); break;
      case '--dir': s.dir = next(); break;
      case '--keep': s.keep = true; break;
      case '--order': {
        const order = next();
        if (order !== 'drawn' && order !== 'morton') throw new Error(`--order ${order}: drawn or morton`);
        s.order = order;
        break;
      }
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
async function writePair(dir: string, n: number, format: 'ply' | 'laz', order: 'drawn' | 'morton'): Promise<[string, string]> {
  const paths: [string, string] = [join(dir, `streamed-a-${n}-${order}.${format}`), join(dir, `streamed-b-${n}-${order}.${format}`)];
  if (paths.every(existsSync)) return paths;
  log(`drawing and writing the overlapping pair of ${n.toLocaleString('en-US')} points a side as ${format.toUpperCase()}, ${order} order`);
  const drawn = await overlappingParallel(n, 20260707);
  const a = order === 'morton' ? inMortonOrder(drawn.a) : drawn.a, b = order === 'morton' ? inMortonOrder(drawn.b) : drawn.b;
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

/** The points (in the unit cube) reordered by the Morton code of their cell in a 1024^3 grid. */
function inMortonOrder(xyz: Float32Array): Float32Array {
  const n = xyz.length / 3;
  const spread = (v: number) => {
    let x = Math.min(1023, Math.max(0, Math.floor(v * 1024)));
    x = (x | (x << 16)) & 0x030000ff;
    x = (x | (x << 8)) & 0x0300f00f;
    x = (x | (x << 4)) & 0x030c30c3;
    return (x | (x << 2)) & 0x09249249;
  };
  const keys = new Uint32Array(n), order = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    keys[i] = (spread(xyz[3 * i]) | (spread(xyz[3 * i + 1]) << 1) | (spread(xyz[3 * i + 2]) << 2)) >>> 0;
    order[i] = i;
  }
  order.sort((p, q) => keys[p] - keys[q] || p - q);
  const out = new Float32Array(xyz.length);
  for (let i = 0; i < n; i++) out.set(xyz.subarray(3 * order[i], 3 * order[i] + 3), 3 * i);
  return out;
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
    `- Inputs: the overlapping pair (scripts/bench/overlapping-parallel.ts) as ${s.format === 'laz' ? 'LAZ files (point format 0, steps of 1e-7, chunks of 50,000 points)' : 'binary float32 PLY files'}, ${s.order === 'morton' ? 'each set in Morton order (a 1024^3 grid)' : 'in the order drawn'}; page cache warm after the first pass`,
    '- Peak RSS: GNU time\'s maximum resident set of the xhd process (Node included)', '',
    '| run | wall s | peak RSS | slabs / passes / second-pass queries | HD |', '| --- | ---: | ---: | --- | ---: |'];
  const files: string[] = [];
  try {
    if (s.checkPoints > 0) {
      const [a, b] = await writePair(s.dir, s.checkPoints, s.format, s.order);
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
      const [a, b] = await writePair(s.dir, s.points, s.format, s.order);
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
