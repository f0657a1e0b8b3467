// A voxel mask's points on a chosen backend: the CPU library on every core, or a GPU library's kernel
// (xhd_mask_points). Every backend gives the points of the TypeScript reference (src/io/voxel-mask.ts) bit for bit.
import { loadBackend, type BackendName } from '../native/library.js';
import { nativeMaskPoints, nativeMaskPointsAsync, type NativeMaskPoints, type NativeMaskRequest } from '../native/mask-points.js';

export type { NativeMaskPoints, NativeMaskRequest } from '../native/mask-points.js';

export function maskPointsOn(backend: BackendName, request: NativeMaskRequest): NativeMaskPoints {
  return nativeMaskPoints(loadBackend(backend), request);
}

/** maskPointsOn on the thread pool, off the main thread: the same points, or the same error. */
export function maskPointsOnAsync(backend: BackendName, request: NativeMaskRequest): Promise<NativeMaskPoints> {
  return nativeMaskPointsAsync(loadBackend(backend), request);
}
