// The overlapping pair of scripts/datasets.ts (A uniform in the unit cube, B = A shifted by 0.005 along x) at
// sizes where one thread takes minutes to draw it (1B points: about two minutes): slices of 2^20 points, each
// drawn from its own seed by a pool of worker threads into shared memory. The slices' seeds, not the thread
// count, fix the points, so every run draws the same pair; it is not the pair overlapping() draws at that size.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

import { Rng, type DatasetPair } from '../datasets.js';

export const SLICE_POINTS = 1 << 20;
const SHIFT = 0.005;

export interface SliceJob {
  a: SharedArrayBuffer;
  b: SharedArrayBuffer;
  n: number;
  seed: number;
  first: number;  // slices first, first + step, ... are this worker's
  step: number;
}

/** Draws the slices of one worker (run inside a worker thread, or inline with step 1 for small n). */
export function drawSlices(job: SliceJob): void {
  const a = new Float32Array(job.a), b = new Float32Array(job.b);
  const slices = Math.ceil(job.n / SLICE_POINTS);
  for (let s = job.first; s < slices; s += job.step) {
    const rng = new Rng((job.seed + Math.imul(s, 0x9e3779b1)) >>> 0);
    const end = 3 * Math.min(job.n, (s + 1) * SLICE_POINTS);
    for (let i = 3 * s * SLICE_POINTS; i < end; i += 3) {
      a[i] = rng.uniform();
      a[i + 1] = rng.uniform();
      a[i + 2] = rng.uniform();
      b[i] = a[i] + SHIFT;
      b[i + 1] = a[i + 1];
      b[i + 2] = a[i + 2];
    }
  }
}

export async function overlappingParallel(n: number, seed: number, threads = availableParallelism()): Promise<DatasetPair> {
  const job = { a: new SharedArrayBuffer(12 * n), b: new SharedArrayBuffer(12 * n), n, seed, first: 0, step: 1 };
  const workers = Math.max(1, Math.min(threads, Math.ceil(n / SLICE_POINTS)));
  await Promise.all(Array.from({ length: workers }, (_, w) => new Promise<void>((resolve, reject) => {
    const worker = new Worker(new URL('./overlapping-slices-worker.js', import.meta.url), { workerData: { ...job, first: w, step: workers } });
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`slice worker exited with ${code}`))));
  })));
  return {
    a: new Float32Array(job.a),
    b: new Float32Array(job.b),
    description: `A uniform in the unit cube; B = A shifted by ${SHIFT} along x (drawn in slices of ${SLICE_POINTS} points, seed ${seed})`,
  };
}
