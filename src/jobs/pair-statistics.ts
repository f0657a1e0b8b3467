// The statistics of a pair's per-point distances and the NSD / F-score report, computed where the distances are
// measured, in the search's own native call (xhd_points_compare_stats): the CPU library on every core or the GPU
// (the same bits as src/metrics), the voxel variant's counts within each τ with them; the surfel variant's area
// weights in TypeScript. One path for a compare and for each label or lesion of a --labels / --components run.
import type { NativeStats } from '../ops/distance-stats-native.js';
import type { SearchStats } from '../ops/points-search.js';
import type { DistanceStats, SurfelDistances } from '../metrics/distance-stats.js';
import type { ToleranceReport } from '../metrics/surface-tolerance.js';
import { wantsStats, type CompareOptions } from './compare-result.js';
import { countsTolerance, distinctTaus, toleranceReport, toleranceReportFromCounts, wantsTolerance } from './surface-metrics.js';

export interface PairStatistics {
  stats: DistanceStats | null;
  tolerance: ToleranceReport | null;
}

/**
 * The statistics a pair's search is to bring along (pointsSearch's `stats`: the distances summed up where they were
 * measured, in the same native call), or undefined when none are wanted. directed: A's distances alone, which
 * have no NSD. surfels: the surfel variants' distances, measured before the search.
 */
export function searchStatistics(options: CompareOptions, directed: boolean, surfels: SurfelDistances | null): SearchStats | undefined {
  const counted = !directed && countsTolerance(options);
  if (!wantsStats(options) && !counted) return undefined;
  return { options, tolerances: counted ? distinctTaus(options) : undefined, surfels };
}

/** The pair's statistics from a search asked for searchStatistics(options, …); totals: each side's point count. */
export function statisticsOfSearch(native: NativeStats | null, options: CompareOptions, totals: { a: number; b: number },
                                   surfels: SurfelDistances | null): PairStatistics {
  const stats = native && wantsStats(options) ? native.stats : null;
  if (native?.within) return { stats, tolerance: toleranceReportFromCounts(options, native.within, totals) };
  // Not counted: no tolerance asked, or the surfel variant, which weighs the surfels' own distances.
  if (wantsTolerance(options) && (options.nsdVariant ?? 'voxel') !== 'surfel') {
    throw new Error('the voxel NSD is counted by the search (both directions measured)');
  }
  const none = new Float64Array(0);
  return { stats, tolerance: toleranceReport(options, none, none, surfels) };
}
