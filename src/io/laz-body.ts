// A LAZ body: its chunks (laz-chunks.ts) decoded in parallel, each read from the file on its own: the file
// is never held whole. Point formats 0-3 and 6-8 go to the CPU library in one call (laz-native.ts) where it
// loads; otherwise the reading thread and worker threads decode them together (laz-work.ts: xhd's
// TypeScript decoder for formats 0-3, laz-perf for the others, formats 9 and 10 always), the reading
// thread waiting for the workers with Atomics.wait, so that reading stays synchronous like every other
// reader's.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { InputError } from '../core/errors.js';
import type { LasHeader } from './las-header.js';
import { allocatePositions, checkRoomFor } from './allocate-positions.js';
import { recordLayout } from './las-body.js';
import { newTally, TALLY_LENGTH, type RecordFilter } from './las-records.js';
import type { LidarSummary } from './las-summary.js';
import type { LasVlr } from './las-vlrs.js';
import { readLazLayout, type LazChunk, type LazLayout } from './laz-chunks.js';
import { findCopcInfo } from './copc-info.js';
import { readCopcLayout } from './copc.js';
import type { CopcSummary } from './copc-select.js';
import { lazPerfWasm } from './laz-decoder.js';
import { readLazNatively } from './laz-native.js';
import { decodesV2 } from './laz-v2-chunk.js';
import { COMPLETED, FAILED, failureMessage, NEXT, runLazJob, totalTally, type LazJob } from './laz-work.js';
import { nativeReader } from './native-reader.js';
import { readerThreads } from './reader-threads.js';

// '../io/' rather than './': the same file from this module's folder and from the bundled CLI's (dist/src/cli/,
// scripts/bundle-cli.mjs), which runs this code but keeps the worker a module of its own.
const LAZ_WORKER = new URL('../io/laz-worker.js', import.meta.url);

/** Below this many points, starting a worker (its module load and WebAssembly instance) costs more than it saves. */
const POINTS_FOR_WORKERS = 200_000;

/** Threads decoding at once (the reading thread included): XHD_LAZ_THREADS, else --threads, else every core. */
function decodingThreads(chunks: number, points: number, requested: number | undefined): number {
  const chosen = readerThreads(requested, 'XHD_LAZ_THREADS');
  const wanted = chosen >= 1 ? chosen : points < POINTS_FOR_WORKERS ? 1 : availableParallelism();
  return Math.max(1, Math.min(wanted, chunks));
}

function sharedPositions(count: number, file: string): Float64Array {
  try {
    return new Float64Array(new SharedArrayBuffer(Math.max(8, 24 * count)));
  } catch {
    throw new InputError(file, {}, `${count} points need ${(24 * count / 1024 ** 3).toFixed(1)} GiB for their coordinates, more than can be allocated now`);
  }
}

const shared = (bytes: number) => (bytes > 0 ? new SharedArrayBuffer(bytes) : new SharedArrayBuffer(8));

/**
 * The native decoder (formats 0-3 and 6-8) where the CPU library loads; XHD_LAZ_DECODER=typescript or
 * laz-perf picks one of the others (tests, benchmarks). It hands back each point's class and returns too,
 * for an export that keeps them (keepAttributes).
 */
function nativeDecoder() {
  const wanted = process.env.XHD_LAZ_DECODER;
  return wanted === undefined || wanted === '' || wanted === 'native' ? nativeReader() : undefined;
}

export function readLazBody(fd: number, file: string, fileSize: number, fileHeader: LasHeader, vlrs: LasVlr[], filter: RecordFilter | null, keepAttributes = false,
  threads?: number): { positions: Float64Array; kept: number; tally: Float64Array; laz: NonNullable<LidarSummary['laz']>; attributes?: Uint8Array; copc?: CopcSummary } {
  // A COPC file's chunks are its hierarchy's nodes (those --bbox needs); they hold the points decoded.
  const copcVlr = findCopcInfo(vlrs);
  const copc = copcVlr ? readCopcLayout(fd, file, fileSize, fileHeader, vlrs, copcVlr, filter) : undefined;
  const layout = copc ? copc.layout : readLazLayout(fd, file, fileSize, fileHeader, vlrs);
  const header = copc ? { ...fileHeader, pointCount: copc.copc.pointsRead } : fileHeader;
  const body = readLazChunks(file, header, layout, filter, keepAttributes, threads);
  return copc ? { ...body, copc: copc.copc } : body;
}

