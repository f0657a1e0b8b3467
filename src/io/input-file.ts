// Reading one input file whole, with the checks every reader wants first (not a directory, not over what
// one buffer holds) and system errors turned into one line naming the file; by every core at once where
// the native reader is there. Binary PLY point clouds are read in pieces instead (ply-pieces.ts) with the
// native reader; so is every geometry file over 1 GiB but NIfTI (read.ts).
import { constants } from 'node:buffer';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { getSystemErrorName } from 'node:util';

import { InputError, NativeError } from '../core/errors.js';
import type { RawFileRead } from '../native/abi.js';
import { nativeReader, type NativeReader } from './native-reader.js';

/** The largest file read whole: the most one Buffer can hold (4 GiB on 64-bit Node 20). */
export const MAX_FILE_BYTES = constants.MAX_LENGTH;

/** The size of a file, or undefined when it cannot be stat'ed (readInputFile then says why). */
export function fileSize(path: string): number | undefined {
  try {
    const stats = statSync(path);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `use` on the file open for reading; an error opening it is one line naming the file. */
export function withOpenFile<T>(path: string, use: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw asInputError(path, error, 'a geometry file');
  }
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

/** The first `length` bytes of a file (fewer when it is shorter). */
export function readPrefix(path: string, length: number): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const bytes = new Uint8Array(length);
    return bytes.subarray(0, readSync(fd, bytes, 0, length, 0));
  } finally {
    closeSync(fd);
  }
}

/**
 * A whole input file's bytes, with the checks every reader wants first: not a directory, not over 4 GiB,
 * and system errors as one InputError naming the file. `expected` completes "is a directory, expected …".
 */
export function readInputFile(path: string, expected: string): Uint8Array {
  let size: number;
  try {
    const stats = statSync(path);
    if (stats.isDirectory()) throw new InputError(path, {}, `is a directory, expected ${expected}`);
    size = stats.size;
  } catch (error) {
    throw asInputError(path, error, expected);
  }
  if (size > MAX_FILE_BYTES) {
    throw new InputError(path, {}, `file is ${(size / 1024 ** 3).toFixed(1)} GiB; files over ${(MAX_FILE_BYTES / 1024 ** 3).toFixed(0)} GiB are read only as PLY, OFF, OBJ, STL, CSV or XYZ (in pieces), not as ${expected}`);
  }
  try {
    return readWhole(path, size);
  } catch (error) {
    throw asInputError(path, error, expected);
  }
}

/** Files up to this size are read with one read call (xhd_read_file's pieces are 4 MiB). */
const NATIVE_READ_FROM = 4 << 20;

/** How far into the file the header is looked for, to align the body that follows it. */
const HEADER_PROBE_BYTES = 64 * 1024;

/**
 * Reads a file whole into a buffer placed so that the body after a PLY header starts 8-byte aligned:
 * binary float32 and float64 vertices can then be used in place instead of copied.
 */
function readWhole(path: string, size: number): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const probe = new Uint8Array(Math.min(size, HEADER_PROBE_BYTES));
    const probed = readSync(fd, probe, 0, probe.length, 0);
    const bodyStart = plyBodyStart(probe.subarray(0, probed));
    const storage = Buffer.allocUnsafeSlow(size + 7);
    const shift = (8 - ((storage.byteOffset + bodyStart) % 8)) % 8;
    const bytes = storage.subarray(shift, shift + size);
    // A file the probe holds whole is not read again; one of a single native piece or less is read here: the
    // native reader's parallel pieces cannot help it, and threads reading thousands of small files at once
    // (a join collection, read-geometries.ts) would queue on its shared pool.
    if (probed === size) {
      bytes.set(probe.subarray(0, probed));
      return bytes;
    }
    const native = size > NATIVE_READ_FROM ? nativeReader() : undefined;
    if (native) return bytes.subarray(0, readNatively(native, path, bytes));
    let filled = 0;
    while (filled < size) {
      const got = readSync(fd, bytes, filled, size - filled, filled);
      if (got === 0) break; // the file shrank while we read it: parse what is there
      filled += got;
    }
    return bytes.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Fills `into` from the file's start on every core; returns how many bytes there were (fewer if it shrank). */
function readNatively(reader: NativeReader, path: string, into: Uint8Array): number {
  const result = {} as RawFileRead;
  if (reader.readFile(path, 0, into.length, 0, into, result) as number !== 0) throw new NativeError(`reading ${path}: ${reader.lastError()}`);
  if (result.error_number !== 0) throw systemError(result.error_number);
  return Number(result.bytes);
}

/** An errno from the native reader as the error Node would have thrown (with its code, for asInputError). */
export function systemError(errno: number): Error {
  const code = getSystemErrorName(-errno);
  return Object.assign(new Error(`${code}: cannot read the file`), { code });
}

const END_HEADER = Buffer.from('end_header');

/** Offset just past a PLY header's end_header line, or 0 when the bytes do not start one. */
function plyBodyStart(prefix: Uint8Array): number {
  if (prefix[0] !== 0x70 || prefix[1] !== 0x6c || prefix[2] !== 0x79) return 0; // "ply"
  const at = Buffer.from(prefix.buffer, prefix.byteOffset, prefix.byteLength).indexOf(END_HEADER);
  if (at < 0) return 0;
  const newline = prefix.indexOf(0x0a, at);
  return newline < 0 ? 0 : newline + 1;
}

/** A system error (ENOENT, EACCES, ...) met opening or reading `path` as one line naming the file. */
export function asInputError(path: string, error: unknown, expected: string): InputError {
  if (error instanceof InputError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const detail = code === 'ENOENT' ? 'no such file'
    : code === 'EACCES' ? 'permission denied'
    : code === 'EISDIR' ? `is a directory, expected ${expected}`
    : (error as Error).message;
  return new InputError(path, {}, detail);
}

/** Reads `length` bytes at file `position` into into[at...]; returns how many there were (fewer at the end,
 *  or when the file shrank while it was read). */
export function readFully(fd: number, into: Uint8Array, at: number, length: number, position: number): number {
  let filled = 0;
  while (filled < length) {
    const got = readSync(fd, into, at + filled, length - filled, position + filled);
    if (got === 0) break;
    filled += got;
  }
  return filled;
}
