// A LAZ body of point formats 0 to 3 and 6 to 8 through the native decoder (kernels/cpu/laz_reader.cpp): one
// call reads every chunk from the file and decodes it on every core, scaling X, Y, Z and applying the filters
// as las-records.ts does, into the positions (and, when asked, each kept point's class and returns).
// laz-chunks.ts has read and checked the chunk table first; the TypeScript decoder (laz-v2-chunk.ts) stays
// the reference of formats 0-3, and takes those files where the library is missing (laz-perf the others).
import { InputError, NativeError } from '../core/errors.js';
import {
  XHD_LAZ_DAMAGED, XHD_LAZ_OK, XHD_LAZ_SHORT_CHUNK, XHD_LAZ_SYSTEM_ERROR, XHD_LAZ_TRUNCATED, XHD_LAZ_UNSUPPORTED, type RawLazResult,
} from '../native/abi.js';
import { allocatePositions } from './allocate-positions.js';
import { asInputError, systemError } from './input-file.js';
import type { LasHeader } from './las-header.js';
import type { RecordFilter } from './las-records.js';
import { tallyFromNative } from './las-tally.js';
import type { LazLayout } from './laz-chunks.js';
import { nativePieceBytes, type NativeReader } from './native-reader.js';
import { readerThreads } from './reader-threads.js';

export interface NativeLazBody {
  /** The kept points, packed at the start (3 * kept of them); the array holds room for every point. */
  positions: Float64Array;
  kept: number;
  tally: Float64Array;
  /** Per chunk: its raw X, Y, Z min then max (before filters). */
  chunkRaw: Float64Array;
  /** With keepAttributes: each kept point's class and returns (two bytes a point), packed like the positions. */
  attributes?: Uint8Array;
}

/** The job as the library takes it (xhd_laz_job); threadCount: the run's --threads (every core when undefined: the library's threads cost microseconds to start). */
export function nativeLazJob(header: LasHeader, layout: LazLayout, filter: RecordFilter | null, threadCount?: number) {
  const chunks = layout.chunks;
  return {
    chunks: BigUint64Array.from(chunks.flatMap((c) => [c.offset, c.bytes, c.points, c.firstPoint]).map(BigInt)),
    chunk_count: chunks.length,
    point_count: header.pointCount,
    items: Uint16Array.from(layout.items.flatMap((i) => [i.type, i.size, i.version])),
    item_count: layout.items.length,
    record_length: header.recordLength,
    scale: [...header.scale],
    offset: [...header.offset],
    classes: filter?.classes ?? null,
    box: filter?.box ?? null,
    returns: filter?.returns ?? 0,
    threads: readerThreads(threadCount, 'XHD_LAZ_THREADS'),
    piece_bytes: nativePieceBytes(),
  };
}

/**
 * Decodes the body natively; undefined where the library does not decode these items (the caller decodes
 * them itself). `records`, when given (tests), receives every decoded record.
 */
export function readLazNatively(reader: NativeReader, file: string, header: LasHeader, layout: LazLayout, filter: RecordFilter | null,
  records?: Uint8Array, threadCount?: number, keepAttributes = false): NativeLazBody | undefined {
  const chunks = layout.chunks;
  const job = nativeLazJob(header, layout, filter, threadCount);
  const positions = allocatePositions(header.pointCount, file);
  const chunkRaw = new Float64Array(Math.max(1, 6 * chunks.length));
  const attributes = keepAttributes ? new Uint8Array(Math.max(1, 2 * header.pointCount)) : null;
  const result = {} as RawLazResult;
  const status = reader.readLaz(file, job, positions, chunkRaw, records ?? null, attributes, result) as number;
  if (status !== 0) throw new NativeError(`reading ${file}: ${reader.lastError()}`);
  if (result.kind === XHD_LAZ_UNSUPPORTED) return undefined;
  if (result.kind !== XHD_LAZ_OK) throw lazFailure(file, result, layout);
  const tally = tallyFromNative(result);
  const kept = Number(result.kept);
  return attributes ? { positions, kept, tally, chunkRaw, attributes: attributes.subarray(0, 2 * kept) } : { positions, kept, tally, chunkRaw };
}

/** The error a failed chunk makes: one line naming the file and the byte, as the TypeScript decoder's. */
export function lazFailure(file: string, result: Pick<RawLazResult, 'kind' | 'chunk' | 'byte' | 'error_number'>, layout: LazLayout): Error {
  const c = Number(result.chunk), byte = Number(result.byte), count = layout.chunks.length;
  const chunk = layout.chunks[c];
  const which = chunk ? `LAZ chunk ${c + 1} of ${count} (${chunk.points} points)` : `LAZ chunk ${c + 1} of ${count}`;
  switch (result.kind) {
    case XHD_LAZ_TRUNCATED:
      return new InputError(file, { byte }, `file is truncated: ${which} runs past the file's end`);
    case XHD_LAZ_SHORT_CHUNK:
      return new InputError(file, { byte }, `${which} cannot be decoded: the chunk's ${chunk?.bytes} bytes ran out before its ${chunk?.points} points did`);
    case XHD_LAZ_DAMAGED:
      return new InputError(file, { byte }, `${which} cannot be decoded: it holds what LASzip never writes (a point count other than the table's, or GPS time sequences switching without end): the compressed data is damaged`);
    case XHD_LAZ_SYSTEM_ERROR:
      return asInputError(file, systemError(result.error_number), 'a LAZ file');
    default:
      return new NativeError(`reading ${file}: unknown LAZ result kind ${result.kind}`);
  }
}
