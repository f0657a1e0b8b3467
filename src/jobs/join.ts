// `xhd join A B`: read both collections, run the join in one native call and hand its pairs, as rows with
// the objects' ids, to the caller in order (the command line writes them as they come), then a summary.
import { realpathSync } from 'node:fs';

import { formatCount } from '../core/counts.js';
import { silentProgress, type ProgressFactory } from '../core/progress.js';
import { readJoinCollectionAsync, type JoinCollection, type ObjectSplit } from '../io/join-collection.js';
import { type BackendChoice, type DeviceInfo } from '../ops/backends.js';
import { spatialJoin, type JoinMethod, type JoinPredicate } from '../ops/join.js';

export interface JoinRunOptions {
  predicate: JoinPredicate;
  objects: ObjectSplit;
  method: JoinMethod;
  backend: BackendChoice;
  device?: number;
  threads?: number;
  groupSize?: number;
  /** Only count the pairs: none is read out of the library. */
  countOnly: boolean;
  progress?: ProgressFactory;
  signal?: AbortSignal;
}

export interface JoinRow {
  aId: string;
  bId: string;
  distance: number;
  aTriangle: number;
  bTriangle: number;
  aPoint: [number, number, number];
  bPoint: [number, number, number];
  intersecting: boolean;
}

export interface CollectionSummary {
  path: string;
  kind: JoinCollection['kind'];
  objects: number;
  triangles: number;
}

export interface JoinSummary {
  predicate: JoinPredicate;
  selfJoin: boolean;
  pairs: number;
  a: CollectionSummary;
  b: CollectionSummary;
  objectPairs: number;
  groupPairs: number;
  trianglePairs: number;
  method: JoinMethod;
  backend: string;
  threads: number;
  device: DeviceInfo | null;
  timingsMs: { read: number; build: number; filter: number; refine: number; total: number };
}

function summarize(c: JoinCollection): CollectionSummary {
  return { path: c.path, kind: c.kind, objects: c.objects.length, triangles: c.triangles.length / 3 };
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}

export async function joinFiles(pathA: string, pathB: string, options: JoinRunOptions, onRows: (rows: JoinRow[]) => void): Promise<JoinSummary> {
  const started = performance.now();
  const bar = (options.progress ?? silentProgress)('join');
  try {
    bar.status(`reading ${pathA}`);
    const a = await readJoinCollectionAsync(pathA, options.objects, options.threads);
    const selfJoin = samePath(pathA, pathB);
    bar.status(selfJoin ? 'self-join' : `reading ${pathB}`);
    const b = selfJoin ? a : await readJoinCollectionAsync(pathB, options.objects, options.threads);
    const readMs = performance.now() - started;
    bar.status(`joining ${formatCount(a.objects.length)} × ${formatCount(b.objects.length)} objects`);
    const stats = await spatialJoin(a, selfJoin ? null : b, {
      predicate: options.predicate, method: options.method, backend: options.backend, device: options.device, threads: options.threads,
      groupSize: options.groupSize, signal: options.signal, onProgress: (done, total) => bar.update(done, total), readPairs: !options.countOnly,
    }, (batch) => {
      const rows: JoinRow[] = new Array(batch.count);
      for (let i = 0; i < batch.count; i++) {
        const p = batch.points;
        rows[i] = {
          aId: a.objects[Number(batch.objects[2 * i])].id,
          bId: b.objects[Number(batch.objects[2 * i + 1])].id,
          distance: batch.distance[i],
          aTriangle: Number(batch.triangles[2 * i]),
          bTriangle: Number(batch.triangles[2 * i + 1]),
          aPoint: [p[6 * i], p[6 * i + 1], p[6 * i + 2]],
          bPoint: [p[6 * i + 3], p[6 * i + 4], p[6 * i + 5]],
          intersecting: batch.intersecting[i] !== 0,
        };
      }
      onRows(rows);
    });
    return {
      predicate: options.predicate, selfJoin, pairs: stats.pairs, a: summarize(a), b: summarize(b),
      objectPairs: stats.objectPairs, groupPairs: stats.groupPairs, trianglePairs: stats.trianglePairs,
      method: options.method, backend: stats.backend, threads: stats.threads, device: stats.device,
      timingsMs: { read: readMs, build: stats.buildMs, filter: stats.filterMs, refine: stats.refineMs, total: performance.now() - started },
    };
  } finally {
    bar.finish();
  }
}
