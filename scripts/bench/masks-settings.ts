// Command-line options of scripts/bench-masks.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

import { MASK_CASES, type MaskCaseName } from './masks-shapes.js';
import { parseNames, positiveInteger } from './settings.js';

export const MASK_BACKENDS = ['cpu', 'cuda'] as const;
export type MaskBackend = (typeof MASK_BACKENDS)[number];
export const PEER_VARIANTS = ['edt', 'edt-crop', 'kdtree'] as const;
export type PeerVariant = (typeof PEER_VARIANTS)[number];

export interface MaskSettings {
  cases: MaskCaseName[];
  /** Grid and shapes scaled by this (1: 240 × 240 × 155). */
  scale: number;
  repeat: number;
  threads: number;
  seed: number;
  backends: MaskBackend[];
  peers: PeerVariant[];
  python: string;
  timeoutS: number;
  cli: boolean;
  /** Keep the generated .nii.gz files in this folder instead of a temporary one. */
  keep?: string;
  out?: string;
}

const HELP = `Usage: scripts/bench-masks [options]
  --cases LIST      ${MASK_CASES.join(',')} (default: both; the same voxels, 1 mm or 0.9375×0.9375×1.5 mm)
  --scale S         grid and shapes scaled by S, for quick runs (default 1: 240×240×155, ~1.5M voxels a mask)
  --repeat R        runs of every measurement; the median is reported (default 5)
  --threads N       CPU threads for ours (default: every core)
  --seed N          mask seed, >= 1 (default 1)
  --backends LIST   ${MASK_BACKENDS.join(',')} (default both; cuda is skipped, with its reason, where no GPU is usable)
  --peers LIST      ${PEER_VARIANTS.join(',')}, or none (default all)
  --python PATH     Python with NumPy and SciPy for the peers (default $XHD_PYTHON, else python3 on PATH)
  --timeout-s N     wall-clock limit of one peer process, all its runs (default 600)
  --no-cli          skip the one \`bin/xhd compare --json\` process per backend that checks the CLI path
  --keep DIR        write the masks to DIR and keep them (default: a temporary folder, deleted after)
  --out FILE        also write the markdown report to FILE`;

/** Parses the options; prints the usage and exits on --help. */
export function parseMaskSettings(argv: string[]): MaskSettings {
  const { values } = parseArgs({
    args: argv,
    options: {
      cases: { type: 'string', default: MASK_CASES.join(',') },
      scale: { type: 'string', default: '1' },
      repeat: { type: 'string', default: '5' },
      threads: { type: 'string' },
      seed: { type: 'string', default: '1' },
      backends: { type: 'string', default: MASK_BACKENDS.join(',') },
      peers: { type: 'string', default: PEER_VARIANTS.join(',') },
      python: { type: 'string', default: process.env.XHD_PYTHON || 'python3' },
      'timeout-s': { type: 'string', default: '600' },
      'no-cli': { type: 'boolean', default: false },
      keep: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const scale = Number(values.scale);
  if (!(Number.isFinite(scale) && scale > 0 && scale <= 2)) throw new Error(`--scale expects a number in (0, 2], got ${JSON.stringify(values.scale)}`);
  return {
    cases: parseNames(values.cases!, MASK_CASES, 'case'),
    scale,
    repeat: positiveInteger(values.repeat!, 'repeat'),
    threads: values.threads === undefined ? availableParallelism() : positiveInteger(values.threads, 'threads'),
    seed: positiveInteger(values.seed!, 'seed'),
    backends: parseNames(values.backends!, MASK_BACKENDS, 'backend'),
    peers: values.peers === 'none' ? [] : parseNames(values.peers!, PEER_VARIANTS, 'peer'),
    python: values.python!,
    timeoutS: positiveInteger(values['timeout-s']!, 'timeout-s'),
    cli: !values['no-cli'],
    keep: values.keep,
    out: values.out,
  };
}
