// `xhd batch` lanes on threads of their own (batch-lane-worker.ts), one worker thread a lane. In one thread,
// every lane's JavaScript (reading and parsing files, handing the native calls their arguments and copying
// their results out) shares the main thread: on a 2-GPU host a batch of 1,000 small mask pairs kept it busy
// 80-86% of the time, and more lanes or a second GPU did not make the batch faster (docs/benchmarks.md).
// The main thread keeps the order: it hands out the pairs' indices and reports the outcomes in manifest order.
import { Worker } from 'node:worker_threads';

import type { LaneReply, LaneRequest, LaneWorkerData } from './batch-lane-messages.js';

// From the bundled CLI (dist/src/bundle/, scripts/bundle-cli.mjs) the worker's own bundle beside it: one file for
// each lane's thread to load, not about a hundred modules (four lane threads started in 0.20 s from the bundle and
// 0.32-0.35 s from the modules on the 2-core VM; on the 2-GPU host eight lane threads added about 0.25 s to a
// batch's start). From the modules, the worker's module ('../jobs/': this folder). Which of the two by this file's
// own folder, not by '/bundle/' anywhere in its path: xhd may be installed under a folder of that name.
const LANE_WORKER = new URL('.', import.meta.url).pathname.endsWith('/bundle/')
  ? new URL('./batch-lane-worker.mjs', import.meta.url)
  : new URL('../jobs/batch-lane-worker.js', import.meta.url);

let started = 0;

/** Lane threads started by this process so far (tests: that a batch did run its lanes on threads). */
export function laneThreadsStarted(): number {
  return started;
}

/** Whether the lanes' shared data can go to worker threads (structured clone); a batch whose options cannot keeps one thread. */
export function cloneableForWorkers(pairs: unknown[], compare: unknown): boolean {
  try {
    structuredClone({ pairs, compare });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs one worker per entry of `laneCompares` (each lane's options) until `take` says -1. take: the next pair's
 * index, or -1; finish: records a pair's outcome (resolving once the lane may go on). An interrupt (signal) is
 * passed on to every lane, whose running pair then ends as cancelled.
 */
export async function runLanesInWorkers<Pair, Compare, Outcome>(pairs: Pair[], laneCompares: Compare[], take: () => number,
  finish: (index: number, outcome: Outcome) => Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  const workers = laneCompares.map((compare) => new Worker(LANE_WORKER, { workerData: { pairs, compare } satisfies LaneWorkerData<Pair, Compare> }));
  started += workers.length;
  const abort = () => {
    for (const w of workers) w.postMessage({ type: 'abort' } satisfies LaneReply);
  };
  signal?.addEventListener('abort', abort, { once: true });
  try {
    await Promise.all(workers.map((worker) => new Promise<void>((resolve, reject) => {
      worker.on('message', (request: LaneRequest<Outcome>) => {
        const ready = request.type === 'done' ? finish(request.index, request.outcome) : Promise.resolve();
        ready.then(() => worker.postMessage({ type: 'index', index: take() } satisfies LaneReply), reject);
      });
      worker.on('error', reject);
      worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`a batch lane's thread stopped with exit code ${code}`))));
    })));
  } finally {
    signal?.removeEventListener('abort', abort);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
