// What readGeometries (read-geometries.ts) and its threads (mesh-read-worker.ts) send each other.
import type { Geometry } from './geometry.js';

/** A thread's share: its files, their indices in the whole list, and how many it reads between messages. */
export interface ReadWorkerData {
  paths: string[];
  indices: number[];
  chunk: number;
}

/** An error as it crosses threads (structured clone keeps neither its class nor its own fields). */
export interface ClonedError {
  name: string;
  message: string;
  exitCode?: number;
  file?: string;
}

/** Where a file's coordinates (in f32 or f64) and triangles (-1: none) lie in its chunk's packed arrays. */
export interface Placed {
  float: boolean;
  at: number;
  length: number;
  trianglesAt: number;
  trianglesLength: number;
}

export type ReadWorkerResult =
  | { index: number; rest: Omit<Geometry, 'positions' | 'triangles'>; placed: Placed }
  | { index: number; error: ClonedError };

/** One chunk of files, as one message. */
export interface PackedChunk {
  results: ReadWorkerResult[];
  f64: Float64Array;
  f32: Float32Array;
  triangles: Uint32Array;
}
