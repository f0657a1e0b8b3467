// The human-readable lines of the per-point distance statistics.
import type { ChalkInstance } from 'chalk';

import type { DistanceStats } from '../metrics/distance-stats.js';
import { formatDistance } from './format.js';

export function statsLines(s: DistanceStats, c: ChalkInstance): string[] {
  const lines: string[] = [];
  const row = (label: string, value: number, detail = '') => `  ${label.padEnd(22)} ${formatDistance(value).padEnd(16)} ${c.dim(detail)}`;
  if (s.percentile) {
    const { p, variant, value } = s.percentile;
    const parts = variant !== 'pooled' && s.ba ? `A → B ${formatDistance(s.ab.percentile!)} · B → A ${formatDistance(s.ba.percentile!)} · ` : '';
    lines.push(row(`HD${p}`, value, `${parts}${variant}, ${variant === 'surfel' ? 'area-weighted (DeepMind)' : 'linear interpolation'}`));
  }
  const directed = (label: string, d: DistanceStats['ab']) => `${label} mean ${formatDistance(d.mean)} rms ${formatDistance(d.rms)}`;
  lines.push(row(s.ba ? 'ASSD' : 'mean A → B', s.assd, s.ba ? `${s.assdVariant} · ${directed('A → B', s.ab)} · ${directed('B → A', s.ba)}` : ''));
  if (s.surfel) {
    const sf = s.surfel;
    lines.push(`  ${'surfels'.padEnd(22)} ${c.dim(`A ${sf.count.a} (${formatDistance(sf.area.a)} area) · B ${sf.count.b} (${formatDistance(sf.area.b)} area) · area-weighted mean A → B ${formatDistance(sf.meanAb)}${sf.meanBa === null ? '' : ` · B → A ${formatDistance(sf.meanBa)}`}`)}`);
  }
  lines.push(row('RMS', s.rms, s.ba ? 'both directions pooled' : ''));
  lines.push(row('Chamfer (squared)', s.chamferSqMean, `mean A → B + mean B → A of d² · sum ${formatDistance(s.chamferSqSum)}`));
  return lines;
}
