// The JSON keys of the per-point distance statistics (xhd compare --stats / --percentile). Squared
// quantities say so in their names (chamfer_sq_…); every variant used is named beside its value.
import type { DistanceStats } from '../metrics/distance-stats.js';
import { legacyPercentileKey, percentileKey } from '../metrics/distance-stats.js';

export function statsJson(s: DistanceStats | null) {
  if (!s) return {};
  const ab = s.ab, ba = s.ba;
  const out: Record<string, unknown> = {};
  if (s.percentile) {
    const key = percentileKey(s.percentile.p);
    out[key] = s.percentile.value;
    const legacy = legacyPercentileKey(s.percentile.p);
    if (legacy) out[legacy] = s.percentile.value; // deprecated: jq cannot address it; goes in a later version
    out.percentile = s.percentile.p;
    out.percentile_variant = s.percentile.variant;
    if (s.percentile.variant === 'max-of-directed') {
      out[`${key}_ab`] = ab.percentile;
      out[`${key}_ba`] = ba ? ba.percentile : null;
    }
  }
  Object.assign(out, {
    mean_ab: ab.mean,
    mean_ba: ba ? ba.mean : null,
    assd: s.assd,
    assd_variant: s.assdVariant,
    rms_ab: ab.rms,
    rms_ba: ba ? ba.rms : null,
    rms: s.rms,
    chamfer_sq_sum_ab: ab.sqSum,
    chamfer_sq_sum_ba: ba ? ba.sqSum : null,
    chamfer_sq_sum: s.chamferSqSum,
    chamfer_sq_mean_ab: ab.sqMean,
    chamfer_sq_mean_ba: ba ? ba.sqMean : null,
    chamfer_sq_mean: s.chamferSqMean,
    distances_measured: { a: ab.count, b: ba ? ba.count : null },
  });
  if (s.surfel) {
    // The surfel variants' own measurements: area-weighted means and the surface elements behind them.
    Object.assign(out, {
      surfel_mean_ab: s.surfel.meanAb,
      surfel_mean_ba: s.surfel.meanBa,
      surfels: { a: s.surfel.count.a, b: s.surfel.count.b },
      surfel_area: { a: s.surfel.area.a, b: s.surfel.area.b },
    });
  }
  return out;
}
