// One thread of readGeometries (read-geometries.ts): reads its share of the files as readGeometry does, in
// chunks, and posts each chunk's geometries, or in a file's place its error (message, exit code, file), back.
import { parentPort, workerData } from 'node:worker_threads';

import { readGeometry } from './read.js';
import type { ReadWorkerData, ReadWorkerResult } from './read-geometries-messages.js';

const port = parentPort!;
const { paths, first, step, chunk } = workerData as ReadWorkerData;

for (let k = first; k * chunk < paths.length; k += step) {
  const results: ReadWorkerResult[] = [];
  for (let i = k * chunk; i < Math.min(paths.length, (k + 1) * chunk); i++) {
    try {
      results.push({ index: i, geometry: readGeometry(paths[i]) });
    } catch (err) {
      const e = err as Error & { exitCode?: number; file?: string };
      results.push({ index: i, error: { name: e?.name ?? 'Error', message: e?.message ?? String(err), exitCode: e?.exitCode, file: e?.file } });
    }
  }
  port.postMessage(results);
}
port.close();
