// Files a command writes besides its report (heatmap, export): checked before the long computation, so a
// typo in the path costs nothing; written under a temporary name and renamed when complete, so an error
// or an interrupt never leaves a partial file; every failure is one OutputError line naming the file.
import { accessSync, closeSync, constants, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

import { CancelledError, OutputError } from '../core/errors.js';

/** Throws an OutputError unless path could be created or overwritten now. Leaves an existing file as it is. */
export function checkWritable(path: string): void {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats?.isDirectory()) throw new OutputError(path, 'is a directory');
    accessSync(stats ? path : dirname(path), constants.W_OK);
  } catch (error) {
    throw asOutputError(path, error);
  }
}

export function asOutputError(path: string, error: unknown): OutputError {
  if (error instanceof OutputError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const detail = code === 'ENOENT' ? `no such directory ${dirname(path)}`
    : code === 'ENOTDIR' ? 'a parent of it is not a directory'
    : code === 'EACCES' || code === 'EPERM' ? 'permission denied'
    : code === 'EISDIR' ? 'is a directory'
    : code === 'EROFS' ? 'read-only file system'
    : code === 'ENOSPC' ? 'no space left on device'
    : (error as Error).message;
  return new OutputError(path, detail);
}

/** Bytes between pauses in which a pending SIGINT or SIGTERM can be seen (the writes themselves block). */
const BYTES_BETWEEN_CHECKS = 16 << 20;

/** A name beside path for the file while it is written: the same directory, so the rename is atomic. */
function temporaryName(path: string): string {
  return join(dirname(path), `.${basename(path)}.xhd-${process.pid}.partial`);
}

/**
 * Writes the chunks `produce` yields to a temporary file beside path and renames it to path when it is
 * complete, so path is never a partial file: a failure (missing directory, permission, full disk) throws
 * an OutputError naming path, and an abort (SIGINT, SIGTERM) throws CancelledError; either removes the
 * temporary file. Every 16 MiB the write pauses for the event loop, where a signal's handler runs. A chunk
 * may be reused by the producer once the next one is asked for.
 */
export async function writeOutputFile(path: string, produce: () => Iterable<Uint8Array>, signal?: AbortSignal): Promise<void> {
  const partial = temporaryName(path);
  let fd: number | undefined;
  try {
    fd = openSync(partial, 'w');
    let sinceCheck = 0;
    for (const chunk of produce()) {
      for (let done = 0; done < chunk.length; ) done += writeSync(fd, chunk, done, chunk.length - done); // may write less
      sinceCheck += chunk.length;
      if (sinceCheck >= BYTES_BETWEEN_CHECKS) {
        sinceCheck = 0;
        await new Promise((resolve) => setImmediate(resolve));
        if (signal?.aborted) throw new CancelledError(signal.reason);
      }
    }
    closeSync(fd);
    fd = undefined;
    if (signal?.aborted) throw new CancelledError(signal.reason);
    renameSync(partial, path);
  } catch (error) {
    try {
      if (fd !== undefined) closeSync(fd);
      rmSync(partial, { force: true });
    } catch {
      // the error below is the one worth reporting
    }
    if (error instanceof CancelledError) throw error;
    throw asOutputError(path, error);
  }
}
