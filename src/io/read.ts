// Entry points: read a geometry file from disk, or parse bytes already in memory (e.g. stdin).
import { readSync } from 'node:fs';

import { InputError, UsageError } from '../core/errors.js';
import { parseDelimited } from './delimited.js';
import { readDelimitedInPieces } from './delimited-pieces.js';
import { asInputError, fileSize, MAX_FILE_BYTES, readInputFile, readPrefix } from './input-file.js';
import { readE57File } from './e57.js';
import { looksLikeE57 } from './e57-header.js';
import { readLasFile } from './las.js';
import { LAS_HEADER_PROBE, looksLikeLas } from './las-header.js';
import { filtered } from './read-filter.js';
import { STDIN_NAME } from './stdin-name.js';
import { nativeReader } from './native-reader.js';
import { formatFromExtension, sniffFormat } from './detect-format.js';
import { readMeshInPieces } from './mesh-pieces.js';
import { isVolumeFormat, type FileFormat, type Geometry, type ReadOptions } from './geometry.js';
import { parseObj } from './obj.js';
import { parseOff } from './off.js';
import { parsePcd } from './pcd.js';
import { parsePly, readPlyInPieces } from './ply.js';
import { piecesForced, WHOLE_FILE_LIMIT } from './pieces.js';
import { parseStl } from './stl.js';
import { parseVoxelMask, parseVoxelMaskAsync } from './voxel-geometry.js';

export { STDIN_NAME } from './stdin-name.js';

export function readGeometry(path: string, options: ReadOptions = {}): Geometry {
  return filtered(readUnfiltered(path, options), path, options);
}

/**
 * readGeometry with a voxel mask's inflating and its points' selection on the thread pool, off the main thread
 * (where `xhd batch` lanes would wait on each other); every other format is read as readGeometry reads it. The same
 * geometry, or the same error.
 */
export async function readGeometryAsync(path: string, options: ReadOptions = {}): Promise<Geometry> {
  const read = readOrLoad(path, options);
  return filtered(read instanceof WholeFile ? await parseGeometryAsync(read.bytes, read.name, options) : read, path, options);
}

function readUnfiltered(path: string, options: ReadOptions): Geometry {
  const read = readOrLoad(path, options);
  return read instanceof WholeFile ? parseGeometry(read.bytes, read.name, options) : read;
}

/** A file (or standard input) read whole, to be parsed. */
class WholeFile {
  constructor(readonly bytes: Uint8Array, readonly name: string) {}
}

/** The geometry of a file read as it is read (in pieces, LAS, E57), or the whole file's bytes for a parser. */
function readOrLoad(path: string, options: ReadOptions): Geometry | WholeFile {
  if (path === STDIN_NAME) return new WholeFile(readStandardInput(options.format), 'standard input');
  const probe = probeFile(path);
  const read = probe && (readLidar(path, probe, options) ?? readE57(path, probe, options) ?? readInPieces(path, probe, options));
  return read ?? new WholeFile(readInputFile(path, 'a geometry file'), path);
}

/** How much of a file is read to find its format and PLY header. */
const PREFIX_BYTES = 1 << 20;

/** A file's size and first bytes, which the readers below look at to choose their path: stat and read once. */
interface FileProbe {
  size: number;
  /** The first min(size, length) bytes (length at most PREFIX_BYTES). */
  prefix(length: number): Uint8Array;
}

/** Undefined when the path is not a readable file: readInputFile then says why. */
function probeFile(path: string): FileProbe | undefined {
  const size = fileSize(path);
  if (size === undefined) return undefined;
  let head: Uint8Array | undefined;
  return {
    size,
    prefix(length: number): Uint8Array {
      if (head === undefined) {
        try {
          head = readPrefix(path, Math.min(size, PREFIX_BYTES));
        } catch (error) {
          throw asInputError(path, error, 'a geometry file');
        }
      }
      return head.subarray(0, Math.min(head.length, length));
    },
  };
}

/** A LAS or LAZ file (by its name, --format, or its 'LASF' signature), read in pieces from the file; else undefined. */
function readLidar(path: string, probe: FileProbe, options: ReadOptions): Geometry | undefined {
  const named = options.format ?? formatFromExtension(path);
  if (named !== undefined && named !== 'las' && named !== 'laz') return undefined;
  const prefix = probe.prefix(LAS_HEADER_PROBE);
  if (named === undefined && !looksLikeLas(prefix)) return undefined;
  return readLasFile(path, probe.size, prefix, options);
}

/** An E57 file (by its name, --format, or its 'ASTM-E57' signature), read page by page from the file; else undefined. */
function readE57(path: string, probe: FileProbe, options: ReadOptions): Geometry | undefined {
  const named = options.format ?? formatFromExtension(path);
  if (named !== undefined && named !== 'e57') return undefined;
  if (named === undefined && !looksLikeE57(probe.prefix(8))) return undefined;
  return readE57File(path, probe.size, options);
}

