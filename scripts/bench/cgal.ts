// CGAL's approximate_Hausdorff_distance as a peer: scripts/cgal_surface_hausdorff.cpp, compiled on first
// use (and again when the source is newer) into build/bench/, run as a child process per case.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

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
export function runCgal(binary: string, c: SurfaceCase, samples: number, s: { repeat: number; threads: number; seed: number; timeoutS: number }): Promise<SurfaceOutcome & { faces?: [number, number]; repaired?: boolean }> {
  const args = [c.fileA, c.fileB, String(samples), '--repeat', String(s.repeat), '--threads', String(s.threads), '--seed', String(s.seed)];
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '', killed = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, s.timeoutS * 1000);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ kind: 'failed', why: err.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - start;
      if (killed) return resolve({ kind: 'timeout' });
      if (code !== 0) return resolve({ kind: 'failed', why: stderr.trim().split('\n').pop() || `exit ${code}` });
      const r = JSON.parse(stdout) as HarnessResult;
      resolve({
        kind: 'done', ms: r.ms, wallMs, hd: Math.max(r.hd_ab, r.hd_ba), runs: s.repeat, childCpuS: r.cpu_s,
        hdAb: r.hd_ab, hdBa: r.hd_ba, parts: { ab: r.ms_ab, ba: r.ms_ba, threads: r.threads },
        faces: [r.faces_a, r.faces_b], repaired: r.repaired_a || r.repaired_b,
      });
    });
  });
}
