// CGAL's approximate_Hausdorff_distance as a peer: scripts/cgal_surface_hausdorff.cpp, compiled on first
// use (and again when the source is newer) into build/bench/, run as a child process per case.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { failureReason, runChild } from './child-process.js';
import { ROOT } from './root.js';
import type { SurfaceCase } from './surface-cases.js';
import type { SurfaceOutcome } from './surface-ours.js';

const SOURCE = join(ROOT, 'scripts', 'cgal_surface_hausdorff.cpp');
const BINARY = join(ROOT, 'build', 'bench', 'cgal_surface_hausdorff');
const CGAL_HEADERS = '/usr/include/CGAL';
const TBB_HEADERS = '/usr/include/tbb';

export type CgalProbe = { binary: string; version: string; tbb: boolean } | { error: string };

function cgalVersion(): string {
  try {
    const match = /#define CGAL_VERSION (\S+)/.exec(readFileSync(join(CGAL_HEADERS, 'version.h'), 'utf8'));
    return match ? match[1] : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Compiles the harness when needed; says why CGAL is skipped when its headers are missing or the build fails.
 * XHD_CGAL_HARNESS names a harness built elsewhere (with its libraries on LD_LIBRARY_PATH), for machines
 * that cannot install libcgal-dev, such as a GPU machine with no network; XHD_CGAL_VERSION then names its CGAL.
 */
export function prepareCgal(log: (line: string) => void): CgalProbe {
  const prebuilt = process.env.XHD_CGAL_HARNESS;
  if (prebuilt) {
    if (!existsSync(prebuilt)) return { error: `XHD_CGAL_HARNESS: ${prebuilt} does not exist` };
    log(`using the prebuilt CGAL harness ${prebuilt}`);
    return { binary: prebuilt, version: process.env.XHD_CGAL_VERSION ?? 'unknown', tbb: true };
  }
  if (!existsSync(CGAL_HEADERS)) return { error: 'libcgal-dev not installed' };
  const tbb = existsSync(TBB_HEADERS);
  const version = cgalVersion();
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(SOURCE).mtimeMs) return { binary: BINARY, version, tbb };
  mkdirSync(join(ROOT, 'build', 'bench'), { recursive: true });
  const args = ['-O3', '-march=native', '-DNDEBUG', '-std=c++17', ...(tbb ? ['-DCGAL_LINKED_WITH_TBB'] : []),
    SOURCE, '-o', BINARY, ...(tbb ? ['-ltbb'] : []), '-lgmp', '-lmpfr'];
  log(`compiling the CGAL harness (g++ ${args.join(' ')}; about half a minute)`);
  const result = spawnSync('g++', args, { encoding: 'utf8' });
  if (result.error) return { error: `g++: ${result.error.message}` };
  if (result.status !== 0) {
    // The first error line names the cause; later ones are usually its consequences.
    const lines = result.stderr.trim().split('\n');
    return { error: `compile failed: ${(lines.find((l) => /error/.test(l)) ?? lines[lines.length - 1]).trim()}` };
  }
  return { binary: BINARY, version, tbb };
}

interface HarnessResult {
  hd_ab: number; hd_ba: number; ms_ab: number; ms_ba: number; ms: number;
  threads: number; tbb: boolean; cgal: string; faces_a: number; faces_b: number;
  repaired_a: boolean; repaired_b: boolean; cpu_s: number;
}

/** Runs the harness on a case's OFF files; its JSON line becomes an outcome (ms: CGAL's own timing, best run). */
export async function runCgal(binary: string, c: SurfaceCase, samples: number, s: { repeat: number; threads: number; seed: number; timeoutS: number }): Promise<SurfaceOutcome & { faces?: [number, number]; repaired?: boolean }> {
  const args = [c.fileA, c.fileB, String(samples), '--repeat', String(s.repeat), '--threads', String(s.threads), '--seed', String(s.seed)];
  const r = await runChild(binary, args, s.timeoutS);
  if (r.timedOut) return { kind: 'timeout' };
  if (r.failedToStart || r.code !== 0) return { kind: 'failed', why: failureReason(r) };
  const h = JSON.parse(r.stdout) as HarnessResult;
  return {
    kind: 'done', ms: h.ms, wallMs: r.wallMs, hd: Math.max(h.hd_ab, h.hd_ba), runs: s.repeat, childCpuS: h.cpu_s,
    hdAb: h.hd_ab, hdBa: h.hd_ba, parts: { ab: h.ms_ab, ba: h.ms_ba, threads: h.threads },
    faces: [h.faces_a, h.faces_b], repaired: h.repaired_a || h.repaired_b,
  };
}
