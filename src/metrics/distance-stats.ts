// The statistics segmentation and mesh users ask of per-point distances, each direction's distances
// being those from every point of one set to its nearest point of the other. Where tools disagree on a
// definition, both are offered and the result names the one used.

import { exactSum, exactSumOfSquares } from './exact-sum.js';
import { percentile } from './order-statistics.js';
import { weightedMean, weightedPercentile } from './surfel-weighted.js';

/**
 * max-of-directed: the percentile of each direction, then the larger (MONAI). pooled: of both directions'
 * distances together (medpy). surfel: each direction's area-weighted percentile over surface elements, then
 * the larger (DeepMind's compute_robust_hausdorff; masks only).
 */
export const PERCENTILE_VARIANTS = ['max-of-directed', 'pooled', 'surfel'] as const;
export type PercentileVariant = (typeof PERCENTILE_VARIANTS)[number];

/**
 * mean-of-means: (mean A→B + mean B→A) / 2. pooled: every distance of both directions averaged together.
 * surfel: the mean of the two area-weighted directed means over surface elements (DeepMind's
 * compute_average_surface_distance; masks only).
 */
export const ASSD_VARIANTS = ['mean-of-means', 'pooled', 'surfel'] as const;
export type AssdVariant = (typeof ASSD_VARIANTS)[number];

export interface DirectedStats {
  count: number;
  max: number;
  mean: number;
  /** Root of the mean squared distance. */
  rms: number;
  /** Sum and mean of squared distances. */
  sqSum: number;
  sqMean: number;
  /** Percentile of this direction's distances, when one was asked for. */
  percentile: number | null;
}

export interface DistanceStats {
  ab: DirectedStats;
  ba: DirectedStats | null;
  /** The percentile asked for (e.g. 95), its variant and its value (for directed runs: A → B's). */
  percentile: { p: number; variant: PercentileVariant; value: number } | null;
  assd: number;
  assdVariant: AssdVariant;
  /** Root mean square over both directions' distances pooled (A → B's alone when directed). */
  rms: number;
  /** Chamfer distance with squared distances: the two directions' sums added, and their means added (PyTorch3D's). */
  chamferSqSum: number;
  chamferSqMean: number;
  /** With a surfel variant: the surface elements' area-weighted means, counts and total areas. */
  surfel: SurfelStats | null;
}

export interface SurfelStats {
  meanAb: number;
  meanBa: number | null;
  count: { a: number; b: number };
  area: { a: number; b: number };
}

/** Each direction's distances measured from surface elements, and each element's area. */
export interface SurfelDistances {
  ab: Float64Array;
  ba: Float64Array | null;
  areasA: Float64Array;
  areasB: Float64Array;
}

export interface StatsOptions {
  percentile?: number;
  percentileVariant?: PercentileVariant;
  assdVariant?: AssdVariant;
}

/**
 * One direction's distances summed up, from which its statistics follow: the maximum, the exact sums of the
 * distances and of their squares (each rounded once, src/metrics/exact-sum.ts) and the percentile when asked for.
 * The native libraries' xhd_distance_stats returns the same numbers bit for bit.
 */
export interface DirectedSums {
  count: number;
  max: number;
  sum: number;
  sqSum: number;
  percentile: number | null;
}

/** What statsFromSums needs: each direction's sums and, for the pooled variant, the pooled percentile. */
export interface StatsSums {
  ab: DirectedSums;
  ba: DirectedSums | null;
  pooledPercentile: number | null;
}

export function directedSums(distances: Float64Array, p: number | undefined): DirectedSums {
  let max = -Infinity;
  for (let i = 0; i < distances.length; i++) if (distances[i] > max) max = distances[i];
  return {
    count: distances.length, max, sum: exactSum(distances), sqSum: exactSumOfSquares(distances),
    percentile: p === undefined ? null : percentile(p, distances),
  };
}

/** The percentiles a request needs: each direction's (max-of-directed) or the pooled one. */
export function percentilesWanted(options: StatsOptions): { directed: number | undefined; pooled: number | undefined } {
  const variant = options.percentileVariant ?? 'max-of-directed';
  const p = options.percentile;
  return { directed: variant === 'max-of-directed' ? p : undefined, pooled: variant === 'pooled' ? p : undefined };
}

