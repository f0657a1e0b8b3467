// Point coordinates in memory a backend's library allocates (xhd_host_alloc). The GPU libraries make it
// page-locked: a compare then copies its inputs to the devices straight from it, at the links' full speed and
// several GPUs at once, where memory of JavaScript's own goes through the library's staging buffers at the host's
// copy rate (docs/benchmarks.md, "Several GPUs"). Worth it for inputs of hundreds of millions of points that are
// compared on GPUs more than once; page-locked memory is scarce, and its allocation costs about as much as the
// staging it saves once.
import koffi from './koffi.js';

import { NativeError } from '../core/errors.js';
import { STATUS_NAMES, XHD_OK } from './abi.js';
import type { NativeBackend } from './library.js';

/** Float32 coordinates in a library's memory: valid until free(), which must come once no call is using it. */
export interface HostFloats {
  readonly array: Float32Array;
  free(): void;
}

/** Room for `count` floats from `backend`'s library. Throws a NativeError when the memory cannot be had. */
export function allocateHostFloats(backend: NativeBackend, count: number): HostFloats {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`a float count must be a whole number >= 0, not ${count}`);
  const bytes = 4 * count;
  const out: unknown[] = [null];
  const status = backend.hostAlloc(bytes, out) as number;
  if (status !== XHD_OK) {
    throw new NativeError(`${backend.name} backend: ${STATUS_NAMES[status] ?? `status ${status}`}: ${backend.lastError()}`);
  }
  const pointer = out[0];
  let freed = false;
  return {
    array: count > 0 ? new Float32Array(koffi.view(pointer, bytes)) : new Float32Array(0),
    free() {
      if (freed) return;
      freed = true;
      backend.hostFree(pointer);
    },
  };
}
