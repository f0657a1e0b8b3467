// Exact Hausdorff distance between two point sets: argument checks, backend choice, one native call.

import { UsageError } from '../core/errors.js';
import { DIRECTION_AB, DIRECTION_BA, HAUSDORFF_RESULT, METHOD_CODES, pointsArg, type RawDirected, type RawHausdorffResult } from '../native/abi.js';
import { StructOut } from '../native/struct-out.js';
import { callNative } from '../native/call.js';
import { describe, expectInteger, expectOneOf, expectPointArray } from '../core/arguments.js';
import { type BackendName, type NativeBackend } from '../native/library.js';
import { cudaDevice, type BackendChoice, type DeviceInfo } from './backends.js';
import { resolveRun } from './run-settings.js';

export const METHODS = ['grid', 'eb', 'brute'] as const;
export type Method = (typeof METHODS)[number];
export { BACKEND_CHOICES, type BackendChoice } from './backends.js';
export { CancelledError } from '../core/errors.js';

export interface HausdorffOptions {
  /** grid (default): X-HD; eb: early break; brute: double-precision reference. */
  method?: Method;
  /** Only A -> B. */
  directed?: boolean;
  /** auto (default): a CUDA GPU when there is one, else the CPU. */
  backend?: BackendChoice;
  /** GPU ordinal for the CUDA backend (default 0). */
  device?: number;
  /** Worker threads; default: every available core. */
  threads?: number;
  /** Seed of the shuffles and warm-up samples; the distance never depends on it. */
  seed?: number;
  /** Grid cell side; default: chosen from the data. */
  cellSize?: number;
  /**
   * The caller knows that neither set holds two equal points (a mask's voxel centres): the search skips its
   * check for copies. The answers are the same either way; copies only cost time.
   */
  distinct?: boolean;
  /** Called about ten times a second while the native call runs. */
  onProgress?: (done: number, total: number) => void;
  /** Aborting stops the native work; the promise then rejects with a CancelledError. */
  signal?: AbortSignal;
}

export interface DirectedHausdorff {
  distance: number;
  /** Index in the source set of the point realizing the distance. */
  fromIndex: number;
  /** Index in the target set of that point's nearest neighbour. */
  toIndex: number;
  buildMs: number;
  queryMs: number;
  distanceEvals: number;
  prunedQueries: number;
  fallbackQueries: number;
  gridDims: [number, number, number];
  cellSize: number;
  /** Source points the float filter could not set aside, whose nearest neighbours were found again in double. */
  exactChecks: number;
  /** Of queryMs: that search in double (the exactness pass). */
  exactMs: number;
}

export interface HausdorffResult {
  /** Symmetric HD (max of both directions), or A -> B alone when directed. */
  hd: number;
  ab: DirectedHausdorff;
  ba: DirectedHausdorff | null;
  method: Method;
  backend: BackendName;
  threads: number;
  /** The GPU used, null on the CPU backend. */
  device: DeviceInfo | null;
  /** Host-to-device and device-to-host copies (0 on the CPU backend). */
  uploadMs: number;
  downloadMs: number;
  /** Most device memory held at once (0 on the CPU backend). */
  peakDeviceBytes: number;
  /** Chunks the source set was split into when it did not fit on the GPU (1 otherwise). */
  queryChunks: number;
  /** The float searches ran on coordinates minus this point ([0, 0, 0] when both inputs are float32). */
  coordinateOrigin: [number, number, number];
}

export const DEFAULT_SEED = 20260707;

function toDirected(raw: RawDirected): DirectedHausdorff {
  return {
    distance: raw.distance,
    fromIndex: Number(raw.from_index),
    toIndex: Number(raw.to_index),
    buildMs: raw.build_ms,
    queryMs: raw.query_ms,
    distanceEvals: Number(raw.distance_evals),
    prunedQueries: Number(raw.pruned_queries),
    fallbackQueries: Number(raw.fallback_queries),
    gridDims: [raw.grid_dims[0], raw.grid_dims[1], raw.grid_dims[2]],
    cellSize: raw.cell_size,
    exactChecks: Number(raw.exact_checks),
    exactMs: raw.exact_ms,
  };
}

/** A checked Hausdorff call: the backend chosen and the xhd_hausdorff_options it gets (shared with src/ops/). */
export interface HausdorffCall {
  backend: NativeBackend;
  method: Method;
  threads: number;
  device: number;
  directed: boolean;
  nativeOptions: { method: number; directions: number; threads: number; device: number; seed: number; cell_size: number; distinct: number; reserved: number };
}

/** Checks the inputs and options and picks the backend (a UsageError names what is wrong). */
export function prepareHausdorff(a: Float32Array | Float64Array, b: Float32Array | Float64Array, options: HausdorffOptions): HausdorffCall {
  // Every coordinate is checked (finite, within 1e15) by the native call itself, on every core.
  expectPointArray(a, 'a');
  expectPointArray(b, 'b');
  const method = expectOneOf(options.method ?? 'grid', METHODS, 'method');
  const seed = options.seed === undefined ? DEFAULT_SEED : expectInteger(options.seed, 'seed', 0, Number.MAX_SAFE_INTEGER);
  const cellSize = options.cellSize ?? 0;
  if (!(Number.isFinite(cellSize) && cellSize >= 0)) throw new UsageError(`Expected a finite number >= 0 for cellSize but received ${describe(cellSize)}`);
  const { backend, threads, device } = resolveRun(options, method);
  const directed = options.directed === true;
  return {
    backend,
    method,
    threads,
    device,
    directed,
    nativeOptions: { method: METHOD_CODES[method], directions: directed ? DIRECTION_AB : DIRECTION_AB | DIRECTION_BA, threads, device, seed, cell_size: cellSize,
      distinct: options.distinct === true ? 1 : 0, reserved: 0 },
  };
}

/** The result of a call prepared by prepareHausdorff, from the xhd_hausdorff_result it filled. */
export function hausdorffResult(call: HausdorffCall, raw: RawHausdorffResult): HausdorffResult {
  const ab = toDirected(raw.ab);
  const ba = call.directed ? null : toDirected(raw.ba);
  const onGpu = call.backend.name !== 'cpu';
  return {
    hd: ba ? Math.max(ab.distance, ba.distance) : ab.distance,
    ab,
    ba,
    method: call.method,
    backend: call.backend.name,
    threads: onGpu ? 0 : call.threads,
    device: onGpu ? cudaDevice(call.device) : null,
    uploadMs: raw.upload_ms,
    downloadMs: raw.download_ms,
    peakDeviceBytes: Number(raw.peak_device_bytes),
    queryChunks: raw.query_chunks,
    coordinateOrigin: [raw.origin[0], raw.origin[1], raw.origin[2]],
  };
}

/**
 * Exact directed and symmetric Hausdorff distances between point sets a and b (interleaved xyz): the
 * double-precision distances over the given coordinates (a Float64Array's doubles, or a Float32Array's
 * floats), witnesses with ties to the smallest index, on every method and backend.
 */
export async function hausdorff(a: Float32Array | Float64Array, b: Float32Array | Float64Array, options: HausdorffOptions = {}): Promise<HausdorffResult> {
  const call = prepareHausdorff(a, b, options);
  const result = new StructOut(HAUSDORFF_RESULT);
  await callNative(call.backend, call.backend.hausdorff, [pointsArg(a), pointsArg(b), call.nativeOptions, result.bytes],
    { onProgress: options.onProgress, signal: options.signal, refusal: 'the points cannot be compared' });
  return hausdorffResult(call, result.read());
}
