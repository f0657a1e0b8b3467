// What measuring one side (ours CPU, ours GPU, FCL) on one scene yields, and its per-frame statistics.
import type { Outcome } from './methods.js';

type Done = Extract<Outcome, { kind: 'done' }>;

/** The frames a side finished: its own time for each query (ms) and the distance it found. */
export interface Frames {
  frameMs: number[];
  distances: number[];
}

/**
 * A finished measurement. From Outcome: ms is the mean time per frame, hd the first frame's distance,
 * runs the frame count, wallMs the whole measurement (build and every frame).
 */
export interface DistanceDone extends Done, Frames {
  buildMs: number;
  /** Extra per-side facts for the details table (names with units). */
  details: Record<string, number>;
}

export type DistanceOutcome =
  | DistanceDone
  | ({ kind: 'timeout'; buildMs?: number } & Frames)
  | { kind: 'skipped'; why: string }
  | { kind: 'failed'; why: string };

/** The finished outcome of a side that measured `frames` frames after a build of buildMs. */
export function doneOutcome(frames: Frames, buildMs: number, wallMs: number, details: Record<string, number>, childCpuS?: number): DistanceDone {
  return {
    kind: 'done', ms: mean(frames.frameMs), wallMs, hd: frames.distances[0], runs: frames.frameMs.length,
    childCpuS, buildMs, ...frames, details,
  };
}

export const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;

/** The p-th percentile by nearest rank (p in (0, 100]). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}
