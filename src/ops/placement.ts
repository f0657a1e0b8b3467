// Where a points compare runs: the workers of --devices (GPU ordinals, one worker each; an ordinal twice
// runs two workers on one device) and --memory-limit, checked before the native call
// (xhd_points_compare_placed, kernels/abi/work_split.h).
import { UsageError } from '../core/errors.js';
import { describe } from '../core/arguments.js';
import { DIRECTION_AB, DIRECTION_BA } from '../native/abi.js';
import type { NativeBackend } from '../native/library.js';

export interface Placement {
  /** One worker per entry: GPU ordinals, or on the CPU backend one thread group each. */
  devices: number[];
  /** Bytes of device memory each worker may use (0: what is free). */
  memoryLimit: number;
  /** Workers that ran (after the call). */
  workers: number;
  /** The most tiles a direction's target was searched in (1: resident). */
  targetTiles: number;
  /** The directions the workers split by space, each a slab of the queries against the targets near it (CUDA, X-HD). */
  splitBySpace: Direction[];
}

export type Direction = 'ab' | 'ba';

/** The directions of an xhd_placement's spatial_directions bits. */
export function directionsOf(bits: number): Direction[] {
  return [...(bits & DIRECTION_AB ? ['ab' as const] : []), ...(bits & DIRECTION_BA ? ['ba' as const] : [])];
}

/** At most this many workers: the library refuses more. */
export const MAX_WORKERS = 1024;

/**
 * The placement asked for, checked (a UsageError names the bad value), or null when neither devices nor a
 * memory limit was given (the call stays xhd_points_compare). 'all' is every device the backend sees.
 */
export function resolvePlacement(backend: NativeBackend, devices: number[] | 'all' | undefined, memoryLimit: number | undefined): Placement | null {
  if (devices === undefined && (memoryLimit === undefined || memoryLimit === 0)) return null;
  if (memoryLimit !== undefined && !(Number.isSafeInteger(memoryLimit) && memoryLimit >= 0)) {
    throw new UsageError(`Expected a whole number of bytes >= 0 for memoryLimit but received ${describe(memoryLimit)}`);
  }
  let list: number[];
  if (devices === 'all') {
    const count = backend.deviceCount();
    if (count < 1) throw new UsageError(`--devices all: the ${backend.name} backend has no devices (use --backend cuda on a machine with a GPU)`);
    list = Array.from({ length: count }, (_, k) => k);
  } else {
    list = devices ?? [];
  }
  if (devices !== undefined && list.length === 0) throw new UsageError('Expected at least one device');
  if (list.length > MAX_WORKERS) throw new UsageError(`Expected at most ${MAX_WORKERS} devices but received ${list.length}`);
  for (const d of list) {
    if (!(Number.isInteger(d) && d >= 0 && d <= 1024)) throw new UsageError(`Expected device ordinals from 0 to 1024 but received ${describe(d)}`);
  }
  return { devices: list, memoryLimit: memoryLimit ?? 0, workers: 0, targetTiles: 0, splitBySpace: [] };
}

/** The xhd_placement argument of a placement (its outputs are filled by the call). */
export function placementArg(p: Placement): { devices: Int32Array | null; device_count: number; spatial_directions: number; memory_limit: number; target_tiles: number; workers: number } {
  return {
    devices: p.devices.length > 0 ? Int32Array.from(p.devices) : null,
    device_count: p.devices.length,
    spatial_directions: 0,
    memory_limit: p.memoryLimit,
    target_tiles: 0,
    workers: 0,
  };
}

/** The GPUs of a batch's --devices, checked ('all': every GPU of the backend chosen). */
export function batchGpus(backend: NativeBackend, devices: number[] | 'all'): number[] {
  return resolvePlacement(backend, devices, undefined)!.devices;
}
