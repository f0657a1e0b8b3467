// Command-line options of scripts/bench-distance.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

import { DISTANCE_COORDINATES, type DistanceCoordinates } from './distance-coordinates.js';
import { DISTANCE_SCENES, type DistanceSceneName } from './distance-scenes.js';
import { oneOf, parseNames, positiveInteger } from './settings.js';

export const DISTANCE_SIDES = ['cpu', 'cuda', 'fcl'] as const;
export type DistanceSide = (typeof DISTANCE_SIDES)[number];

export interface DistanceSettings {
  scenes: DistanceSceneName[];
  /** Triangles per object, smallest first. */
  sizes: number[];
  frames: number;
  /** Times the sequence of frames is run, in order (more samples of the same poses). */
  passes: number;
  sides: DistanceSide[];
  /** What our side's inputs are: float32 (as generated), float64 (the same values) or survey (doubles, moved far). */
  coordinates: DistanceCoordinates;
  threads: number;
  /** How our frames reach the library: a native call each (query), or all of a scene's in one (queryMany). */
  calls: DistanceCalls;
  timeoutS: number;
  out?: string;
}

export const DISTANCE_CALLS = ['one', 'many'] as const;
export type DistanceCalls = (typeof DISTANCE_CALLS)[number];

const HELP = `Usage: scripts/bench-distance [options]
  --scenes LIST      ${DISTANCE_SCENES.join(',')} (default: all)
  --triangles LIST   triangles per object, k and M allowed (default 100k,1M; the paper's largest
                     scene, Rings, is 7.5M per object, 15M in all: --triangles 100k,1M,7.5M)
  --frames N         poses of B per scene (default 20)
  --passes N         times both sides run through the frames, in order (default 5: this VM stalls a
                     frame for a few ms now and then, and 20 frames of our 0.3 ms let one stall move the
                     mean by half)
  --backends LIST    cpu (ours), cuda (ours, where a GPU is usable), fcl (FCL's distance query)
                     (default cpu,cuda,fcl)
  --coordinates C    our inputs: float32 (as generated, default), float64 (the same values as doubles:
                     the exact path over double inputs) or survey (those doubles at x 5e5, y 4.2e6, z 100,
                     the poses moved along); FCL reads float32 only and is skipped for the others
  --threads N        threads of our CPU backend (default: every core); FCL runs on one
  --calls one|many   our frames a native call each (query(), default), or all of them in one call
                     (queryMany(), as \`xhd distance --frames\` runs them): each frame's time is the library's
                     own either way, but a call made from Node's worker threads costs the GPU's launch more
  --timeout-s N      wall-clock limit of one side on one scene: build and every frame (default 120)
  --out FILE         also write the markdown report to FILE`;

/** A triangle count such as 100000, 100k, 1M or 7.5M. */
export function parseCount(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text.trim());
  const value = match ? Number(match[1]) * (match[2] === '' ? 1 : /k/i.test(match[2]) ? 1e3 : 1e6) : NaN;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--triangles expects counts such as 100000, 100k or 7.5M, got ${JSON.stringify(text)}`);
  return value;
}

/** Parses the options; prints the usage and exits on --help. */
export function parseDistanceSettings(argv: string[]): DistanceSettings {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenes: { type: 'string', default: DISTANCE_SCENES.join(',') },
      triangles: { type: 'string', default: '100k,1M' },
      frames: { type: 'string', default: '20' },
      passes: { type: 'string', default: '5' },
      backends: { type: 'string', default: DISTANCE_SIDES.join(',') },
      coordinates: { type: 'string', default: 'float32' },
      threads: { type: 'string' },
      calls: { type: 'string', default: 'one' },
      'timeout-s': { type: 'string', default: '120' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    process.exit(0);
  }
  return {
    scenes: parseNames(values.scenes!, DISTANCE_SCENES, 'scene'),
    sizes: values.triangles!.split(',').map(parseCount).sort((x, y) => x - y),
    frames: positiveInteger(values.frames!, 'frames'),
    passes: positiveInteger(values.passes!, 'passes'),
    sides: parseNames(values.backends!, DISTANCE_SIDES, 'backend'),
    coordinates: oneOf(values.coordinates!, DISTANCE_COORDINATES, 'coordinates'),
    threads: values.threads === undefined ? availableParallelism() : positiveInteger(values.threads, 'threads'),
    calls: oneOf(values.calls!, DISTANCE_CALLS, 'calls'),
    timeoutS: positiveInteger(values['timeout-s']!, 'timeout-s'),
    out: values.out,
  };
}
