// xhd_mask_points: a voxel mask's points (its surface voxels, or every foreground voxel) computed by a native
// library, the CPU one on every core or a GPU one, read back into a Float64Array. The TypeScript reference
// (src/io/voxel-mask.ts) gives the same doubles in the same order.
import koffi from './koffi.js';
import type * as Koffi from 'koffi';

import { NativeError, UsageError } from '../core/errors.js';
import type { Bounds } from '../core/coordinates.js';
import { STATUS_NAMES, VOXEL_TYPES, XHD_ERROR_INVALID_ARGUMENT, XHD_OK, type RawMaskPointsResult } from './abi.js';
import { ProgressSlot } from './progress-slot.js';

/** The two entry points and the last-error slot of the library that computes. */
export interface MaskPointsLibrary {
  name: string;
  maskPoints: Koffi.KoffiFunction;
  maskPointsFree: Koffi.KoffiFunction;
  lastError: () => string;
}

export type MaskValues = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

export interface NativeMaskRequest {
  /** nx·ny·nz finite values, i fastest. */
  values: MaskValues;
  dims: readonly [number, number, number];
  /** Foreground: value === label; without it every nonzero value. */
  label?: number;
  /** Row-major 3×4 voxel-to-millimetre affine. */
  affine: Float64Array;
  surface: boolean;
  /** Host threads (CPU library); 0 = every core. */
  threads?: number;
  /** GPU ordinal (device libraries). */
  device?: number;
}

export interface NativeMaskPoints {
  positions: Float64Array;
  count: number;
  foregroundVoxels: number;
  /** The points' bounds as computeBounds gives them, folded by the library. */
  bounds: Bounds;
  uploadMs: number;
  computeMs: number;
  downloadMs: number;
  peakDeviceBytes: number;
  device: number;
  threads: number;
}

function voxelType(values: MaskValues): number {
  if (values instanceof Uint8Array) return VOXEL_TYPES.uint8;
  if (values instanceof Int8Array) return VOXEL_TYPES.int8;
  if (values instanceof Uint16Array) return VOXEL_TYPES.uint16;
  if (values instanceof Int16Array) return VOXEL_TYPES.int16;
  if (values instanceof Uint32Array) return VOXEL_TYPES.uint32;
  if (values instanceof Int32Array) return VOXEL_TYPES.int32;
  if (values instanceof Float32Array) return VOXEL_TYPES.float32;
  return VOXEL_TYPES.float64;
}

/** One synchronous call; the library's memory is released before returning. */
export function nativeMaskPoints(library: MaskPointsLibrary, request: NativeMaskRequest): NativeMaskPoints {
  const mask = maskArg(request);
  // The result lives in memory of its own so that the same struct, pointer and all, goes back to be freed.
  const slot = koffi.alloc('xhd_mask_points_result', 1);
  try {
    return pointsIn(library, library.maskPoints(mask, slot, null) as number, slot, library.lastError);
  } finally {
    koffi.free(slot);
  }
}

/**
 * nativeMaskPoints on libuv's thread pool (koffi's asynchronous call) instead of the main thread, where `xhd batch`
 * lanes would wait on each other: the same points, or the same error.
 */
export async function nativeMaskPointsAsync(library: MaskPointsLibrary, request: NativeMaskRequest): Promise<NativeMaskPoints> {
  const mask = maskArg(request);
  const slot = koffi.alloc('xhd_mask_points_result', 1);
  // The call's own xhd_progress, for its message alone: other lanes' calls finish meanwhile and replace the
  // library's last error.
  const call = new ProgressSlot();
  try {
    const status = await new Promise<number>((resolve, reject) => {
      library.maskPoints.async(mask, slot, call.pointer, (err: unknown, result: number) => (err ? reject(err) : resolve(result)));
    });
    return pointsIn(library, status, slot, () => call.message);
  } finally {
    call.free();
    koffi.free(slot);
    // koffi hands the library the values' own memory and keeps no reference to them: they must outlive the call.
    keepAlive(request.values);
  }
}

function keepAlive(_values: MaskValues): void {}

/** The xhd_voxel_mask argument of a request, checked as the library cannot check it. */
function maskArg(request: NativeMaskRequest) {
  // The library reads dims[0]·dims[1]·dims[2] values: an array of another length would be read past its end.
  const [nx, ny, nz] = request.dims;
  if (request.values.length !== nx * ny * nz) {
    throw new UsageError(`the mask holds ${request.values.length} values, its ${nx}×${ny}×${nz} grid needs ${nx * ny * nz}`);
  }
  return {
    values: request.values,
    value_type: voxelType(request.values),
    use_label: request.label === undefined ? 0 : 1,
    dims: [...request.dims],
    label: request.label ?? 0,
    affine: Array.from(request.affine),
    surface: request.surface ? 1 : 0,
    threads: request.threads ?? 0,
    device: request.device ?? 0,
    reserved: 0,
  };
}

/**
 * The points of a call that returned `status` into `slot`, copied out before the library's memory is released;
 * message: where that call's failure is described.
 */
function pointsIn(library: MaskPointsLibrary, status: number, slot: unknown, message: () => string): NativeMaskPoints {
  if (status !== XHD_OK) {
    const why = message();
    if (status === XHD_ERROR_INVALID_ARGUMENT) throw new UsageError(`the mask cannot be turned into points: ${why}`);
    throw new NativeError(`${library.name} backend: ${STATUS_NAMES[status] ?? `status ${status}`}: ${why}`);
  }
  try {
    const raw = koffi.decode(slot, 'xhd_mask_points_result') as RawMaskPointsResult;
    const count = Number(raw.count);
    // Copied into memory of our own: the library's is freed next.
    const positions = count > 0 ? new Float64Array(koffi.view(raw.xyz, 24 * count)).slice() : new Float64Array(0);
    return {
      positions,
      count,
      foregroundVoxels: Number(raw.foreground),
      bounds: { min: [raw.bounds[0], raw.bounds[1], raw.bounds[2]], max: [raw.bounds[3], raw.bounds[4], raw.bounds[5]] },
      uploadMs: raw.upload_ms,
      computeMs: raw.compute_ms,
      downloadMs: raw.download_ms,
      peakDeviceBytes: Number(raw.peak_device_bytes),
      device: raw.device,
      threads: raw.threads,
    };
  } finally {
    library.maskPointsFree(slot);
  }
}
