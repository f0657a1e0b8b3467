// Input coordinates page-locked for the GPUs (xhd_host_pin): a compare then copies them to the devices straight
// from where they are, at the links' full speed and several GPUs at once, where ordinary memory goes through the
// library's staging buffers at the host's copy rate (docs/benchmarks.md, "Several GPUs"). Pinning costs about one
// staged copy of the memory, so it pays for inputs of hundreds of millions of points compared more than once.
import { NativeError } from '../core/errors.js';
import { STATUS_NAMES, XHD_OK } from './abi.js';
import type { NativeBackend } from './library.js';

/** Arrays pinned by pinInputs: unpin() once no call is using them (and before they are let go). */
export interface PinnedInputs {
  unpin(): void;
}

/** Arrays smaller than this are left as they are: their copies are short anyway, and the whole pages pinned around
 * a small array could hold part of another one, which the driver then refuses to pin a second time. */
export const PIN_FROM_BYTES = 1 << 20;

/** Page-locks each array's memory (from PIN_FROM_BYTES on) with `backend`'s library (the CPU library's does
 * nothing). Throws a NativeError naming the driver's refusal; what was pinned before it is unpinned again. */
export function pinInputs(backend: NativeBackend, arrays: Array<Float32Array | Float64Array>): PinnedInputs {
  const pinned: Array<Float32Array | Float64Array> = [];
  const unpin = () => {
    for (const array of pinned.splice(0)) backend.hostUnpin(array);
  };
  for (const array of arrays) {
    if (array.byteLength < PIN_FROM_BYTES) continue;
    const status = backend.hostPin(array, array.byteLength) as number;
    if (status !== XHD_OK) {
      unpin();
      throw new NativeError(`${backend.name} backend: ${STATUS_NAMES[status] ?? `status ${status}`}: ${backend.lastError()}`);
    }
    pinned.push(array);
  }
  return { unpin };
}
