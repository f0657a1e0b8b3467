// The numbers a comparison reports, by the key they have in the JSON output (hd, hd95, assd, nsd_1, …): what
// dataset summaries (xhd batch --summary) and lesion-wise averages are taken over.
import { percentileKey, type DistanceStats } from '../metrics/distance-stats.js';
import { toleranceKey } from '../metrics/surface-tolerance.js';
import type { ToleranceReport } from '../metrics/surface-tolerance.js';

export interface MeasuredValues {
  hd: number;
  hdAb: number;
  hdBa: number | null;
  stats: DistanceStats | null;
  tolerance: ToleranceReport | null;
}

/** [key, value] for every scalar metric measured, in the JSON's order. */
export function metricValues(m: MeasuredValues): [string, number][] {
  const out: [string, number][] = [['hd', m.hd], ['hd_ab', m.hdAb]];
  if (m.hdBa !== null) out.push(['hd_ba', m.hdBa]);
  const s = m.stats;
  if (s) {
    if (s.percentile) out.push([percentileKey(s.percentile.p), s.percentile.value]);
    out.push(['mean_ab', s.ab.mean]);
    if (s.ba) out.push(['mean_ba', s.ba.mean]);
    out.push(['assd', s.assd], ['rms', s.rms]);
  }
  const t = m.tolerance;
  if (t) {
    const at = (tau: number) => t.values.find((v) => v.tau === tau)!;
    for (const tau of t.nsdTaus) out.push([toleranceKey('nsd', tau), at(tau).nsd]);
    for (const tau of t.fscoreTaus) out.push([toleranceKey('fscore', tau), at(tau).fscore]);
  }
  return out;
}
