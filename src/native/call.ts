// One asynchronous native call with what every entry point needs around it: a progress slot polled for
// the caller's progress callback, cancellation through an AbortSignal, and the status code turned into
// the error a user should see.
import type koffi from 'koffi';

import { CancelledError, NativeError, UsageError, XhdError, EXIT_NATIVE } from '../core/errors.js';
import {
  STATUS_NAMES,
  XHD_ERROR_CANCELLED,
  XHD_ERROR_INVALID_ARGUMENT,
  XHD_ERROR_OUT_OF_MEMORY,
  XHD_OK,
} from './abi.js';
import type { NativeBackend } from './library.js';
import { ProgressSlot } from './progress-slot.js';

export interface CallOptions {
  /** Called about ten times a second while the call runs, and once at the end. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /** Says what the library refused when it returns invalid-argument (e.g. "the points cannot be compared"). */
  refusal: string;
}

/**
 * Turns a status other than XHD_OK into the error a user should see. why: the call's own message (its progress
 * slot's); without it, the library's last error, which is the call's own only when no other call ran meanwhile
 * (a synchronous call, or one without a slot).
 */
export function throwUnlessOk(backend: NativeBackend, status: number, refusal: string, signal?: AbortSignal, why?: string): void {
  if (status === XHD_OK) return;
  if (status === XHD_ERROR_CANCELLED) throw new CancelledError(signal?.reason);
  const message = why ?? backend.lastError();
  if (status === XHD_ERROR_OUT_OF_MEMORY) throw new NativeError(`${backend.name} backend: ${message}`);
  // The library refused the input itself (e.g. coordinates beyond what it can square): a usage error.
  if (status === XHD_ERROR_INVALID_ARGUMENT) throw new UsageError(`${refusal}: ${message}`);
  throw new NativeError(`${backend.name} backend: ${STATUS_NAMES[status] ?? `status ${status}`}: ${message}`);
}

/** Calls fn.async(...args, progress, callback) on a worker thread and resolves when it succeeded. */
export async function callNative(backend: NativeBackend, fn: koffi.KoffiFunction, args: unknown[], options: CallOptions): Promise<void> {
  if (options.signal?.aborted) throw new CancelledError(options.signal.reason);
  const progress = new ProgressSlot();
  const onAbort = () => progress.cancel();
  options.signal?.addEventListener('abort', onAbort);
  const report = () => options.onProgress?.(progress.done, progress.total);
  const ticker = options.onProgress ? setInterval(report, 100) : undefined;
  try {
    const status = await new Promise<number>((resolve, reject) => {
      fn.async(...args, progress.pointer, (err: unknown, result: number) => (err ? reject(err) : resolve(result)));
    });
    // The slot's message, not the library's last error: lanes of `xhd batch` run calls at once, and another
    // call's failure or success may have replaced the shared message before this callback ran.
    throwUnlessOk(backend, status, options.refusal, options.signal, progress.message);
    report();
  } catch (err) {
    if (err instanceof XhdError) throw err;
    throw new XhdError(`native call failed: ${err instanceof Error ? err.message : String(err)}`, EXIT_NATIVE);
  } finally {
    if (ticker) clearInterval(ticker);
    options.signal?.removeEventListener('abort', onAbort);
    progress.free();
  }
}
