// --relative: every distance also as a percentage of a stated bounding-box diagonal (both inputs', A's
// or B's), for comparing results across shapes of different sizes. Squared quantities (Chamfer, E) are
// left out: a percentage of a length says nothing about a squared length.
import type { DistanceStats } from './distance-stats.js';
import { percentileKey } from './distance-stats.js';

export const RELATIVE_BASES = ['union', 'a', 'b'] as const;
export type RelativeBasis = (typeof RELATIVE_BASES)[number];

export interface RelativeValues {
  basis: RelativeBasis;
  /** The diagonal's length. */
  diagonal: number;
  /** Percentages of it, keyed as in the JSON report (null where the distance is absent or the diagonal 0). */
  percent: Record<string, number | null>;
}

/** The distances a comparison measured, by their JSON keys. */
export interface MeasuredDistances {
  hd: number;
  hdAb: number;
  hdBa: number | null;
  stats: DistanceStats | null;
  /** Surface mode's per-direction means, RMS and minima. */
  surface: { ab: { mean: number; rms: number; min: number }; ba: { mean: number; rms: number; min: number } | null } | null;
}

export function relativeValues(basis: RelativeBasis, diagonal: number, m: MeasuredDistances): RelativeValues {
  const pct = (v: number | null | undefined) => (v === null || v === undefined || !(diagonal > 0) ? null : (100 * v) / diagonal);
  const percent: Record<string, number | null> = { hd: pct(m.hd), hd_ab: pct(m.hdAb), hd_ba: pct(m.hdBa) };
  const s = m.stats;
  if (s) {
    if (s.percentile) {
      const key = percentileKey(s.percentile.p);
      percent[key] = pct(s.percentile.value);
      if (s.percentile.variant === 'max-of-directed') {
        percent[`${key}_ab`] = pct(s.ab.percentile);
        percent[`${key}_ba`] = pct(s.ba?.percentile);
      }
    }
    Object.assign(percent, { mean_ab: pct(s.ab.mean), mean_ba: pct(s.ba?.mean), assd: pct(s.assd), rms_ab: pct(s.ab.rms), rms_ba: pct(s.ba?.rms), rms: pct(s.rms) });
  } else if (m.surface) {
    const { ab, ba } = m.surface;
    Object.assign(percent, { mean_ab: pct(ab.mean), mean_ba: pct(ba?.mean), rms_ab: pct(ab.rms), rms_ba: pct(ba?.rms) });
  }
  if (m.surface) Object.assign(percent, { min_ab: pct(m.surface.ab.min), min_ba: pct(m.surface.ba?.min) });
  return { basis, diagonal, percent };
}

/** The JSON key of the percentages, naming their diagonal: percent_of_union_diagonal, percent_of_a_diagonal… */
export function relativeKey(basis: RelativeBasis): string {
  return `percent_of_${basis}_diagonal`;
}
