// What a comparison reports when an input has no points (--empty). Distances to or from an empty set are
// undefined, so the value is a policy: an error, NaN, infinity, or segmentation challenges' convention
// (both empty: 0, a perfect match; one empty: the volume's diagonal, the worst distance possible there).
import { InputError } from '../core/errors.js';
import { boundsDiagonal, type Geometry } from '../io/geometry.js';
import { volumeDiagonal } from '../io/voxel-mask.js';
import type { DistanceStats, StatsOptions } from '../metrics/distance-stats.js';

export const EMPTY_POLICIES = ['error', 'nan', 'inf', 'zero-or-diagonal'] as const;
export type EmptyPolicy = (typeof EMPTY_POLICIES)[number];

export interface EmptyOutcome {
  a: boolean;
  b: boolean;
  policy: EmptyPolicy;
  /** The value every distance takes. */
  value: number;
}

/**
 * null when neither input is empty. The default policy is zero-or-diagonal when every empty input is a
 * voxel mask (an empty segmentation is an answer) and error otherwise (an empty file is usually a mistake).
 */
export function emptyOutcome(pathA: string, a: Geometry, pathB: string, b: Geometry, policy: EmptyPolicy | undefined): EmptyOutcome | null {
  const emptyA = a.count === 0, emptyB = b.count === 0;
  if (!emptyA && !emptyB) return null;
  const masksOnly = (!emptyA || a.grid !== undefined) && (!emptyB || b.grid !== undefined);
  const chosen = policy ?? (masksOnly ? 'zero-or-diagonal' : 'error');
  if (chosen === 'error') {
    throw new InputError(emptyA ? pathA : pathB, {}, 'has no points (--empty nan|inf|zero-or-diagonal reports a value instead)');
  }
  const value = chosen === 'nan' ? NaN : chosen === 'inf' ? Infinity : emptyA && emptyB ? 0 : worstDistance(emptyA ? b : a, [a, b]);
  return { a: emptyA, b: emptyB, policy: chosen, value };
}

/** The volume diagonal of the masks (the larger), else the bounding-box diagonal of the set that has points. */
function worstDistance(filled: Geometry, both: Geometry[]): number {
  const grids = both.flatMap((g) => (g.grid ? [g.grid] : []));
  if (grids.length > 0) return Math.max(...grids.map((grid) => volumeDiagonal(grid)));
  return boundsDiagonal(filled.bounds);
}

/** The statistics when every distance is taken to be `value` (squared for the Chamfer sums and means). */
export function uniformStats(value: number, countA: number, countB: number | null, options: StatsOptions): DistanceStats {
  const directed = (count: number) => ({ count, max: value, mean: value, rms: value, sqSum: value * value, sqMean: value * value, percentile: options.percentile === undefined ? null : value });
  const p = options.percentile;
  return {
    ab: directed(countA),
    ba: countB === null ? null : directed(countB),
    percentile: p === undefined ? null : { p, variant: options.percentileVariant ?? 'max-of-directed', value },
    assd: value,
    assdVariant: options.assdVariant ?? 'mean-of-means',
    rms: value,
    chamferSqSum: value * value,
    chamferSqMean: value * value,
    surfel: null,
  };
}
