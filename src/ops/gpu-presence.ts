// Whether this machine can have a CUDA device at all, from the device files the NVIDIA driver makes, without loading
// the CUDA library: loading it and asking it for devices took about 90 ms of a one-off `--backend auto` compare on
// the 2-core VM without a GPU (serially, for two masks, whose choice waits for their reading). On Linux the driver's
// control device is /dev/nvidiactl (mounted into containers that get GPUs); under WSL 2 the GPU is /dev/dxg.
// Elsewhere the library is asked, as before.
import { existsSync } from 'node:fs';

let possible: boolean | undefined;

export function cudaDevicePossible(): boolean {
  possible ??= process.platform !== 'linux' || existsSync('/dev/nvidiactl') || existsSync('/dev/dxg');
  return possible;
}
