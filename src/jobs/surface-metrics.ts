// The segmentation metrics that read per-point distances beyond the Hausdorff distance: NSD and F-score at
// each asked tolerance (--nsd, --fscore; voxel or surfel variant), and the distances measured from surface
// elements that the surfel variants (--nsd-variant, --percentile-variant, --assd-variant surfel) need.
import { UsageError } from '../core/errors.js';
import { pointsSearch } from '../ops/points-search.js';
import { toleranceValues, toleranceValuesOf, uniformToleranceValues, type ToleranceReport, type ToleranceValues } from '../metrics/surface-tolerance.js';
import { wantsSurfels, type SurfelDistances } from '../metrics/distance-stats.js';
import { wantsStats, type CompareOptions } from './compare-result.js';

export function wantsTolerance(options: Pick<CompareOptions, 'nsd' | 'fscore'>): boolean {
  return (options.nsd?.length ?? 0) + (options.fscore?.length ?? 0) > 0;
}

/** Whether the surfel variants are asked for (of NSD/F-score, the percentile or ASSD). */
export function wantsSurfelDistances(options: CompareOptions): boolean {
  return (wantsTolerance(options) && options.nsdVariant === 'surfel') || (wantsStats(options) && wantsSurfels(options));
}

/** --nsd and --fscore measure both directions: refused with --directed, said before any work. */
export function checkToleranceOptions(options: CompareOptions): void {
  if (wantsTolerance(options) && options.directed) {
    throw new UsageError('--nsd and --fscore compare both surfaces with each other; they do not apply with --directed');
  }
  if (wantsSurfelDistances(options) && options.directed) {
    throw new UsageError('the surfel variants weigh both surfaces; they do not apply with --directed');
  }
}

/** Every τ of --nsd and --fscore once, in the order first given. */
export function distinctTaus(options: CompareOptions): number[] {
  return [...new Set([...(options.nsd ?? []), ...(options.fscore ?? [])])];
}

function report(options: CompareOptions, values: ToleranceValues[]): ToleranceReport {
  return { variant: options.nsdVariant ?? 'voxel', nsdTaus: [...new Set(options.nsd ?? [])], fscoreTaus: [...new Set(options.fscore ?? [])], values };
}

/** NSD and F-score at every τ asked for, from the points' distances (voxel) or the surfels' (surfel); null when none asked. */
export function toleranceReport(options: CompareOptions, ab: Float64Array, ba: Float64Array, surfels: SurfelDistances | null): ToleranceReport | null {
  if (!wantsTolerance(options)) return null;
  const surfel = (options.nsdVariant ?? 'voxel') === 'surfel';
  if (surfel && !surfels) throw new Error('the surfel NSD needs distances measured from surface elements');
  const values = distinctTaus(options).map((tau) => (surfel
    ? toleranceValues(tau, surfels!.ab, surfels!.ba!, surfels!.areasA, surfels!.areasB)
    : toleranceValues(tau, ab, ba)));
  return report(options, values);
}

/**
 * The voxel variant's report from counts of each side's points within each τ of distinctTaus(options), as
 * xhd_distance_stats counts them where the distances were measured; totals: each side's number of points.
 */
export function toleranceReportFromCounts(options: CompareOptions, within: { ab: number[]; ba: number[] },
                                          totals: { a: number; b: number }): ToleranceReport {
  const values = distinctTaus(options).map((tau, t) =>
    toleranceValuesOf(tau, { near: within.ab[t], total: totals.a }, { near: within.ba[t], total: totals.b }));
  return report(options, values);
}

/** Whether the tolerance report can come from native counts: the voxel variant (every point weighs 1). */
export function countsTolerance(options: CompareOptions): boolean {
  return wantsTolerance(options) && (options.nsdVariant ?? 'voxel') === 'voxel';
}

/** Every distance taken to be `value` (an empty input): see uniformToleranceValues. */
export function uniformToleranceReport(options: CompareOptions, value: number): ToleranceReport | null {
  if (!wantsTolerance(options)) return null;
  return report(options, distinctTaus(options).map((tau) => uniformToleranceValues(tau, value)));
}

/** Each surfel's distance to the other mask's surfels, both ways, in one native search (the backend chosen). */
export async function surfelDistances(a: { positions: Float64Array; areas: Float64Array }, b: { positions: Float64Array; areas: Float64Array },
                                      options: CompareOptions): Promise<SurfelDistances> {
  const result = await pointsSearch(a.positions, b.positions, {
    method: options.method, directed: false, backend: options.backend, device: options.device, threads: options.threads,
    seed: options.seed, signal: options.signal, distances: true,
    distinct: true, // one surfel a neighbourhood of the grid, at its own place: no copies to look for
  });
  return { ab: result.perPoint!.ab.distances!, ba: result.perPoint!.ba!.distances!, areasA: a.areas, areasB: b.areas };
}
