// The Python peers (SciPy, Open3D), run through scripts/bench_peers.py under a wall-clock limit.
// The peer script repeats short runs itself, so one process is one measurement.
import { join } from 'node:path';

import { runChild, type ChildResult } from './child-process.js';
import type { Outcome, Peer } from './methods.js';
import { ROOT } from './root.js';
import type { Settings } from './settings.js';

const PEER_SCRIPT = join(ROOT, 'scripts', 'bench_peers.py');
export const PYTHON = '/usr/bin/python3';
const PROBE_TIMEOUT_S = 60;

/** Runs bench_peers.py under the wall-clock limit; resolves with its stdout, or null when killed. */
async function runPython(args: string[], timeoutS: number): Promise<ChildResult | null> {
  const r = await runChild(PYTHON, [PEER_SCRIPT, ...args], timeoutS);
  if (r.failedToStart) throw new Error(r.failedToStart);
  return r.timedOut ? null : r;
}

/** Measures one peer on the pair stored in fileA and fileB (.f32 files). */
export async function runPeer(peer: Peer, fileA: string, fileB: string, settings: Settings): Promise<Outcome> {
  const start = performance.now();
  const result = await runPython([peer, fileA, fileB], settings.timeoutS);
  const wallMs = performance.now() - start;
  if (result === null) return { kind: 'timeout' };
  if (result.code !== 0) return { kind: 'failed', why: result.stderr.trim().split('\n').pop() ?? `exit ${result.code}` };
  const { hd, seconds, runs, cpu_seconds } = JSON.parse(result.stdout) as { hd: number; seconds: number; runs: number; cpu_seconds: number };
  return { kind: 'done', ms: seconds * 1000, wallMs, hd, runs, childCpuS: cpu_seconds };
}

/** A peer's version, or why it cannot be imported. */
export interface PeerProbe {
  version?: string;
  error?: string;
}

/** Asks bench_peers.py which peers import, so missing ones are skipped rather than failed per case. */
export async function probePeers(): Promise<Record<Peer, PeerProbe>> {
  const failed = (why: string) => ({ scipy: { error: why }, open3d: { error: why } });
  try {
    const result = await runPython(['probe'], PROBE_TIMEOUT_S);
    if (!result || result.code !== 0) return failed(result ? result.stderr.trim() : 'probe timed out');
    return JSON.parse(result.stdout) as Record<Peer, PeerProbe>;
  } catch (err) {
    return failed(`${PYTHON}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
