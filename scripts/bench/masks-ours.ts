// Timing ours on a mask pair: `compareFiles` in-process (what `xhd compare A B --percentile 95` runs), its
// reading split into phases, and one `bin/xhd compare --json` process as a check of the command-line path.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { compareFiles, type CompareOptions, type CompareResult } from '../../src/jobs/compare.js';
import { gunzipNifti, parseNifti } from '../../src/io/nifti.js';
import { maskToPoints } from '../../src/io/voxel-mask.js';
import type { Outcome } from './methods.js';
import type { MaskValues } from './masks-values.js';
import type { MaskBackend, MaskSettings } from './masks-settings.js';
import { median } from './median.js';
import { ROOT } from './root.js';

type Done = Extract<Outcome, { kind: 'done' }>;

/** Medians over the runs, in ms, of `compareFiles`'s timings and of what they add up to. */
export interface OursMedians {
  /** Both files: read, gunzip, parse, mask → surface points (what `timings_ms.read` covers). */
  read: number;
  /** The one search of both directions, HD and every point's nearest: build + query (+ upload + download on a GPU). */
  search: number;
  upload: number;
  build: number;
  query: number;
  download: number;
  /** HD95 and ASSD from the per-point distances the search gave (`timings_ms.stats`). */
  stats: number;
  /** Everything after reading: total − read. The goal's number. */
  compute: number;
  total: number;
}

/** A finished measurement of ours: ms is the median compute (total − read). */
export interface OursDone extends Done {
  values: MaskValues;
  medians: OursMedians;
  backend: string;
  threads: number;
}
export type OursOutcome = OursDone | Exclude<Outcome, { kind: 'done' }>;


function compareOptions(backend: MaskBackend, s: MaskSettings): CompareOptions {
  return {
    method: 'grid', directed: false, backend, threads: s.threads,
    mask: { region: 'surface' }, percentile: 95, percentileVariant: 'max-of-directed', assdVariant: 'mean-of-means',
  };
}

function valuesOf(r: CompareResult): MaskValues {
  const stats = r.stats!;
  return {
    hd: r.hd, hdAb: r.hdAb, hdBa: r.hdBa!,
    hd95: stats.percentile!.value, hd95Ab: stats.ab.percentile!, hd95Ba: stats.ba!.percentile!,
    assd: stats.assd, meanAb: stats.ab.mean, meanBa: stats.ba!.mean,
    surfaceA: r.a.points, surfaceB: r.b.points,
  };
}

/** One untimed warm-up (library, threads, GPU context), then `repeat` runs; medians of each timing. */
export async function measureCompare(fileA: string, fileB: string, backend: MaskBackend, s: MaskSettings): Promise<OursOutcome> {
  const options = compareOptions(backend, s);
  try {
    await compareFiles(fileA, fileB, options);
    const runs: CompareResult[] = [];
    const started = performance.now();
    for (let run = 0; run < s.repeat; run++) runs.push(await compareFiles(fileA, fileB, options));
    const wallMs = performance.now() - started;
    const pick = (f: (t: CompareResult['timingsMs']) => number) => median(runs.map((r) => f(r.timingsMs)));
    const medians: OursMedians = {
      read: pick((t) => t.read),
      search: pick((t) => t.upload + t.build + t.query + t.download),
      upload: pick((t) => t.upload),
      build: pick((t) => t.build),
      query: pick((t) => t.query),
      download: pick((t) => t.download),
      stats: pick((t) => t.stats),
      compute: pick((t) => t.total - t.read),
      total: pick((t) => t.total),
    };
    const last = runs[runs.length - 1];
    return {
      kind: 'done', ms: medians.compute, wallMs, hd: last.hd, runs: runs.length,
      values: valuesOf(last), medians, backend: last.backend, threads: last.threads,
    };
  } catch (err) {
    return { kind: 'failed', why: err instanceof Error ? err.message : String(err) };
  }
}

/** Medians over the runs, in ms, of each reading phase summed over both files. */
export interface ReadPhases {
  disk: number;
  gunzip: number;
  /** Header and voxel values from the decompressed bytes. */
  parse: number;
  /** Mask → surface voxel centres in mm (6-connected rule). */
  surface: number;
  /** The sum of the four phases, median over the runs. */
  total: number;
}

/** The reading `compareFiles` does, phase by phase, with the library's own functions. */
export function measureReading(files: string[], repeat: number): ReadPhases {
  const runs: ReadPhases[] = [];
  for (let run = 0; run <= repeat; run++) {
    const phases = { disk: 0, gunzip: 0, parse: 0, surface: 0, total: 0 };
    for (const file of files) {
      const t0 = performance.now();
      const bytes = readFileSync(file);
      const t1 = performance.now();
      const raw = gunzipNifti(bytes, file);
      const t2 = performance.now();
      const volume = parseNifti(raw, file);
      const t3 = performance.now();
      maskToPoints(volume, { region: 'surface' });
      const t4 = performance.now();
      phases.disk += t1 - t0;
      phases.gunzip += t2 - t1;
      phases.parse += t3 - t2;
      phases.surface += t4 - t3;
      phases.total += t4 - t0;
    }
    if (run > 0) runs.push(phases); // the first run warms the code up
  }
  const pick = (key: keyof ReadPhases) => median(runs.map((r) => r[key]));
  return { disk: pick('disk'), gunzip: pick('gunzip'), parse: pick('parse'), surface: pick('surface'), total: pick('total') };
}

/** One `bin/xhd compare A B --json --percentile 95 -q` process: its wall time, its JSON timings and values. */
export type CliOutcome =
  | { kind: 'done'; wallMs: number; timings: Record<string, number>; values: MaskValues }
  | { kind: 'failed'; why: string };

export function runCli(fileA: string, fileB: string, backend: MaskBackend, s: MaskSettings): Promise<CliOutcome> {
  const args = [join(ROOT, 'bin', 'xhd'), 'compare', fileA, fileB, '--json', '--percentile', '95', '-q', '--backend', backend, '--threads', String(s.threads)];
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), s.timeoutS * 1000);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ kind: 'failed', why: err.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      if (code !== 0) {
        resolve({ kind: 'failed', why: signal ? `killed (${signal})` : stderr.trim().split('\n').pop() || `exit ${code}` });
        return;
      }
      try {
        const j = JSON.parse(stdout);
        resolve({
          kind: 'done', wallMs, timings: j.timings_ms,
          values: {
            hd: j.hd, hdAb: j.hd_ab, hdBa: j.hd_ba, hd95: j.hd95, hd95Ab: j.hd95_ab, hd95Ba: j.hd95_ba,
            assd: j.assd, meanAb: j.mean_ab, meanBa: j.mean_ba, surfaceA: j.a.points, surfaceB: j.b.points,
          },
        });
      } catch (err) {
        resolve({ kind: 'failed', why: `unreadable JSON: ${err instanceof Error ? err.message : String(err)}` });
      }
    });
  });
}
