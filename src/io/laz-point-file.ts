// A LAZ file described for xhd_points_compare_files, which decodes its chunks a run at a time as it streams
// them (kernels/cpu/point_file_reader.h): the header, the (E)VLRs for the CRS, the chunk table, and nothing of
// the points. The library decodes and scales X, Y, Z and checks each chunk against the header's bounds as the
// whole-file reader does (laz-native.ts, laz-body.ts), so a streamed compare measures the same coordinates and
// refuses a damaged file with the same line. Point formats 0-3 and 6-8, as the native decoder reads them; COPC
// files (their points in the order of the octree's nodes) and formats 9 and 10 are read whole.
import { InputError, NativeError, UsageError } from '../core/errors.js';
import { XHD_LAZ_OK, XHD_LAZ_UNSUPPORTED, XHD_READ_BAD_VALUE, XHD_READ_LAZ_CHUNK, XHD_READ_LAZ_OUTSIDE, XHD_READ_OK, XHD_READ_SYSTEM_ERROR, type RawLazResult, type RawReadResult } from '../native/abi.js';
import { badCoordinate } from './build.js';
import { findCopcInfo } from './copc-info.js';
import type { Crs } from './crs.js';
import { asInputError, systemError, withOpenFile } from './input-file.js';
import { skippedCrsNote, vlrsCrs, waveformNote } from './las.js';
import type { LasHeader } from './las-header.js';
import { lasHeaderOf } from './las-point-file.js';
import { readLasVlrs } from './las-vlrs.js';
import { chunkOutsideBounds, headerBoundsChecked } from './laz-body.js';
import { readLazLayout, type LazLayout } from './laz-chunks.js';
import { lazFailure, nativeLazJob } from './laz-native.js';
import { nativeReader } from './native-reader.js';
import type { RecordLayout } from './ply-point-file.js';
import { PlyType } from './ply-header.js';

/** The point formats the native decoder reads (laz_reader.cpp). */
const NATIVE_FORMATS = new Set([0, 1, 2, 3, 6, 7, 8]);

/** Where the whole-file reader names a coordinate scaled past ±1e15 in a LAZ file: the header's scale (las.ts). */
const SCALE_BYTE = 131;

export interface LazPointFile {
  path: string;
  format: 'laz';
  count: number;
  dims: 3;
  floats: false;
  faces: false;
  /** Read by the library for its count, output (float64) and threads alone: the chunks are in `job`. */
  layout: RecordLayout;
  job: ReturnType<typeof nativeLazJob>;
  checkBounds: boolean;
  crs?: Crs;
  /** What the whole-file reader would note, but the header-bounds note, which needs the points' bounds. */
  notes: string[];
  header: LasHeader;
  chunks: LazLayout;
}

/**
 * The file as a streamable point set, or null where it is not a LAZ file the native decoder streams (or its
 * header does not parse: the whole-file reader says what is wrong). A chunk table that does not parse is an
 * InputError, as when the file is read whole.
 */
export function lazPointFile(path: string, threads = 0): LazPointFile | null {
  const probed = lasHeaderOf(path);
  if (!probed) return null;
  const { header, size } = probed;
  if (!header.compressed || !NATIVE_FORMATS.has(header.pointFormat.id)) return null;
  const found = withOpenFile(path, (fd) => {
    const vlrs = readLasVlrs(fd, header, size, path);
    if (findCopcInfo(vlrs)) return null;
    return { chunks: readLazLayout(fd, path, size, header, vlrs), crs: vlrsCrs(fd, vlrs), skipped: skippedCrsNote(vlrs) };
  });
  if (!found) return null;
  const { chunks, crs, skipped } = found;
  const job = nativeLazJob(header, chunks, null, threads);
  if (!decodedNatively(path, job)) return null;
  const notes = [waveformNote(header), skipped].filter((n): n is string => n !== undefined);
  return {
    path,
    format: 'laz',
    count: header.pointCount,
    dims: 3,
    floats: false,
    faces: false,
    layout: {
      body_offset: 0, count: header.pointCount, piece_bytes: 0, stride: 0, swap_bytes: 0, offset: [0, 0, 0],
      type: [PlyType.Int32, PlyType.Int32, PlyType.Int32], output: PlyType.Float64, threads, scale: [0, 0, 0], add: [0, 0, 0],
    },
    job,
    checkBounds: headerBoundsChecked(header),
    ...(crs ? { crs } : {}),
    notes,
    header,
    chunks,
  };
}

