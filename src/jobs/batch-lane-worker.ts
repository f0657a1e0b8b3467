// One lane of `xhd batch` on a thread of its own (batch-lanes-in-workers.ts): asks the main thread for the
// next pair's index, compares that pair on this lane's device and posts its outcome back, until told -1.
// Each lane's reading, parsing and native calls' JavaScript then runs on its own thread: on the main
// thread alone, a batch of small mask pairs left it busy 80-86% of the time (docs/benchmarks.md).
import { parentPort, workerData } from 'node:worker_threads';

import { runPair, type BatchPair, type PairOutcome, type RunBatchOptions } from './batch.js';
import type { LaneReply, LaneRequest, LaneWorkerData } from './batch-lane-messages.js';

const port = parentPort!;
const data = workerData as LaneWorkerData<BatchPair, RunBatchOptions['compare']>;
const controller = new AbortController();
let answer: ((index: number) => void) | undefined;

port.on('message', (message: LaneReply) => {
  if (message.type === 'abort') controller.abort();
  else answer?.(message.index);
});

const ask = (request: LaneRequest<PairOutcome | 'cancelled'>) =>
  new Promise<number>((resolve) => {
    answer = resolve;
    port.postMessage(request);
  });

const options: RunBatchOptions = { compare: data.compare, signal: controller.signal };
const { pairs } = data;
let index = await ask({ type: 'next' });
while (index >= 0) {
  const outcome = await runPair(pairs[index], options);
  index = await ask({ type: 'done', index, outcome });
}
port.close();
