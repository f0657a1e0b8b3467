// One pair of mask surfaces (a label's, or a lesion's) measured: the Hausdorff distance and, when asked, the
// statistics, NSD and F-score, by the same per-point search every compare uses (xhd_points_compare on the
// backend chosen); an empty side takes the --empty policy's value instead.
import { InputError } from '../core/errors.js';
import { pointsSearch, type PointsSearchResult } from '../ops/points-search.js';
import type { SurfelDistances } from '../metrics/distance-stats.js';
import { searchStatistics, statisticsOfSearch } from './pair-statistics.js';
import type { Surfels } from '../io/surfels.js';
import { uniformStats, type EmptyOutcome, type EmptyPolicy } from './empty-policy.js';
import { wantsPerPointDistances, wantsStats, type CompareOptions } from './compare-result.js';
import { surfelDistances, uniformToleranceReport, wantsSurfelDistances } from './surface-metrics.js';
import type { MeasuredValues } from './metric-values.js';

export interface PairMetrics extends MeasuredValues {
  empty: EmptyOutcome | null;
  points: { a: number; b: number };
}

export interface PairInput {
  /** Surface points of each side, x, y, z interleaved. */
  a: Float64Array;
  b: Float64Array;
  /** Each side's surfels, when a surfel variant is asked for. */
  surfels: { a: Surfels; b: Surfels } | null;
}

export interface EmptyRule {
  policy: EmptyPolicy | undefined;
  /** The worst distance possible: the volume diagonal of the masks. */
  diagonal: number;
  /** The file and what of it was empty ("label 3"), for the error that --empty error gives. */
  describe: (side: 'a' | 'b') => { file: string; what: string };
}

/** The --empty outcome of a pair with an empty side (null when neither is), default zero-or-diagonal (masks). */
export function maskEmptyOutcome(emptyA: boolean, emptyB: boolean, rule: EmptyRule): EmptyOutcome | null {
  if (!emptyA && !emptyB) return null;
  const policy = rule.policy ?? 'zero-or-diagonal';
  if (policy === 'error') {
    const { file, what } = rule.describe(emptyA ? 'a' : 'b');
    throw new InputError(file, {}, `${what} has no voxels (--empty nan|inf|zero-or-diagonal reports a value instead)`);
  }
  const value = policy === 'nan' ? NaN : policy === 'inf' ? Infinity : emptyA && emptyB ? 0 : rule.diagonal;
  return { a: emptyA, b: emptyB, policy, value };
}

/** What the native searches report about themselves: the first one's backend, method and threads. */
export type SearchInfo = Pick<PointsSearchResult, 'method' | 'backend' | 'threads' | 'device'>;

export async function measurePair(input: PairInput, options: CompareOptions, rule: EmptyRule,
                                  onSearch?: (info: SearchInfo) => void): Promise<PairMetrics> {
  const na = input.a.length / 3, nb = input.b.length / 3;
  const empty = maskEmptyOutcome(na === 0, nb === 0, rule);
  const points = { a: na, b: nb };
  if (empty) {
    const v = empty.value;
    return {
      hd: v, hdAb: v, hdBa: options.directed ? null : v, empty, points,
      stats: wantsStats(options) ? uniformStats(v, na, options.directed ? null : nb, options) : null,
      tolerance: uniformToleranceReport(options, v),
    };
  }
  const surfels: SurfelDistances | null = wantsSurfelDistances(options)
    ? await surfelDistances(input.surfels!.a, input.surfels!.b, options)
    : null;
  // The statistics come with the search, summed up where the distances were measured (on the GPU, no copy back).
  const result = await pointsSearch(input.a, input.b, {
    method: options.method, directed: options.directed, backend: options.backend, device: options.device,
    threads: options.threads, seed: options.seed, signal: options.signal,
    distinct: true, // voxel centres: no two of a mask's are equal, so the search need not look for copies
    stats: searchStatistics(options, options.directed === true, surfels),
  });
  onSearch?.(result);
  const { stats, tolerance } = wantsPerPointDistances(options)
    ? statisticsOfSearch(result.stats, options, points, surfels)
    : { stats: null, tolerance: null };
  return { hd: result.hd, hdAb: result.ab.distance, hdBa: result.ba ? result.ba.distance : null, empty, points, stats, tolerance };
}