/**
 * Whether the native decoder reads these items (its own rules, laz_reader.cpp): asked with no chunks, it
 * answers before decoding anything. Where it does not (version-1 items, an unusual mix), the whole-file reader
 * decodes them in TypeScript or with laz-perf.
 */
function decodedNatively(path: string, job: ReturnType<typeof nativeLazJob>): boolean {
  const reader = nativeReader();
  if (!reader) return false;
  const result = {} as RawLazResult;
  const status = reader.readLaz(path, { ...job, chunks: null, chunk_count: 0, point_count: 0 }, new Float64Array(3), null, null, null, result) as number;
  return status === 0 && result.kind !== XHD_LAZ_UNSUPPORTED;
}

/** The most points one chunk holds: a streamed read decodes a chunk whole. */
export function largestChunk(file: LazPointFile): number {
  return file.chunks.chunks.reduce((most, c) => Math.max(most, c.points), 0);
}

/** The file's fields of xhd_point_file. */
export function lazPointFileFields(file: LazPointFile) {
  return { laz: 1, laz_check_bounds: file.checkBounds ? 1 : 0, laz_job: file.job, laz_bounds: [...file.header.min, ...file.header.max] };
}

/** The InputError of a problem the streamed read found in the file, the whole-file reader's line for it. */
export function lazReadProblem(file: LazPointFile, read: RawReadResult): Error {
  const record = Number(read.record), byte = Number(read.byte);
  switch (read.kind) {
    case XHD_READ_LAZ_CHUNK:
      return lazFailure(file.path, { kind: read.error_number, chunk: read.record, byte: read.byte, error_number: 0 }, file.chunks);
    case XHD_READ_LAZ_OUTSIDE:
      return chunkOutsideBounds(file.path, file.header, file.chunks.chunks, record, read.error_number, read.min[0], read.max[0]);
    case XHD_READ_BAD_VALUE:
      return badCoordinate(file.path, { byte: SCALE_BYTE }, read.value, record);
    case XHD_READ_SYSTEM_ERROR:
      return asInputError(file.path, systemError(read.error_number), 'a LAZ file');
    case XHD_READ_OK:
      return new NativeError(`reading ${file.path}: a LAZ read reported as failed without a problem`);
    default:
      return new NativeError(`reading ${file.path}: unknown result kind ${read.kind} (at byte ${byte})`);
  }
}

/** Point `index` of the file, decoded from its chunk by the CPU library. */
export function lazRecordPoint(file: LazPointFile, index: number): number[] {
  const reader = nativeReader();
  if (!reader) throw new UsageError('the cpu library does not read files; rebuild it with `npm run build`');
  const chunks = file.chunks.chunks;
  let c = 0;
  while (c + 1 < chunks.length && chunks[c + 1].firstPoint <= index) c++;
  const chunk = chunks[c];
  const job = {
    ...file.job,
    chunks: BigUint64Array.from([chunk.offset, chunk.bytes, chunk.points, 0].map(BigInt)),
    chunk_count: 1,
    point_count: chunk.points,
    threads: 1,
  };
  const positions = new Float64Array(3 * chunk.points);
  const result = {} as RawLazResult;
  if ((reader.readLaz(file.path, job, positions, null, null, null, result) as number) !== 0) {
    throw new NativeError(`reading ${file.path}: ${reader.lastError()}`);
  }
  if (result.kind !== XHD_LAZ_OK) throw lazFailure(file.path, result, file.chunks);
  const at = 3 * (index - chunk.firstPoint);
  if (at < 0 || at + 3 > positions.length) throw new InputError(file.path, {}, `point ${index} is not in the file's chunks`);
  return [positions[at], positions[at + 1], positions[at + 2]];
}
