// A binary PLY's plain triangle records decoded by the native reader (xhd_read_triangle_records) on every core,
// straight into the triangle collector's array. Only a large run pays for the call; the TypeScript loop
// (readTriangleRun, ply-binary.ts) reads small ones and stays the reference. Either way the run ends at the
// first record that is not a plain triangle in range, where the general reader takes over.
import { NativeError } from '../core/errors.js';
import type { TriangleCollector } from './build.js';
import type { NativeReader } from './native-reader.js';
import { readerThreads } from './reader-threads.js';

/**
 * Runs shorter than this stay in TypeScript: the call costs little, but a small run is a small share of any
 * read, and the TypeScript loop keeps being exercised by the many small files tests read.
 */
export const NATIVE_TRIANGLE_RECORDS = 65_536;

/** Indices are uint32 on both sides; a vertex count beyond them (never seen) is left to TypeScript. */
const MAX_VERTEX_COUNT = 0xffff_ffff;

/** Whether a run of `records` records over `vertexCount` vertices goes to the native reader. */
export function nativeTriangleRun(records: number, vertexCount: number): boolean {
  return records >= NATIVE_TRIANGLE_RECORDS && vertexCount <= MAX_VERTEX_COUNT;
}

/**
 * The records (`count` records, exactly count * 13 bytes) added to the collector while each is a triangle whose
 * indices are below vertexCount: how many were added.
 */
export function readTriangleRecordsNatively(reader: NativeReader, records: Uint8Array, count: number, vertexCount: number,
  collector: TriangleCollector, threads?: number): number {
  const read = new BigUint64Array(1);
  const status = reader.readTriangleRecords(records, count, vertexCount, readerThreads(threads), collector.room(count), read) as number;
  if (status !== 0) throw new NativeError(`decoding triangle records: ${reader.lastError()}`);
  const added = Number(read[0]);
  collector.added(added);
  return added;
}
