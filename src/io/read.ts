// Entry points: read a geometry file from disk, or parse bytes already in memory (e.g. stdin).
import { readFileSync, statSync } from 'node:fs';
import { InputError, UsageError } from '../errors.js';
import { parseDelimited } from './delimited.js';
import { formatFromExtension, sniffFormat } from './detect-format.js';
import type { FileFormat, Geometry, ReadOptions } from './geometry.js';
import { parseObj } from './obj.js';
import { parseOff } from './off.js';
import { parsePly } from './ply.js';
import { parseStl } from './stl.js';

/** Files are read whole into one buffer; beyond this the reader refuses rather than exhaust memory. */
export const MAX_FILE_BYTES = 2 * 1024 ** 3;

export function readGeometry(path: string, options: ReadOptions = {}): Geometry {
  let size: number;
  try {
    const stats = statSync(path);
    if (stats.isDirectory()) throw new InputError(path, {}, 'is a directory, expected a geometry file');
    size = stats.size;
  } catch (error) {
    throw asInputError(path, error);
  }
  if (size > MAX_FILE_BYTES) {
    throw new InputError(path, {}, `file is ${(size / 1024 ** 3).toFixed(1)} GiB; files over 2 GiB are not supported`);
  }
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw asInputError(path, error);
  }
  return parseGeometry(bytes, path, options);
}

export function parseGeometry(bytes: Uint8Array, name: string, options: ReadOptions = {}): Geometry {
  const format = options.format ?? formatFromExtension(name) ?? sniffFormat(bytes);
  if (!format) {
    throw new InputError(name, {}, 'unrecognised file format (expected OFF, PLY, STL, OBJ, CSV or XYZ); name it with --format');
  }
  return parseAs(format, bytes, name, options);
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** Spreadsheet exports often start with a byte-order mark; it is not part of the text formats. */
function withoutBom(bytes: Uint8Array): Uint8Array {
  return UTF8_BOM.every((b, i) => bytes[i] === b) ? bytes.subarray(3) : bytes;
}

function parseAs(format: FileFormat, bytes: Uint8Array, name: string, options: ReadOptions): Geometry {
  switch (format) {
    case 'off': return parseOff(withoutBom(bytes), name);
    case 'ply': return parsePly(bytes, name);
    case 'stl': return parseStl(bytes, name);
    case 'obj': return parseObj(withoutBom(bytes), name);
    case 'csv':
    case 'xyz': return parseDelimited(withoutBom(bytes), name, format, options);
    default: throw new UsageError(`unknown format '${String(format)}'`);
  }
}

function asInputError(path: string, error: unknown): InputError {
  if (error instanceof InputError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const detail = code === 'ENOENT' ? 'no such file'
    : code === 'EACCES' ? 'permission denied'
    : code === 'EISDIR' ? 'is a directory, expected a geometry file'
    : (error as Error).message;
  return new InputError(path, {}, detail);
}
