// The JSON keys of NSD and F-score at each τ (--nsd, --fscore): nsd_<τ>, fscore_<τ> with its precision and
// recall, the variant named beside them (nsd_variant), as the percentile's is.
import { toleranceKey } from '../metrics/surface-tolerance.js';
import type { ToleranceReport } from '../metrics/surface-tolerance.js';

export function toleranceJson(t: ToleranceReport | null): Record<string, unknown> {
  if (!t) return {};
  const out: Record<string, unknown> = { nsd_variant: t.variant };
  const at = (tau: number) => t.values.find((v) => v.tau === tau)!;
  for (const tau of t.nsdTaus) out[toleranceKey('nsd', tau)] = at(tau).nsd;
  for (const tau of t.fscoreTaus) {
    const key = toleranceKey('fscore', tau), v = at(tau);
    out[key] = v.fscore;
    out[`${key}_precision`] = v.precision;
    out[`${key}_recall`] = v.recall;
  }
  return out;
}
