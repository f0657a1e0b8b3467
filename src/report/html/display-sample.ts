// Which points a report draws. A browser draws a few hundred thousand points smoothly and a report file
// should stay a few megabytes, so big inputs are thinned for display, but never their worst points: the
// largest distances are what the reader opens the report for. The statistics and plots use every point.

import { select } from '../../metrics/order-statistics.js';

export interface DisplaySample {
  /** Indices of the points drawn, ascending. */
  indices: Uint32Array;
  /** How many of them were kept for being among the largest distances. */
  worstKept: number;
}

/** Share of the display budget reserved for the largest distances. */
const WORST_SHARE = 0.05;

/**
 * At most `budget` indices of `distances`: all of them when they fit; else the ⌈5%⌉ of the budget with the
 * largest distances (ties to the smaller index) plus an even stride through the rest. Deterministic.
 */
export function displaySample(distances: Float64Array, budget: number): DisplaySample {
  const n = distances.length;
  if (n <= budget) return { indices: Uint32Array.from({ length: n }, (_, i) => i), worstKept: n };
  const worstCount = Math.min(budget, Math.max(1, Math.ceil(budget * WORST_SHARE)));
  const keep = new Uint8Array(n);
  for (const i of largestIndices(distances, worstCount)) keep[i] = 1;
  // The rest of the budget, spread evenly over the points not already kept.
  const others = n - worstCount, spare = budget - worstCount;
  let seen = 0, taken = 0;
  for (let i = 0; i < n && taken < spare; i++) {
    if (keep[i]) continue;
    // Take the point when it crosses the next multiple of others/spare: an even stride with no drift.
    if (Math.floor(((seen + 1) * spare) / others) > taken) {
      keep[i] = 1;
      taken++;
    }
    seen++;
  }
  const indices = new Uint32Array(worstCount + taken);
  for (let i = 0, k = 0; i < n; i++) if (keep[i]) indices[k++] = i;
  return { indices, worstKept: worstCount };
}

/**
 * The indices of the `count` largest distances, largest first (ties to the smaller index). A threshold
 * from a bounded pass keeps this linear for the small counts a report asks for.
 */
export function largestIndices(distances: Float64Array, count: number): number[] {
  const n = distances.length;
  count = Math.min(count, n);
  if (count === 0) return [];
  const threshold = kthLargest(distances, count);
  const above: number[] = [], at: number[] = [];
  for (let i = 0; i < n; i++) {
    const d = distances[i];
    if (d > threshold) above.push(i);
    else if (d === threshold && at.length < count) at.push(i);
  }
  const chosen = above.concat(at.slice(0, count - above.length));
  return chosen.sort((i, j) => distances[j] - distances[i] || i - j);
}

/** The k-th largest value (1-based), by the statistics' selection (metrics/order-statistics.ts) on a copy. */
function kthLargest(values: Float64Array, k: number): number {
  return select(values.slice(), values.length - k);
}
