// The human-readable report of `xhd compare --labels`: one line per label (HD, and what else was measured),
// then the inputs, the lesion counts with --components, the timings and the notes.
import type { ChalkInstance } from 'chalk';

import type { LabelsResult } from '../jobs/compare-labels.js';
import { metricValues } from '../jobs/metric-values.js';
import { formatDistance, formatMs } from './format.js';

function value(v: number): string {
  return Number.isNaN(v) ? 'nan' : formatDistance(v);
}

export function renderLabelsText(r: LabelsResult, c: ChalkInstance): string {
  const lines: string[] = [c.bold(`${r.labels.length} label${r.labels.length === 1 ? '' : 's'} compared`)];
  for (const l of r.labels) {
    const values = metricValues(l).filter(([key]) => key !== 'hd_ab' && key !== 'hd_ba' && key !== 'mean_ab' && key !== 'mean_ba');
    const shown = values.map(([key, v]) => `${c.dim(key)} ${value(v)}`).join('  ');
    const empty = l.empty ? c.yellow(`  (${l.empty.a && l.empty.b ? 'both' : l.empty.a ? 'A' : 'B'} empty: --empty ${l.empty.policy})`) : '';
    lines.push(`  ${c.bold(`label ${l.label}`.padEnd(16))} ${shown}${empty}`);
    if (l.lesions) {
      const k = l.lesions.counts;
      const means = l.lesions.lesionWise.map(([key, v]) => `${key} ${value(v)}`).join(' · ');
      lines.push(c.dim(`  ${''.padEnd(16)} lesions ${k.lesions} (${k.truePositives} found, ${k.falseNegatives} missed, ${k.leftOut} left out) · false positives ${k.falsePositives} · lesion-wise ${means}`));
    }
  }
  lines.push('', `  A  ${r.a.path}  ${r.a.dims.join('×')}`, `  B  ${r.b.path}  ${r.b.dims.join('×')}`);
  const t = r.timingsMs;
  lines.push(`  method ${r.method} · backend ${r.backend} · ${r.threads} thread${r.threads === 1 ? '' : 's'}`);
  lines.push(`  time   read ${formatMs(t.read)} · surfaces ${formatMs(t.surfaces)} · measure ${formatMs(t.measure)} · total ${formatMs(t.total)}`);
  for (const n of r.notes) lines.push(c.yellow(`  note   ${n}`));
  return lines.join('\n') + '\n';
}