/**
 * A file read straight from disk in pieces, never whole: over WHOLE_FILE_LIMIT, every format but NIfTI
 * (PLY by ply.ts, CSV / XYZ by delimited-pieces.ts, OFF / OBJ / STL by mesh-pieces.ts); below it, binary
 * PLY point clouds when the native reader is there. Undefined for anything else, which is read whole.
 */
function readInPieces(path: string, probe: FileProbe, options: ReadOptions): Geometry | undefined {
  const size = probe.size;
  const required = size > WHOLE_FILE_LIMIT || piecesForced();
  if (!required && !nativeReader()) return undefined;
  const named = options.format ?? formatFromExtension(path);
  // Below the limit only binary PLY gains from pieces: no need to look inside anything else.
  if (named !== undefined && named !== 'ply' && !(required && !isVolumeFormat(named))) return undefined;
  const prefix = probe.prefix(PREFIX_BYTES);
  const format = named ?? sniffFormat(prefix, size);
  if (format === 'ply') return readPlyInPieces(path, size, prefix, required, options.threads);
  if (!required) return undefined;
  if (isDelimited(format)) return readDelimitedInPieces(path, size, format, options);
  if (format === 'off' || format === 'obj' || format === 'stl') return readMeshInPieces(path, size, prefix, format);
  return undefined;
}

function isDelimited(format: FileFormat | undefined): format is 'csv' | 'xyz' {
  return format === 'csv' || format === 'xyz';
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Standard input whole; its format cannot come from a name, and sniffing a stream is guesswork. */
function readStandardInput(format: FileFormat | undefined): Uint8Array {
  if (!format) throw new UsageError("reading standard input ('-') needs --format");
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(1 << 20);
  for (;;) {
    let got: number;
    try {
      got = readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        Atomics.wait(pause, 0, 0, 5); // a non-blocking pipe with nothing yet: wait, do not spin
        continue;
      }
      if (code === 'EOF') break;
      throw new InputError('standard input', {}, (error as Error).message);
    }
    if (got === 0) break;
    total += got;
    if (total > MAX_FILE_BYTES) throw new InputError('standard input', {}, `more than ${(MAX_FILE_BYTES / 1024 ** 3).toFixed(0)} GiB; standard input is read whole`);
    chunks.push(Buffer.from(chunk.subarray(0, got)));
  }
  return Buffer.concat(chunks, total);
}

export function parseGeometry(bytes: Uint8Array, name: string, options: ReadOptions = {}): Geometry {
  return parseAs(formatOf(bytes, name, options), bytes, name, options);
}

/** parseGeometry with a voxel mask parsed by parseVoxelMaskAsync (off the main thread); the rest as parseGeometry. */
async function parseGeometryAsync(bytes: Uint8Array, name: string, options: ReadOptions): Promise<Geometry> {
  const format = formatOf(bytes, name, options);
  return isVolumeFormat(format) ? parseVoxelMaskAsync(bytes, name, options.mask ?? {}, format, options.threads, options.maskDevice) : parseAs(format, bytes, name, options);
}

function formatOf(bytes: Uint8Array, name: string, options: ReadOptions): FileFormat {
  const format = options.format ?? formatFromExtension(name) ?? sniffFormat(bytes);
  if (!format) {
    throw new InputError(name, {}, 'unrecognised file format (expected OFF, PLY, STL, OBJ, CSV, XYZ, NIfTI, NRRD, MetaImage, DICOM-SEG, LAS, LAZ, PCD or E57); name it with --format');
  }
  return format;
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** Spreadsheet exports often start with a byte-order mark; it is not part of the text formats. */
function withoutBom(bytes: Uint8Array): Uint8Array {
  return UTF8_BOM.every((b, i) => bytes[i] === b) ? bytes.subarray(3) : bytes;
}

function parseAs(format: FileFormat, bytes: Uint8Array, name: string, options: ReadOptions): Geometry {
  switch (format) {
    case 'off': return parseOff(withoutBom(bytes), name);
    case 'ply': return parsePly(bytes, name, options.threads);
    case 'stl': return parseStl(bytes, name);
    case 'obj': return parseObj(withoutBom(bytes), name);
    case 'csv':
    case 'xyz': return parseDelimited(withoutBom(bytes), name, format, options);
    case 'nifti':
    case 'nrrd':
    case 'metaimage':
    case 'dicom-seg': return parseVoxelMask(bytes, name, options.mask ?? {}, format, options.threads);
    case 'pcd': return parsePcd(bytes, name);
    case 'las':
    case 'laz':
    case 'e57': throw new UsageError(`${format.toUpperCase()} files are read from a file, not from standard input or memory`);
    default: throw new UsageError(`unknown format '${String(format)}'`);
  }
}
