// What a report plots of one direction's distances: a fine histogram over [0, max] (the page groups its bins
// for the bar chart and adds them up for the cumulative distribution), and the values it marks. The marked mean
// and 95th percentile are the statistics of metrics/distance-stats.ts (the exact mean, the percentile as
// --percentile 95 gives it): the compare's own when it measured them, else one native statistics call.
import { directedSums, type DistanceStats } from '../../metrics/distance-stats.js';
import { nativeDistanceStats } from '../../ops/distance-stats-native.js';
import type { DistanceSummary } from './page-data.js';

export type { DistanceSummary } from './page-data.js';

/** Fine enough for a smooth cumulative curve, and a multiple of the bar chart's 64 bins. */
export const FINE_BINS = 512;

/** The values a direction's plots mark besides its maximum. */
export interface MarkedValues {
  mean: number;
  /** The 95th percentile (linear interpolation, as --percentile 95). */
  p95: number;
}

/** The largest distance (0 when there are none). */
export function largestDistance(distances: Float64Array): number {
  let max = 0;
  for (let i = 0; i < distances.length; i++) if (distances[i] > max) max = distances[i];
  return max;
}

/**
 * The direction's histogram and marks. marked: the mean and 95th percentile when the caller has them (reportMarks);
 * else they are computed here. max: the largest distance when the caller has it.
 */
export function summarizeDistances(distances: Float64Array, marked?: MarkedValues, max = largestDistance(distances)): DistanceSummary {
  const n = distances.length;
  const counts = new Uint32Array(FINE_BINS);
  const scale = max > 0 ? FINE_BINS / max : 0;
  for (let i = 0; i < n; i++) {
    const b = Math.floor(distances[i] * scale);
    if (b < FINE_BINS - 1) counts[b]++;
    else if (b >= FINE_BINS - 1) counts[FINE_BINS - 1]++; // max itself (NaN in neither)
  }
  const bins = Array.from(counts);
  if (n === 0) return { count: 0, max: 0, mean: 0, p95: 0, bins };
  const { mean, p95 } = marked ?? marksOf(distances);
  return { count: n, max, mean, p95, bins };
}

/** The TypeScript reference: the same bits as the native statistics (exact sum, order statistics). */
function marksOf(distances: Float64Array): MarkedValues {
  if (distances.length === 0) return { mean: 0, p95: 0 };
  const sums = directedSums(distances, 95);
  return { mean: sums.sum / sums.count, p95: sums.percentile! };
}

/** Whether the compare's statistics hold each direction's 95th percentile (--percentile 95, max-of-directed). */
function hasDirectedP95(stats: DistanceStats | null): stats is DistanceStats {
  return stats?.percentile?.p === 95 && stats.percentile.variant === 'max-of-directed' && stats.ab.percentile !== null;
}

/**
 * Each direction's marks: taken from the compare's statistics when they hold the 95th percentile (the JSON's
 * hd95), else from one call of the CPU library's statistics (falling back to TypeScript, the same bits, where the
 * library cannot be loaded) on one thread: it runs beside the report's own work on this one, which more threads
 * would slow. stats must be of these same distances.
 */
export async function reportMarks(ab: Float64Array, ba: Float64Array | null, stats: DistanceStats | null): Promise<{ ab: MarkedValues; ba: MarkedValues | null }> {
  if (hasDirectedP95(stats)) {
    return {
      ab: { mean: stats.ab.mean, p95: stats.ab.percentile! },
      ba: ba && stats.ba ? { mean: stats.ba.mean, p95: stats.ba.percentile! } : ba ? marksOf(ba) : null,
    };
  }
  let computed: DistanceStats;
  try {
    computed = (await nativeDistanceStats(ab, ba, { percentile: 95 }, { backend: 'cpu', threads: 1 })).stats;
  } catch {
    return { ab: marksOf(ab), ba: ba ? marksOf(ba) : null };
  }
  return {
    ab: { mean: computed.ab.mean, p95: computed.ab.percentile! },
    ba: computed.ba ? { mean: computed.ba.mean, p95: computed.ba.percentile! } : null,
  };
}
