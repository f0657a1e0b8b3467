// What readGeometries (read-geometries.ts) and its threads (mesh-read-worker.ts) send each other.
import type { Geometry } from './geometry.js';

/** A thread's share: chunks first, first + step, … of `chunk` files each. */
export interface ReadWorkerData {
  paths: string[];
  first: number;
  step: number;
  chunk: number;
}

/** An error as it crosses threads (structured clone keeps neither its class nor its own fields). */
export interface ClonedError {
  name: string;
  message: string;
  exitCode?: number;
  file?: string;
}

export type ReadWorkerResult = { index: number; geometry: Geometry } | { index: number; error: ClonedError };
