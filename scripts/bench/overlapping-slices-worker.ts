// One worker thread of overlappingParallel: draws its share of the slices into the shared arrays.
import { workerData } from 'node:worker_threads';

import { drawSlices, type SliceJob } from './overlapping-parallel.js';

drawSlices(workerData as SliceJob);
