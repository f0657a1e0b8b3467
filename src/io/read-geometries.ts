// Many geometry files read on every core: a join collection is often thousands of small meshes (3DPipe's NV is
// 200,000 nuclei of 296 triangles), and one thread read 20,000 of them at about 180 µs each, 3.6 s, ten times
// the join itself on this VM. Each file is read as readGeometry reads it, on worker threads; a file's error is
// returned in its place, so that the caller can report the first in its own order, as a serial read would.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { InputError, UsageError, XhdError } from '../core/errors.js';
import type { Geometry } from './geometry.js';
import { readGeometry } from './read.js';
import type { ClonedError, PackedChunk, Placed, ReadWorkerData, ReadWorkerResult } from './read-geometries-messages.js';

// The worker's own bundle beside the bundled CLI (scripts/bundle-cli.mjs), else its module in this folder; which
// one by this file's own folder (as batch-lanes-in-workers.ts chooses the lane worker).
const READ_WORKER = new URL('.', import.meta.url).pathname.endsWith('/bundle/')
  ? new URL('./mesh-read-worker.mjs', import.meta.url)
  : new URL('../io/mesh-read-worker.js', import.meta.url);

/** Files a thread reads before posting them back: messages, not files, then set the cost of a small file. */
const CHUNK = 64;
/** Below this many files a thread's start (tens of milliseconds) costs more than it saves. */
const PARALLEL_FROM = 256;

export type ReadOutcome = { geometry: Geometry } | { error: Error };

/** One file read on this thread, its error kept in its place. */
export function readOutcome(path: string): ReadOutcome {
  try {
    return { geometry: readGeometry(path) };
  } catch (err) {
    return { error: err as Error };
  }
}

/** The error a thread reported, as the class the CLI maps to its exit code (InputError, UsageError: exit 2). */
function rebuilt(e: ClonedError): Error {
  let error: Error;
  if (e.name === 'InputError' && e.file !== undefined) error = new InputError(e.file, {}, '');
  else if (e.name === 'UsageError') error = new UsageError(e.message);
  else if (e.exitCode !== undefined) error = new XhdError(e.message, e.exitCode);
  else error = new Error(e.message);
  error.message = e.message;  // InputError composes its message from its parts: here it is given whole
  return error;
}

/** A file's geometry from its chunk: views of the packed arrays, no copy. */
function unpacked(r: Extract<ReadWorkerResult, { placed: Placed }>, chunk: PackedChunk): Geometry {
  const p = r.placed;
  const positions = (p.float ? chunk.f32 : chunk.f64).subarray(p.at, p.at + p.length);
  const triangles = p.trianglesAt < 0 ? undefined : chunk.triangles.subarray(p.trianglesAt, p.trianglesAt + p.trianglesLength);
  return { ...r.rest, positions, ...(triangles ? { triangles } : {}) };
}

/**
 * Reads paths[i] into outcome i, on up to `threads` threads (default: every core; XHD_READ_THREADS overrides, and
 * a small list is read on this thread). Every file is read, whatever the others' errors.
 */
export async function readGeometries(paths: string[], threads?: number): Promise<ReadOutcome[]> {
  const env = Number.parseInt(process.env.XHD_READ_THREADS ?? '', 10);
  const asked = env > 0 ? env : threads ?? availableParallelism();
  const chunks = Math.ceil(paths.length / CHUNK);
  const workers = Math.min(asked, chunks);
  if (workers <= 1 || (paths.length < PARALLEL_FROM && !(env > 0))) return paths.map(readOutcome);
  const outcomes: ReadOutcome[] = new Array(paths.length);
  await Promise.all(Array.from({ length: workers }, (_, w) => new Promise<void>((resolve) => {
    // Each thread is sent only its own files: chunks w, w + workers, … of CHUNK files.
    const indices: number[] = [];
    for (let c = w; c < chunks; c += workers) for (let i = c * CHUNK; i < Math.min(paths.length, (c + 1) * CHUNK); i++) indices.push(i);
    const data: ReadWorkerData = { paths: indices.map((i) => paths[i]), indices, chunk: CHUNK };
    const worker = new Worker(READ_WORKER, { workerData: data });
    worker.on('message', (chunk: PackedChunk) => {
      for (const r of chunk.results) outcomes[r.index] = 'error' in r ? { error: rebuilt(r.error) } : { geometry: unpacked(r, chunk) };
    });
    // A thread that fails (its module missing from an install, memory) is not the files' fault: what it left
    // unread is read below, on this thread, and its errors are the files' own.
    worker.on('error', () => undefined);
    worker.on('exit', () => resolve());
  })));
  // Every file has its outcome once every thread has exited; read here any a thread left without one.
  for (let i = 0; i < paths.length; i++) outcomes[i] ??= readOutcome(paths[i]);
  return outcomes;
}