function readLazChunks(file: string, header: LasHeader, layout: LazLayout, filter: RecordFilter | null, keepAttributes: boolean, requested: number | undefined):
  { positions: Float64Array; kept: number; tally: Float64Array; laz: NonNullable<LidarSummary['laz']>; attributes?: Uint8Array } {
  const chunks = layout.chunks;
  const reader = nativeDecoder();
  const native = reader ? readLazNatively(reader, file, header, layout, filter, undefined, requested, keepAttributes) : undefined;
  if (native) {
    checkChunkBounds(file, header, chunks, native.chunkRaw);
    const body = {
      positions: native.positions,
      kept: native.kept,
      tally: native.tally,
      laz: { compressor: layout.compressor, chunkSize: layout.chunkSize, chunks: chunks.length, decoder: 'xhd native' as const },
    };
    return native.attributes ? { ...body, attributes: native.attributes } : body;
  }
  const threads = decodingThreads(chunks.length, header.pointCount, requested);
  // One thread writes straight into an ordinary array; threads together write into shared memory.
  checkRoomFor(header.pointCount, file);
  const all = threads > 1 ? sharedPositions(header.pointCount, file) : allocatePositions(header.pointCount, file);
  const ownDecoder = process.env.XHD_LAZ_DECODER !== 'laz-perf' && decodesV2(layout.items);
  const job: LazJob = {
    path: file,
    format: header.pointFormat.id,
    items: layout.items,
    ownDecoder,
    layout: recordLayout(header),
    filter,
    chunks: Float64Array.from(chunks.flatMap((c) => [c.offset, c.bytes, c.points, c.firstPoint])),
    positions: all,
    attributes: keepAttributes ? (threads > 1 ? new Uint8Array(shared(2 * header.pointCount)) : new Uint8Array(2 * header.pointCount)) : null,
    control: new Int32Array(shared(12)),
    kept: new Int32Array(shared(4 * chunks.length)),
    chunkRaw: new Float64Array(shared(48 * chunks.length)),
    tallies: new Float64Array(shared(8 * TALLY_LENGTH * threads)),
    message: new Uint8Array(shared(1024)),
  };
  for (let p = 0; p < threads; p++) job.tallies.subarray(p * TALLY_LENGTH, (p + 1) * TALLY_LENGTH).set(newTally());
  const workers: Worker[] = [];
  const wasm = ownDecoder ? undefined : lazPerfWasm();
  for (let p = 1; p < threads; p++) {
    const worker = new Worker(LAZ_WORKER, { workerData: { job, participant: p, wasm } });
    worker.unref(); // it ends by itself when the chunks run out; it must never keep the process alive
    worker.on('error', () => undefined); // a worker that fails to start leaves its share to the others
    workers.push(worker);
  }
  runLazJob(job, 0, wasm);
  // Every claimed chunk gets completed, failed or not; wait for the last ones the workers hold.
  for (;;) {
    const done = Atomics.load(job.control, COMPLETED);
    if (done >= Math.min(Atomics.load(job.control, NEXT), chunks.length)) break;
    Atomics.wait(job.control, COMPLETED, done, 1000);
  }
  const failed = Atomics.load(job.control, FAILED);
  if (failed !== 0) {
    const chunk = chunks[failed - 1];
    throw new InputError(file, { byte: chunk.offset }, `LAZ chunk ${failed} of ${chunks.length} (${chunk.points} points) cannot be decoded: ${failureMessage(job)}`);
  }
  checkChunkBounds(file, header, chunks, job.chunkRaw);
  const positions = threads > 1 || filter !== null ? compact(job, chunks, file) : all;
  let kept = 0;
  for (let c = 0; c < chunks.length; c++) kept += job.kept[c];
  const body = {
    positions,
    kept,
    tally: totalTally(job, threads),
    laz: { compressor: layout.compressor, chunkSize: layout.chunkSize, chunks: chunks.length, decoder: ownDecoder ? 'xhd' as const : 'laz-perf' as const },
  };
  return job.attributes ? { ...body, attributes: compactAttributes(job, chunks, kept) } : body;
}

/** The kept points' attributes (2 bytes each), packed in chunk order like their positions. */
function compactAttributes(job: LazJob, chunks: LazChunk[], kept: number): Uint8Array {
  const out = new Uint8Array(2 * kept);
  let at = 0;
  for (let c = 0; c < chunks.length; c++) {
    const from = 2 * chunks[c].firstPoint;
    out.set(job.attributes!.subarray(from, from + 2 * job.kept[c]), at);
    at += 2 * job.kept[c];
  }
  return out;
}

/** The kept points of every chunk, packed in chunk order into an ordinary array. */
function compact(job: LazJob, chunks: LazChunk[], file: string): Float64Array {
  let kept = 0;
  for (let c = 0; c < chunks.length; c++) kept += job.kept[c];
  const out = allocatePositions(kept, file);
  let at = 0;
  for (let c = 0; c < chunks.length; c++) {
    const from = 3 * chunks[c].firstPoint;
    out.set(job.positions.subarray(from, from + 3 * job.kept[c]), at);
    at += 3 * job.kept[c];
  }
  return out;
}

/**
 * LAZ has no checksum: a damaged chunk decodes to points, just wrong ones, and typically far away. A chunk
 * whose points reach outside the header's bounds by more than 1% of their extent is refused, naming it;
 * headers whose bounds are all zero (never filled in) are not checked.
 */
function checkChunkBounds(file: string, header: LasHeader, chunks: LazChunk[], raw: Float64Array): void {
  if (!headerBoundsChecked(header)) return;
  for (let c = 0; c < chunks.length; c++) {
    for (let k = 0; k < 3; k++) {
      const slack = Math.max(Math.abs(header.scale[k]), 0.01 * (header.max[k] - header.min[k]));
      const a = raw[6 * c + k] * header.scale[k] + header.offset[k], b = raw[6 * c + 3 + k] * header.scale[k] + header.offset[k];
      const low = Math.min(a, b), high = Math.max(a, b);
      if (low < header.min[k] - slack || high > header.max[k] + slack) throw chunkOutsideBounds(file, header, chunks, c, k, low, high);
    }
  }
}

/** Whether the header's bounds are checked: not where they are all zero (never filled in). */
export function headerBoundsChecked(header: LasHeader): boolean {
  return ![...header.min, ...header.max].every((v) => v === 0);
}

/** The error of chunk c, whose points reach on axis k from low to high, outside the header's bounds. */
export function chunkOutsideBounds(file: string, header: LasHeader, chunks: LazChunk[], c: number, k: number, low: number, high: number): InputError {
  return new InputError(file, { byte: chunks[c].offset },
    `LAZ chunk ${c + 1} of ${chunks.length} decodes to ${'xyz'[k]} from ${low} to ${high}, outside the header's ${header.min[k]} to ${header.max[k]}: ` +
    'the compressed data is damaged (or the header\'s bounds are wrong)');
}
