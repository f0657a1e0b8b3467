// Input coordinates page-locked for the GPUs (xhd_host_pin): a compare then copies them to the devices straight
// from where they are, at the links' full speed and several GPUs at once, where ordinary memory goes through the
// library's staging buffers at the host's copy rate (docs/benchmarks.md, "Several GPUs"). Pinning costs about one
// staged copy of the memory, so it pays for inputs of hundreds of millions of points compared more than once.
import type { NativeBackend } from './library.js';

/** Arrays smaller than this are left as they are: their copies are short anyway. */
export const PIN_FROM_BYTES = 1 << 20;

/** What pinInputs pinned: unpin() once no call is using the arrays (and before they are let go). */
export interface PinnedInputs {
  /** How many of the arrays were page-locked. */
  readonly pinned: number;
  /** The driver's reasons for the arrays it did not page-lock ('' when none was refused). */
  readonly refused: string;
  unpin(): void;
}

/**
 * Page-locks each array's memory (from PIN_FROM_BYTES on) with `backend`'s library (the CPU library's does
 * nothing), as far as the driver allows: pinning only makes copies faster, so an array it refuses (locked memory
 * is limited) is left as it is, and calls read it as ever. Each array's own bytes are locked, so arrays side by
 * side in one buffer are pinned each, and memory beside an array is not touched.
 */
export function pinInputs(backend: NativeBackend, arrays: Array<Float32Array | Float64Array>): PinnedInputs {
  const pinned: Array<Float32Array | Float64Array> = [];
  const reasons: string[] = [];
  for (const array of arrays) {
    if (array.byteLength < PIN_FROM_BYTES) continue;
    if ((backend.hostPin(array, array.byteLength) as number) === 0) pinned.push(array);
    else reasons.push(backend.lastError());
  }
  return {
    pinned: pinned.length,
    refused: reasons.join('; '),
    unpin() {
      for (const array of pinned.splice(0)) backend.hostUnpin(array);
    },
  };
}
