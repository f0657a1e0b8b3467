// Command-line options of scripts/bench-cpu.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

import { DATASET_NAMES, type DatasetName } from '../datasets.js';
import { METHOD_NAMES, type MethodName } from './methods.js';

export interface Settings {
  sizes: number[];
  cases: DatasetName[];
  methods: MethodName[];
  timeoutS: number;
  threads: number;
  seed: number;
  out?: string;
}

const HELP = `Usage: scripts/bench-cpu [options]
  --sizes LIST      points per side, comma-separated (default 200000,1000000)
  --cases LIST      ${DATASET_NAMES.join(',')} (default: all)
  --methods LIST    ${METHOD_NAMES.join(',')} (default: all)
  --timeout-s N     wall-clock limit per method per case (default 120)
  --threads N       threads for grid and eb (default: every core)
  --seed N          dataset seed, >= 1 (default 1)
  --out FILE        also write the markdown report to FILE`;

/** A comma-separated list of names, each one of `known`, or an error naming the unknown one. */
export function parseNames<T extends string>(text: string, known: readonly T[], what: string): T[] {
  return text.split(',').map((name) => {
    if (!(known as readonly string[]).includes(name)) throw new Error(`unknown ${what} ${JSON.stringify(name)}; expected ${known.join(', ')}`);
    return name as T;
  });
}

/** The value of option --name, one of `known`, or an error naming the option and its choices. */
export function oneOf<T extends string>(text: string, known: readonly T[], name: string): T {
  const found = known.find((k) => k === text);
  if (found === undefined) throw new Error(`--${name} expects one of ${known.join(', ')}, got ${JSON.stringify(text)}`);
  return found;
}

/** The value of option --name as a positive integer, or an error naming the option. */
export function positiveInteger(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} expects a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

/** Parses the options; prints the usage and exits on --help. */
export function parseSettings(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: 'string', default: '200000,1000000' },
      cases: { type: 'string', default: DATASET_NAMES.join(',') },
      methods: { type: 'string', default: METHOD_NAMES.join(',') },
      'timeout-s': { type: 'string', default: '120' },
      threads: { type: 'string' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  const cases = parseNames(values.cases!, DATASET_NAMES, 'case');
  return {
    sizes: values.sizes!.split(',').map((s) => positiveInteger(s, 'sizes')),
    cases,
    methods: parseNames(values.methods!, METHOD_NAMES, 'method'),
    timeoutS: positiveInteger(values['timeout-s']!, 'timeout-s'),
    threads: values.threads === undefined ? availableParallelism() : positiveInteger(values.threads, 'threads'),
    seed: positiveInteger(values.seed!, 'seed'),
    out: values.out,
  };
}
