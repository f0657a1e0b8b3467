// FCL's broad phase + exact distance as the join's CPU peer: scripts/fcl_join.cpp, compiled on first use (and
// again when the source is newer) into build/bench/ (fcl-harness.ts), run as a child process on binary collection files.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { JoinObjects } from '../../src/ops/join.js';
import { harnessEnv, prepareFclHarness, type FclHarness } from './fcl-harness.js';

export type FclJoinProbe = FclHarness;

export function prepareFclJoin(log: (line: string) => void): FclJoinProbe {
  return prepareFclHarness('fcl_join', log);
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
    const env = harnessEnv(probe);
    const r = spawnSync(probe.binary, [join(dir, 'a.join'), b ? join(dir, 'b.join') : 'self', String(d)], { encoding: 'utf8', env, timeout: 3_600_000 });
    if (r.status !== 0) return { error: (r.stderr || `exit ${r.status}`).trim().split('\n')[0] };
    const out = JSON.parse(r.stdout.trim()) as { build_ms: number; join_ms: number; pairs: number; distance_calls: number };
    log(`  FCL: build ${out.build_ms.toFixed(0)} ms, join ${out.join_ms.toFixed(0)} ms, ${out.pairs} pairs, ${out.distance_calls} distance calls`);
    return { ms: out.join_ms, buildMs: out.build_ms, pairs: out.pairs, calls: out.distance_calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
