// FCL's broad phase + exact distance as the join's CPU peer: scripts/fcl_join.cpp, compiled on first use (and
// again when the source is newer) into build/bench/, run as a child process on binary collection files.
// FCL comes from the system (libfcl-dev), or from XHD_FCL_PREFIX: a directory holding usr/include and
// usr/lib/x86_64-linux-gnu of FCL, libccd, Eigen and OctoMap (e.g. their Debian packages unpacked with
// `apt-get download` and `dpkg -x`, where installing them is not wanted).
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { JoinObjects } from '../../src/ops/join.js';
import { ROOT } from './root.js';

const SOURCE = join(ROOT, 'scripts', 'fcl_join.cpp');
const BINARY = join(ROOT, 'build', 'bench', 'fcl_join');

export type FclJoinProbe = { binary: string; libraryPath: string } | { error: string };

export function prepareFclJoin(log: (line: string) => void): FclJoinProbe {
  const prefix = process.env.XHD_FCL_PREFIX;
  const include = prefix ? join(prefix, 'usr', 'include') : '/usr/include';
  const lib = prefix ? join(prefix, 'usr', 'lib', 'x86_64-linux-gnu') : '';
  if (!existsSync(join(include, 'fcl', 'config.h'))) return { error: 'libfcl-dev not installed (apt-get install libfcl-dev, or XHD_FCL_PREFIX)' };
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(SOURCE).mtimeMs) return { binary: BINARY, libraryPath: lib };
  mkdirSync(join(ROOT, 'build', 'bench'), { recursive: true });
  const args = ['-O3', '-march=native', '-DNDEBUG', '-std=c++17', `-I${include}`, `-I${join(include, 'eigen3')}`, SOURCE, '-o', BINARY,
    ...(lib ? [`-L${lib}`] : []), '-lfcl', '-lccd', '-loctomap', '-loctomath'];
  log(`compiling the FCL join harness (g++ ${args.join(' ')})`);
  const r = spawnSync('g++', args, { encoding: 'utf8' });
  if (r.status !== 0) return { error: `the FCL join harness does not compile: ${(r.stderr ?? '').split('\n').slice(0, 3).join(' ')}` };
  return { binary: BINARY, libraryPath: lib };
}

function writeCollection(path: string, c: JoinObjects): void {
  const fd = openSync(path, 'w');
  try {
    const head = Buffer.alloc(32);
    head.write('XHDJOIN1', 0, 'latin1');
    head.writeBigUInt64LE(BigInt(c.positions.length / 3), 8);
    head.writeBigUInt64LE(BigInt(c.triangles.length / 3), 16);
    head.writeBigUInt64LE(BigInt(c.objectFaces.length - 1), 24);
    writeSync(fd, head);
    const xyz = Float64Array.from(c.positions);
    for (const part of [xyz, c.triangles, c.objectFaces]) writeSync(fd, new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
  } finally {
    closeSync(fd);
  }
}

export type FclJoinOutcome = { ms: number; buildMs: number; pairs: number; calls: number } | { error: string };

/** FCL's within-d join of a and b (null: a with itself): its pairs and its time (building excluded). */
export function runFclJoin(probe: { binary: string; libraryPath: string }, a: JoinObjects, b: JoinObjects | null, d: number,
  log: (line: string) => void): FclJoinOutcome {
  const dir = mkdtempSync(join(tmpdir(), 'xhd-fcl-join-'));
  try {
    writeCollection(join(dir, 'a.join'), a);
    if (b) writeCollection(join(dir, 'b.join'), b);
    const env = { ...process.env, LD_LIBRARY_PATH: [probe.libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') };
    const r = spawnSync(probe.binary, [join(dir, 'a.join'), b ? join(dir, 'b.join') : 'self', String(d)], { encoding: 'utf8', env, timeout: 3_600_000 });
    if (r.status !== 0) return { error: (r.stderr || `exit ${r.status}`).trim().split('\n')[0] };
    const out = JSON.parse(r.stdout.trim()) as { build_ms: number; join_ms: number; pairs: number; distance_calls: number };
    log(`  FCL: build ${out.build_ms.toFixed(0)} ms, join ${out.join_ms.toFixed(0)} ms, ${out.pairs} pairs, ${out.distance_calls} distance calls`);
    return { ms: out.join_ms, buildMs: out.build_ms, pairs: out.pairs, calls: out.distance_calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