/** Whether these options ask for distances measured from surface elements. */
export function wantsSurfels(options: StatsOptions): boolean {
  return (options.percentileVariant === 'surfel' && options.percentile !== undefined) || options.assdVariant === 'surfel';
}

/**
 * ab: each point of A's distance to B; ba: the reverse, or null for a directed comparison. surfels: the
 * same from surface elements, needed by (and only used for) the surfel variants.
 */
export function distanceStats(ab: Float64Array, ba: Float64Array | null, options: StatsOptions = {}, surfels: SurfelDistances | null = null): DistanceStats {
  const wanted = percentilesWanted(options);
  return statsFromSums({
    ab: directedSums(ab, wanted.directed),
    ba: ba ? directedSums(ba, wanted.directed) : null,
    pooledPercentile: wanted.pooled === undefined ? null : percentile(wanted.pooled, ab, ...(ba ? [ba] : [])),
  }, options, surfels);
}

function directedFromSums(s: DirectedSums): DirectedStats {
  const n = s.count;
  return { count: n, max: s.max, mean: s.sum / n, rms: Math.sqrt(s.sqSum / n), sqSum: s.sqSum, sqMean: s.sqSum / n, percentile: s.percentile };
}

/**
 * The statistics from each direction's sums, whichever computed them (TypeScript or a native library); the
 * surfel variants' percentiles and means from the surface elements' distances (TypeScript).
 */
export function statsFromSums(sums: StatsSums, options: StatsOptions = {}, surfels: SurfelDistances | null = null): DistanceStats {
  const variant = options.percentileVariant ?? 'max-of-directed';
  const assdVariant = options.assdVariant ?? 'mean-of-means';
  if (wantsSurfels(options) && !surfels) throw new Error('the surfel variants need distances measured from surface elements');
  const p = options.percentile;
  const sAb = directedFromSums(sums.ab);
  const sBa = sums.ba ? directedFromSums(sums.ba) : null;
  if (variant === 'surfel' && p !== undefined) {
    sAb.percentile = weightedPercentile(p, surfels!.ab, surfels!.areasA);
    if (sBa) sBa.percentile = weightedPercentile(p, surfels!.ba!, surfels!.areasB);
  }
  let value: number | null = null;
  if (p !== undefined) value = variant === 'pooled' ? sums.pooledPercentile! : Math.max(sAb.percentile!, sBa?.percentile ?? -Infinity);
  const n = sAb.count + (sBa?.count ?? 0);
  const sum = sums.ab.sum + (sums.ba?.sum ?? 0);
  const sqSum = sAb.sqSum + (sBa?.sqSum ?? 0);
  const surfel = surfels ? surfelStats(surfels) : null;
  return {
    ab: sAb,
    ba: sBa,
    percentile: p === undefined ? null : { p, variant, value: value! },
    assd: assdVariant === 'surfel' ? (surfel!.meanBa === null ? surfel!.meanAb : (surfel!.meanAb + surfel!.meanBa) / 2)
      : !sBa ? sAb.mean : assdVariant === 'pooled' ? sum / n : (sAb.mean + sBa.mean) / 2,
    assdVariant,
    surfel,
    rms: Math.sqrt(sqSum / n),
    chamferSqSum: sqSum,
    chamferSqMean: sAb.sqMean + (sBa ? sBa.sqMean : 0),
  };
}

function surfelStats(s: SurfelDistances): SurfelStats {
  const total = (x: Float64Array) => x.reduce((sum, v) => sum + v, 0);
  return {
    meanAb: weightedMean(s.ab, s.areasA),
    meanBa: s.ba ? weightedMean(s.ba, s.areasB) : null,
    count: { a: s.areasA.length, b: s.areasB.length },
    area: { a: total(s.areasA), b: total(s.areasB) },
  };
}

/** The JSON key of a percentile HD: hd95 for 95, else hd_p<P> (hd_p99, hd_p99.5). */
/** hd95, or hd_p<p> with any decimal point as an underscore (hd_p99_5): a key jq can address as .hd_p99_5. */
export function percentileKey(p: number): string {
  return p === 95 ? 'hd95' : `hd_p${String(p).replace('.', '_')}`;
}

/** The key fractional percentiles had before (hd_p99.5), kept beside the new one for a version. */
export function legacyPercentileKey(p: number): string | null {
  return Number.isInteger(p) ? null : `hd_p${p}`;
}
