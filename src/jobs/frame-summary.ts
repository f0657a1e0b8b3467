// The summary of a --frames run: how long the queries took, and the extremes of the distances over the frames.
import type { DistanceContacts, DistancePair, DistancePenetration } from '../ops/mesh-distance.js';

export interface FrameOutcome {
  /** 0-based position among the frames. */
  frame: number;
  /** 1-based line of the frames file (0 for a single pose given on the command line). */
  line: number;
  min: DistancePair | null;
  max: DistancePair | null;
  /** With contacts asked for: the frame's triangle pairs at distance 0, counted and bounded. */
  contacts?: DistanceContacts | null;
  /** With penetration asked for: the frame's solids and depth bounds. */
  penetration?: DistancePenetration | null;
  queryMs: number;
  uploadMs: number;
  downloadMs: number;
}

export interface FramesSummary {
  frames: number;
  queryMs: { mean: number; p50: number; p95: number; max: number };
  /** The smallest minimum distance over the frames and the first frame that has it (null when not asked for). */
  min: { distance: number; frame: number } | null;
  /** The largest maximum distance over the frames and the first frame that has it. */
  max: { distance: number; frame: number } | null;
}

/** The nearest-rank percentile: the smallest value with at least p% of the values at or below it. */
export function percentile(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

function extreme(frames: FrameOutcome[], which: 'min' | 'max'): { distance: number; frame: number } | null {
  let best: { distance: number; frame: number } | null = null;
  for (const f of frames) {
    const d = f[which]?.distance;
    if (d === undefined) continue;
    if (!best || (which === 'min' ? d < best.distance : d > best.distance)) best = { distance: d, frame: f.frame };
  }
  return best;
}

export function summarizeFrames(frames: FrameOutcome[]): FramesSummary {
  const times = frames.map((f) => f.queryMs).sort((x, y) => x - y);
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  return {
    frames: frames.length,
    queryMs: { mean, p50: percentile(times, 50), p95: percentile(times, 95), max: times[times.length - 1] },
    min: extreme(frames, 'min'),
    max: extreme(frames, 'max'),
  };
}
