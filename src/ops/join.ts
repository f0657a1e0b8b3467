// The spatial join over two collections of meshes (xhd_join): one native call finds every pair, then the
// pairs are read out in batches and handed to the caller in order, so a large answer is written as it is
// read instead of being held twice.
import koffi from '../native/koffi.js';

import { expectInteger, expectOneOf } from '../core/arguments.js';
import { UsageError } from '../core/errors.js';
import type { Coordinates } from '../io/geometry.js';
import { JOIN_METHOD_CODES, JOIN_PREDICATE_CODES, type RawJoinResult } from '../native/abi.js';
import { callNative, throwUnlessOk } from '../native/call.js';
import type { BackendName } from '../native/library.js';
import { cudaDevice, type BackendChoice, type DeviceInfo } from './backends.js';
import { resolveRun } from './run-settings.js';

export const JOIN_METHODS = ['filtered', 'brute'] as const;
export type JoinMethod = (typeof JOIN_METHODS)[number];
export type JoinPredicate = { kind: 'intersects' } | { kind: 'within'; distance: number } | { kind: 'knn'; k: number };

/** A collection as the library takes it (src/io/join-collection.ts builds it). */
export interface JoinObjects {
  positions: Coordinates;
  triangles: Uint32Array;
  objectFaces: BigUint64Array;
}

export interface JoinOptions {
  predicate: JoinPredicate;
  method?: JoinMethod;
  backend?: BackendChoice;
  device?: number;
  threads?: number;
  /** Triangles per facet group (default: the library's, 32). */
  groupSize?: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
  /** false: only count the pairs (onBatch is never called). Default true. */
  readPairs?: boolean;
}

/** A batch of result pairs, column by column: pair i is objects[2i] (of A) and objects[2i + 1] (of B). */
export interface JoinBatch {
  count: number;
  objects: BigUint64Array;
  distance: Float64Array;
  triangles: BigInt64Array;
  /** 6 a pair: the point on A's object, then on B's. */
  points: Float64Array;
  intersecting: Int32Array;
}

export interface JoinStats {
  pairs: number;
  objectPairs: number;
  groupPairs: number;
  trianglePairs: number;
  buildMs: number;
  filterMs: number;
  refineMs: number;
  uploadMs: number;
  downloadMs: number;
  backend: BackendName;
  threads: number;
  device: DeviceInfo | null;
}

const BATCH = 4096;

function setArg(c: JoinObjects) {
  const floats = c.positions instanceof Float32Array;
  return {
    xyz: floats ? c.positions : null,
    xyz64: floats ? null : c.positions,
    vertex_count: c.positions.length / 3,
    triangles: c.triangles,
    object_faces: c.objectFaces,
    object_count: c.objectFaces.length - 1,
  };
}

function checkedPredicate(p: JoinPredicate): { code: number; distance: number; k: number } {
  if (p.kind === 'intersects') return { code: JOIN_PREDICATE_CODES.intersects, distance: 0, k: 0 };
  if (p.kind === 'within') {
    if (!(Number.isFinite(p.distance) && p.distance >= 0)) throw new UsageError(`the within distance must be a finite number >= 0, not ${p.distance}`);
    return { code: JOIN_PREDICATE_CODES.within, distance: p.distance, k: 0 };
  }
  return { code: JOIN_PREDICATE_CODES.knn, distance: 0, k: expectInteger(p.k, 'k', 1, 2 ** 32 - 1) };
}

/**
 * Joins a with b (b null: a with itself, each unordered pair once; k-NN never pairs an object with itself).
 * onBatch receives the pairs in order (by A's object, then B's; k-NN by distance, then B's object).
 */
export async function spatialJoin(a: JoinObjects, b: JoinObjects | null, options: JoinOptions,
  onBatch: (batch: JoinBatch) => void): Promise<JoinStats> {
  const predicate = checkedPredicate(options.predicate);
  const method = expectOneOf(options.method ?? 'filtered', JOIN_METHODS, 'method');
  const groupSize = options.groupSize === undefined ? 0 : expectInteger(options.groupSize, 'group size', 1, 1 << 20);
  const { backend, threads, device } = resolveRun(options, method === 'brute' ? 'brute' : 'grid');
  const native = {
    predicate: predicate.code, method: JOIN_METHOD_CODES[method], threads, device, distance: predicate.distance, k: predicate.k,
    self_join: b === null ? 1 : 0, group_size: groupSize, reserved: 0,
  };
  const slot = koffi.alloc('xhd_join_result', 1);
  try {
    await callNative(backend, backend.join, [setArg(a), b === null ? null : setArg(b), native, slot],
      { onProgress: options.onProgress, signal: options.signal, refusal: 'the collections cannot be joined' });
    try {
      const raw = koffi.decode(slot, 'xhd_join_result') as RawJoinResult;
      const total = Number(raw.pair_count);
      for (let first = 0; options.readPairs !== false && first < total; first += BATCH) {
        const count = Math.min(BATCH, total - first);
        const batch: JoinBatch = {
          count,
          objects: new BigUint64Array(2 * count),
          distance: new Float64Array(count),
          triangles: new BigInt64Array(2 * count),
          points: new Float64Array(6 * count),
          intersecting: new Int32Array(count),
        };
        throwUnlessOk(backend, backend.joinRead(slot, first, count, batch.objects, batch.distance, batch.triangles, batch.points, batch.intersecting),
          'the join pairs cannot be read');
        onBatch(batch);
      }
      const onGpu = backend.name !== 'cpu';
      return {
        pairs: total,
        objectPairs: Number(raw.object_pairs),
        groupPairs: Number(raw.group_pairs),
        trianglePairs: Number(raw.triangle_pairs),
        buildMs: raw.build_ms,
        filterMs: raw.filter_ms,
        refineMs: raw.refine_ms,
        uploadMs: raw.upload_ms,
        downloadMs: raw.download_ms,
        backend: backend.name,
        threads: raw.threads,
        device: onGpu ? cudaDevice(device) : null,
      };
    } finally {
      backend.joinFree(slot);
    }
  } finally {
    koffi.free(slot);
  }
}
