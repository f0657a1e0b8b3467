// The work of decoding a LAZ file's chunks, shared by the reading thread and its worker threads: each takes
// the next unclaimed chunk (one atomic counter), reads its bytes from the file, decodes them (laz-decoder.ts)
// and writes the points the filter keeps into the chunk's own slot of the positions. All state lives in
// shared memory, so that the reading thread can wait for the workers synchronously (Atomics.wait).
import { closeSync, openSync } from 'node:fs';

import { readFully } from './input-file.js';
import { decodeLasRecords, mergeTally, newTally, resetTally, TALLY_LENGTH, TALLY_RAW_MAX, TALLY_RAW_MIN, type RecordFilter, type RecordLayout } from './las-records.js';
import { LazChunkDecoder } from './laz-decoder.js';
import { decodeV2Chunk, type LazItem } from './laz-v2-chunk.js';

/** The control words: the next chunk to claim, chunks completed, and the first failure (its chunk + 1, 0 for none). */
export const NEXT = 0;
export const COMPLETED = 1;
export const FAILED = 2;

export interface LazJob {
  path: string;
  format: number;
  /** The record's LASzip items; with `ownDecoder`, decoded by laz-v2-chunk.ts, else by laz-perf. */
  items: LazItem[];
  ownDecoder: boolean;
  layout: RecordLayout;
  filter: RecordFilter | null;
  /** Per chunk: file offset, bytes, points, first point (4 numbers a chunk). */
  chunks: Float64Array;
  positions: Float64Array;
  /** Two bytes a point (classification, returns) in the positions' slots, or null when not wanted. */
  attributes: Uint8Array | null;
  control: Int32Array;
  /** Per chunk: the points it kept. */
  kept: Int32Array;
  /** Per chunk: its raw X, Y, Z min then max (before filters). */
  chunkRaw: Float64Array;
  /** Per participant: its tally of every record it decoded. */
  tallies: Float64Array;
  /** The first failure's message, UTF-8, NUL-padded. */
  message: Uint8Array;
}

/** Decodes chunks until none is left (or one failed); `participant` picks this thread's tally. */
export function runLazJob(job: LazJob, participant: number, wasm?: WebAssembly.Module): void {
  const chunkCount = job.chunks.length / 4;
  const tally = job.tallies.subarray(participant * TALLY_LENGTH, (participant + 1) * TALLY_LENGTH);
  const chunkTally = newTally();
  let decoder: LazChunkDecoder | undefined;
  let fd = -1;
  let buffer = new Uint8Array(0);
  let records = new Uint8Array(0);
  try {
    for (;;) {
      // Claimed chunks are always completed (below, finally), so the reading thread can count on them.
      if (Atomics.load(job.control, FAILED) !== 0) return;
      const c = Atomics.add(job.control, NEXT, 1);
      if (c >= chunkCount) return;
      try {
        const offset = job.chunks[4 * c], bytes = job.chunks[4 * c + 1], points = job.chunks[4 * c + 2], first = job.chunks[4 * c + 3];
        if (fd < 0) fd = openSync(job.path, 'r');
        if (buffer.length < bytes) buffer = new Uint8Array(Math.max(bytes, 2 * buffer.length));
        if (readFully(fd, buffer, 0, bytes, offset) < bytes) throw new Error(`file is truncated: chunk ${c + 1} of ${chunkCount} runs past the file's end`);
        let decoded: DataView;
        if (job.ownDecoder) {
          if (records.length < points * job.layout.recordLength) records = new Uint8Array(points * job.layout.recordLength);
          decoded = decodeV2Chunk(buffer.subarray(0, bytes), points, job.items, job.layout.recordLength, records);
        } else {
          decoder ??= new LazChunkDecoder(wasm);
          decoded = decoder.decode(buffer.subarray(0, bytes), points, job.format, job.layout.recordLength);
        }
        resetTally(chunkTally);
        const end = decodeLasRecords(decoded, 0, points, job.layout, job.filter, job.positions, first, chunkTally, job.attributes);
        job.kept[c] = end - first;
        for (let k = 0; k < 3; k++) {
          job.chunkRaw[6 * c + k] = chunkTally[TALLY_RAW_MIN + k];
          job.chunkRaw[6 * c + 3 + k] = chunkTally[TALLY_RAW_MAX + k];
        }
        mergeTally(tally, chunkTally);
      } catch (error) {
        fail(job, c, error);
      } finally {
        Atomics.add(job.control, COMPLETED, 1);
        Atomics.notify(job.control, COMPLETED);
      }
    }
  } finally {
    if (fd >= 0) closeSync(fd);
  }
}

function fail(job: LazJob, chunk: number, error: unknown): void {
  if (Atomics.compareExchange(job.control, FAILED, 0, chunk + 1) !== 0) return; // the first failure is the one told
  const text = new TextEncoder().encode(error instanceof Error ? error.message : String(error));
  job.message.set(text.subarray(0, job.message.length));
}

/** The first failure's message. */
export function failureMessage(job: LazJob): string {
  const end = job.message.indexOf(0);
  return new TextDecoder().decode((end < 0 ? job.message : job.message.subarray(0, end)).slice());
}

/** Adds the participants' tallies into one. */
export function totalTally(job: LazJob, participants: number): Float64Array {
  const total = newTally();
  for (let p = 0; p < participants; p++) mergeTally(total, job.tallies.subarray(p * TALLY_LENGTH, (p + 1) * TALLY_LENGTH));
  return total;
}
