// The statistics segmentation and mesh users ask of per-point distances, each direction's distances
// being those from every point of one set to its nearest point of the other. Where tools disagree on a
// definition, both are offered and the result names the one used.

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

function directed(distances: Float64Array, p: number | undefined): DirectedStats {
  let max = -Infinity, sum = 0, sq = 0;
  for (let i = 0; i < distances.length; i++) {
    const d = distances[i];
    if (d > max) max = d;
    sum += d;
    sq += d * d;
  }
  const n = distances.length;
  return { count: n, max, mean: sum / n, rms: Math.sqrt(sq / n), sqSum: sq, sqMean: sq / n, percentile: p === undefined ? null : percentile(p, distances) };
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
  const variant = options.percentileVariant ?? 'max-of-directed';
  const assdVariant = options.assdVariant ?? 'mean-of-means';
  if (wantsSurfels(options) && !surfels) throw new Error('the surfel variants need distances measured from surface elements');
  const p = options.percentile;
  const sAb = directed(ab, variant === 'max-of-directed' ? p : undefined);
  const sBa = ba ? directed(ba, variant === 'max-of-directed' ? p : undefined) : null;
  if (variant === 'surfel' && p !== undefined) {
    sAb.percentile = weightedPercentile(p, surfels!.ab, surfels!.areasA);
    if (sBa) sBa.percentile = weightedPercentile(p, surfels!.ba!, surfels!.areasB);
  }
  let value: number | null = null;
  if (p !== undefined) value = variant === 'pooled' ? percentile(p, ab, ...(ba ? [ba] : [])) : Math.max(sAb.percentile!, sBa?.percentile ?? -Infinity);
  const n = sAb.count + (sBa?.count ?? 0);
  const sum = sAb.mean * sAb.count + (sBa ? sBa.mean * sBa.count : 0);
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
