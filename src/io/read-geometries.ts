// Many geometry files read on every core: a join collection is often thousands of small meshes (3DPipe's NV is
// 200,000 nuclei of 296 triangles), and one thread read 20,000 of them at about 180 µs each, 3.6 s, ten times
// the join itself on this VM. Each file is read as readGeometry reads it, on worker threads; a file's error is
// returned in its place, so that the caller can report the first in its own order, as a serial read would.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { InputError, UsageError, XhdError } from '../core/errors.js';
import type { Geometry } from './geometry.js';
import { readGeometry } from './read.js';
import type { ClonedError, ReadWorkerData, ReadWorkerResult } from './read-geometries-messages.js';

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

/**
 * Reads paths[i] into outcome i, on up to `threads` threads (default: every core; XHD_READ_THREADS overrides, and
 * a small list is read on this thread). Every file is read, whatever the others' errors.
 */
export async function readGeometries(paths: string[], threads?: number): Promise<ReadOutcome[]> {
  const env = Number.parseInt(process.env.XHD_READ_THREADS ?? '', 10);
  const asked = env > 0 ? env : threads ?? availableParallelism();
  const chunks = Math.ceil(paths.length / CHUNK);
  const workers = Math.min(asked, chunks);
  if (workers <= 1 || (paths.length < PARALLEL_FROM && !(env > 0))) {
    return paths.map((path) => {
      try {
        return { geometry: readGeometry(path) };
      } catch (err) {
        return { error: err as Error };
      }
    });
  }
  const outcomes: ReadOutcome[] = new Array(paths.length);
  await Promise.all(Array.from({ length: workers }, (_, w) => new Promise<void>((resolve, reject) => {
    const worker = new Worker(READ_WORKER, { workerData: { paths, first: w, step: workers, chunk: CHUNK } satisfies ReadWorkerData });
    worker.on('message', (results: ReadWorkerResult[]) => {
      for (const r of results) outcomes[r.index] = 'geometry' in r ? { geometry: r.geometry } : { error: rebuilt(r.error) };
    });
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`a file-reading thread exited with code ${code}`))));
  })));
  // Every file has its outcome once every thread has exited; read here any a thread left without one.
  for (let i = 0; i < paths.length; i++) {
    if (outcomes[i] !== undefined) continue;
    try {
      outcomes[i] = { geometry: readGeometry(paths[i]) };
    } catch (err) {
      outcomes[i] = { error: err as Error };
    }
  }
  return outcomes;
}
