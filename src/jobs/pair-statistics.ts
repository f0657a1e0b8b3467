// The statistics of a pair's per-point distances and the NSD / F-score report, where the distances were measured:
// the CPU library on every core or the GPU (the same bits as src/metrics), the voxel variant's counts within each τ
// in the same call; the surfel variant's area weights in TypeScript. One path for a compare and for each label or
// lesion of a --labels / --components run.
import { nativeDistanceStats, type NativeStatsRun } from '../ops/distance-stats-native.js';
import type { DistanceStats, SurfelDistances } from '../metrics/distance-stats.js';
import type { ToleranceReport } from '../metrics/surface-tolerance.js';
import { wantsStats, type CompareOptions } from './compare-result.js';
import { countsTolerance, distinctTaus, toleranceReport, toleranceReportFromCounts } from './surface-metrics.js';

export interface PairStatistics {
  stats: DistanceStats | null;
  tolerance: ToleranceReport | null;
}

/** ab: A's points' distances to B; ba: the reverse (null for a directed compare, which has no NSD). */
export async function pairStatistics(ab: Float64Array, ba: Float64Array | null, options: CompareOptions, run: NativeStatsRun,
                                     surfels: SurfelDistances | null): Promise<PairStatistics> {
  const counted = ba !== null && countsTolerance(options);
  const native = wantsStats(options) || counted
    ? await nativeDistanceStats(ab, ba, options, { ...run, tolerances: counted ? distinctTaus(options) : undefined }, surfels)
    : null;
  const tolerance = counted
    ? toleranceReportFromCounts(options, native!.within!, { a: ab.length, b: ba.length })
    : toleranceReport(options, ab, ba ?? new Float64Array(0), surfels);
  return { stats: native && wantsStats(options) ? native.stats : null, tolerance };
}
