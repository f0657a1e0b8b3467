// Every point's nearest neighbour in another set: the per-point distances that percentile Hausdorff
// distances, average distances and per-point export are made of. Runs on the CPU library, one set against
// another; compare measures the same values with the HD in one search on either backend (ops/points-search.ts),
// and the tests hold the two to each other.
import { availableParallelism } from 'node:os';
import { expectInteger, expectOneOf, expectPoints } from '../core/arguments.js';
import { METHOD_CODES, pointsArg, type RawNearestResult } from '../native/abi.js';
import { callNative } from '../native/call.js';
import { loadBackend } from '../native/library.js';

export const NEAREST_METHODS = ['grid', 'brute'] as const;
export type NearestMethod = (typeof NEAREST_METHODS)[number];

export interface NearestOptions {
  /** grid (default): the X-HD grid as a float filter, settled in double; brute: every pair in double (the reference). */
  method?: NearestMethod;
  threads?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Also return each query's nearest target index (8 bytes a point more). */
  indices?: boolean;
}

export interface NearestDistances {
  /** Per query point: the distance to its nearest target, in double over the given coordinates. */
  distances: Float64Array;
  /** Per query point: the index of that target, ties to the smallest (when asked for). */
  nearest: BigInt64Array | null;
  buildMs: number;
  queryMs: number;
  distanceEvals: number;
  threads: number;
}

export async function nearestDistances(queries: Float32Array | Float64Array, targets: Float32Array | Float64Array, options: NearestOptions = {}): Promise<NearestDistances> {
  expectPoints(queries, 'queries');
  expectPoints(targets, 'targets');
  const method = expectOneOf(options.method ?? 'grid', NEAREST_METHODS, 'method');
  const threads = options.threads === undefined ? availableParallelism() : expectInteger(options.threads, 'threads', 1, 4096);
  const backend = loadBackend('cpu');
  const n = queries.length / 3;
  const distances = new Float64Array(n);
  const nearest = options.indices ? new BigInt64Array(n) : null;
  const raw = {} as RawNearestResult;
  await callNative(backend, backend.nearestPoints!, [
    pointsArg(queries),
    pointsArg(targets),
    { method: METHOD_CODES[method], directions: 1, threads, device: 0, seed: 0, cell_size: 0, distinct: 0, reserved: 0 },
    distances,
    nearest,
    raw,
  ], { onProgress: options.onProgress, signal: options.signal, refusal: 'the nearest distances cannot be measured' });
  return { distances, nearest, buildMs: raw.build_ms, queryMs: raw.query_ms, distanceEvals: Number(raw.distance_evals), threads };
}
