// One thread of readGeometries (read-geometries.ts): reads its share of the files as readGeometry does, in
// chunks, and posts each chunk back as one message: the chunk's coordinates and triangles packed into three
// arrays whose memory moves to the main thread (no copy), beside each file's other fields or, in its place, its
// error (message, exit code, file). A message a file, cloned, kept the main thread busy unpacking them.
import { parentPort, workerData } from 'node:worker_threads';

import type { Geometry } from './geometry.js';
import { readGeometry } from './read.js';
import type { PackedChunk, ReadWorkerData, ReadWorkerResult } from './read-geometries-messages.js';

const port = parentPort!;
const { paths, indices, chunk } = workerData as ReadWorkerData;

function packed(read: { index: number; geometry: Geometry }[], errors: ReadWorkerResult[]): PackedChunk {
  let n64 = 0, n32 = 0, nt = 0;
  for (const { geometry: g } of read) {
    if (g.positions instanceof Float32Array) n32 += g.positions.length;
    else n64 += g.positions.length;
    nt += g.triangles?.length ?? 0;
  }
  const f64 = new Float64Array(n64), f32 = new Float32Array(n32), triangles = new Uint32Array(nt);
  let at64 = 0, at32 = 0, atT = 0;
  const results: ReadWorkerResult[] = [...errors];
  for (const { index, geometry } of read) {
    const { positions, triangles: t, ...rest } = geometry;
    const float = positions instanceof Float32Array;
    const at = float ? at32 : at64;
    (float ? f32 : f64).set(positions, at);
    if (float) at32 += positions.length;
    else at64 += positions.length;
    const placed = { float, at, length: positions.length, trianglesAt: t ? atT : -1, trianglesLength: t?.length ?? 0 };
    if (t) {
      triangles.set(t, atT);
      atT += t.length;
    }
    results.push({ index, rest, placed });
  }
  return { results, f64, f32, triangles };
}

for (let k = 0; k < paths.length; k += chunk) {
  const read: { index: number; geometry: Geometry }[] = [];
  const errors: ReadWorkerResult[] = [];
  for (let i = k; i < Math.min(paths.length, k + chunk); i++) {
    try {
      read.push({ index: indices[i], geometry: readGeometry(paths[i]) });
    } catch (err) {
      const e = err as Error & { exitCode?: number; file?: string };
      errors.push({ index: indices[i], error: { name: e?.name ?? 'Error', message: e?.message ?? String(err), exitCode: e?.exitCode, file: e?.file } });
    }
  }
  const message = packed(read, errors);
  // Fresh arrays (never views of a shared or pooled buffer): their memory can move.
  port.postMessage(message, [message.f64.buffer as ArrayBuffer, message.f32.buffer as ArrayBuffer, message.triangles.buffer as ArrayBuffer]);
}
port.close();
