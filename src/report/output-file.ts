// Files a command writes besides its report (the heatmap): checked before the long computation, so a
// typo in the path costs nothing, and every failure becomes one OutputError line naming the file.
import { accessSync, closeSync, constants, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

import { OutputError } from '../errors.js';

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

/**
 * Creates path and lets `produce` write it piece by piece. Failures (missing directory, permission, full
 * disk) throw an OutputError naming the file, and a partly written file is removed.
 */
export function writeOutputFile(path: string, produce: (write: (bytes: Uint8Array, length?: number) => void) => void): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'w');
    const target = fd;
    produce((bytes, length = bytes.length) => {
      for (let done = 0; done < length; ) done += writeSync(target, bytes, done, length - done); // writeSync may write less
    });
    closeSync(fd);
    fd = undefined;
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
        rmSync(path, { force: true });
      } catch {
        // the write error below is the one worth reporting
      }
    }
    throw asOutputError(path, error);
  }
}
