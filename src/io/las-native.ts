// An uncompressed LAS body through the native reader (kernels/cpu/las_reader.cpp): one call reads the point
// records from the file on every core, scales X, Y, Z, tallies every record, applies the filters and --every,
// and packs the kept points (and their LAS attributes), exactly as las-body.ts, las-records.ts and the
// thinning in las.ts do in TypeScript. Those stay the reference, and read the file where the library is missing.
import { InputError, NativeError } from '../core/errors.js';
import { XHD_LAS_OK, XHD_LAS_SYSTEM_ERROR, XHD_LAS_TRUNCATED, type RawLasResult } from '../native/abi.js';
import { allocatePositions } from './allocate-positions.js';
import { asInputError, systemError } from './input-file.js';
import type { LasHeader } from './las-header.js';
import type { RecordFilter } from './las-records.js';
import { tallyFromNative } from './las-tally.js';
import { nativePieceBytes, type NativeReader } from './native-reader.js';
import { readerThreads } from './reader-threads.js';

export interface NativeLasBody {
  /** The kept points, packed at the start (3 * kept of them); the array holds room for every point. */
  positions: Float64Array;
  kept: number;
  /** Every record by class and return, the raw bounds, and the kept points' bounds (after --every). */
  tally: Float64Array;
  /** Each kept point's class and returns (2 bytes), when asked for. */
  attributes?: Uint8Array;
  /** --every is applied already. */
  thinned: true;
}

/** Reads the records of a LAS file whose header (and size against it) las-header.ts has checked. */
export function readLasNatively(reader: NativeReader, file: string, header: LasHeader, filter: RecordFilter | null, every: number,
  withAttributes: boolean, threads?: number): NativeLasBody {
  const positions = allocatePositions(header.pointCount, file);
  const attributes = withAttributes ? new Uint8Array(2 * header.pointCount) : undefined;
  const job = {
    body_offset: header.pointDataOffset,
    point_count: header.pointCount,
    piece_bytes: nativePieceBytes(),
    every: Math.max(1, every),
    record_length: header.recordLength,
    extended: header.pointFormat.extended ? 1 : 0,
    scale: [...header.scale],
    offset: [...header.offset],
    classes: filter?.classes ?? null,
    box: filter?.box ?? null,
    returns: filter?.returns ?? 0,
    threads: readerThreads(threads, 'XHD_LAS_THREADS'),
  };
  const result = {} as RawLasResult;
  const status = reader.readLas(file, job, positions, attributes ?? null, result) as number;
  if (status !== 0) throw new NativeError(`reading ${file}: ${reader.lastError()}`);
  switch (result.kind) {
    case XHD_LAS_OK:
      break;
    case XHD_LAS_TRUNCATED:
      // The size was checked against the header; a file that shrank since is still refused, not misread.
      throw new InputError(file, { byte: Number(result.byte) },
        `file is truncated: data ran out in point ${Number(result.record)} of ${header.pointCount}`);
    case XHD_LAS_SYSTEM_ERROR:
      throw asInputError(file, systemError(result.error_number), 'a LAS file');
    default:
      throw new NativeError(`reading ${file}: unknown LAS result kind ${result.kind}`);
  }
  const tally = tallyFromNative(result);
  return { positions, kept: Number(result.kept), tally, attributes, thinned: true };
}
