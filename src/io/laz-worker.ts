// A worker thread decoding LAZ chunks beside the reading thread (laz-body.ts starts it; laz-work.ts is the work).
import { workerData } from 'node:worker_threads';

import { runLazJob, type LazJob } from './laz-work.js';

const { job, participant, wasm } = workerData as { job: LazJob; participant: number; wasm: WebAssembly.Module };
runLazJob(job, participant, wasm);
