// Command-line options of scripts/bench-surface.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { SURFACE_METHODS, type SurfaceMethod } from '../../src/ops/surface-distance.js';
import { ROOT } from './root.js';
import { parseNames, positiveInteger } from './settings.js';
import { SURFACE_CASES, type SurfaceCaseName } from './surface-cases.js';

export interface SurfaceSettings {
  cases: SurfaceCaseName[];
  /** Samples per direction for every case; undefined: each case's default (see HELP). */
  samples?: number;
  /** Our surface method; undefined: pointSurfaceDistances' default. */
  method?: SurfaceMethod;
  repeat: number;
  threads: number;
  seed: number;
  timeoutS: number;
  dataDir: string;
  out?: string;
}

// brute is the quadratic reference: not something to benchmark at these sizes.
const FAST_METHODS: readonly SurfaceMethod[] = SURFACE_METHODS.filter((m) => m !== 'brute');

const HELP = `Usage: scripts/bench-surface [options]
  --cases LIST      ${SURFACE_CASES.join(',')} (default: all)
  --samples N       samples per direction, every case (default: xhd compare's count for the larger
                    mesh, max(vertices, 100000); CGAL gets the same number)
  --method M        our surface method, ${FAST_METHODS.join(' or ')} (default grid)
  --repeat R        best of R runs for every method (default 3)
  --threads N       CPU threads for ours and for CGAL's TBB (default: every core)
  --seed N          sampling seed (A uses N, B N + 1) and armadillo perturbation seed (default 1)
  --timeout-s N     wall-clock limit of one CGAL process, all its repeats (default 900)
  --data DIR        folder of the mesh files (default ../shared/data/meshes)
  --out FILE        also write the markdown report to FILE`;

/** Parses the options; prints the usage and exits on --help. */
export function parseSurfaceSettings(argv: string[]): SurfaceSettings {
  const { values } = parseArgs({
    args: argv,
    options: {
      cases: { type: 'string', default: SURFACE_CASES.join(',') },
      samples: { type: 'string' },
      method: { type: 'string' },
      repeat: { type: 'string', default: '3' },
      threads: { type: 'string' },
      seed: { type: 'string', default: '1' },
      'timeout-s': { type: 'string', default: '900' },
      data: { type: 'string', default: join(ROOT, '..', 'shared', 'data', 'meshes') },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const cases = parseNames(values.cases!, SURFACE_CASES, 'case');
  const method = values.method as SurfaceMethod | undefined;
  if (method !== undefined && !FAST_METHODS.includes(method)) throw new Error(`--method expects ${FAST_METHODS.join(' or ')}, got ${JSON.stringify(method)}`);
  return {
    cases,
    method,
    samples: values.samples === undefined ? undefined : positiveInteger(values.samples, 'samples'),
    repeat: positiveInteger(values.repeat!, 'repeat'),
    threads: values.threads === undefined ? availableParallelism() : positiveInteger(values.threads, 'threads'),
    seed: positiveInteger(values.seed!, 'seed'),
    timeoutS: positiveInteger(values['timeout-s']!, 'timeout-s'),
    dataDir: values.data!,
    out: values.out,
  };
}
