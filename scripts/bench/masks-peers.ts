// The SciPy peers of scripts/bench-masks, run through scripts/bench_masks_peers.py under a wall-clock limit.
// The Python script repeats the computation itself and reports medians, so one process is one measurement.
import { join } from 'node:path';

import { runChild, type ChildResult } from './child-process.js';
import type { Outcome } from './methods.js';
import type { MaskValues } from './masks-values.js';
import type { MaskSettings, PeerVariant } from './masks-settings.js';
import { ROOT } from './root.js';

const PEER_SCRIPT = join(ROOT, 'scripts', 'bench_masks_peers.py');
const PROBE_TIMEOUT_S = 60;

export const PEER_LABELS: Record<PeerVariant, string> = {
  edt: 'SciPy EDT, whole grid (medpy)',
  'edt-crop': 'SciPy EDT, cropped (MONAI)',
  kdtree: 'SciPy cKDTree',
};

type Done = Extract<Outcome, { kind: 'done' }>;

/** A finished peer measurement: ms is the median computation (surfaces + distances + statistics). */
export interface PeerDone extends Done {
  values: MaskValues;
  /** Medians, in ms. */
  parts: { surface: number; distances: number; statistics: number };
  /** The script's own reading of both files (gzip + header + np.frombuffer + != 0), one run, in ms. */
  readMs: number;
}
export type PeerOutcome = PeerDone | Exclude<Outcome, { kind: 'done' }>;

/** Python and library versions, or why the peers cannot run. */
export type PythonProbe = { python: string; executable: string; numpy: string; scipy: string } | { error: string };

/** bench_masks_peers.py under the wall-clock limit; null when the limit killed it. */
async function runPython(python: string, args: string[], timeoutS: number): Promise<ChildResult | null> {
  const r = await runChild(python, [PEER_SCRIPT, ...args], timeoutS);
  if (r.failedToStart) throw new Error(r.failedToStart);
  return r.timedOut ? null : r;
}

export async function probePython(python: string): Promise<PythonProbe> {
  try {
    const result = await runPython(python, ['probe'], PROBE_TIMEOUT_S);
    if (!result) return { error: 'probe timed out' };
    if (result.code !== 0) return { error: result.stderr.trim().split('\n').pop() || `exit ${result.code}` };
    return JSON.parse(result.stdout) as PythonProbe;
  } catch (err) {
    return { error: `${python}: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export async function runPeer(variant: PeerVariant, fileA: string, fileB: string, s: MaskSettings): Promise<PeerOutcome> {
  const start = performance.now();
  let result;
  try {
    result = await runPython(s.python, [variant, fileA, fileB, '--repeat', String(s.repeat)], s.timeoutS);
  } catch (err) {
    return { kind: 'failed', why: err instanceof Error ? err.message : String(err) };
  }
  const wallMs = performance.now() - start;
  if (result === null) return { kind: 'timeout' };
  if (result.code !== 0) return { kind: 'failed', why: result.stderr.trim().split('\n').pop() ?? `exit ${result.code}` };
  const j = JSON.parse(result.stdout);
  const ms = (seconds: number) => seconds * 1000;
  return {
    kind: 'done', ms: ms(j.seconds), wallMs, hd: j.hd, runs: j.runs, childCpuS: j.cpu_seconds,
    values: {
      hd: j.hd, hdAb: j.hd_ab, hdBa: j.hd_ba, hd95: j.hd95, hd95Ab: j.hd95_ab, hd95Ba: j.hd95_ba,
      assd: j.assd, meanAb: j.mean_ab, meanBa: j.mean_ba, surfaceA: j.surface_a, surfaceB: j.surface_b,
    },
    parts: { surface: ms(j.parts.surface), distances: ms(j.parts.distances), statistics: ms(j.parts.statistics) },
    readMs: ms(j.read_seconds),
  };
}
