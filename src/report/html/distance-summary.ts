// What a report plots of one direction's distances: a fine histogram over [0, max] (the page groups its bins
// for the bar chart and adds them up for the cumulative distribution), and the values it marks.
import { percentile } from '../../metrics/order-statistics.js';
import type { DistanceSummary } from './page-data.js';

export type { DistanceSummary } from './page-data.js';


/** Fine enough for a smooth cumulative curve, and a multiple of the bar chart's 64 bins. */
export const FINE_BINS = 512;

export function summarizeDistances(distances: Float64Array): DistanceSummary {
  const n = distances.length;
  let max = 0, sum = 0;
  for (let i = 0; i < n; i++) {
    const d = distances[i];
    if (d > max) max = d;
    sum += d;
  }
  const bins = new Array<number>(FINE_BINS).fill(0);
  const scale = max > 0 ? FINE_BINS / max : 0;
  for (let i = 0; i < n; i++) bins[Math.min(FINE_BINS - 1, Math.floor(distances[i] * scale))]++;
  return { count: n, max, mean: n > 0 ? sum / n : 0, p95: n > 0 ? percentile(95, distances) : 0, bins };
}
