// --output csv with --labels: one RFC 4180 line per label, the columns depending only on the options (so runs
// with the same options line up); --csv-header prints their names first.
import type { LabelsResult, LabelResult } from '../jobs/compare-labels.js';
import { csvCell } from './compare-csv.js';
import { percentileKey } from '../metrics/distance-stats.js';
import { statsJson } from './stats-json.js';
import { toleranceJson } from './tolerance-json.js';

const STATS_KEYS = ['percentile_variant', 'mean_ab', 'mean_ba', 'assd', 'assd_variant', 'rms'];

function columns(r: LabelsResult, l: LabelResult): [string, unknown][] {
  const out: [string, unknown][] = [
    ['a', r.a.path], ['b', r.b.path], ['label', l.label], ['empty_a', l.empty?.a ?? false], ['empty_b', l.empty?.b ?? false],
    ['voxels_a', l.voxels.a], ['voxels_b', l.voxels.b], ['points_a', l.points.a], ['points_b', l.points.b],
    ['hd', l.hd], ['hd_ab', l.hdAb], ['hd_ba', l.hdBa],
  ];
  if (l.stats) {
    const stats = statsJson(l.stats);
    if (l.stats.percentile) out.push([percentileKey(l.stats.percentile.p), l.stats.percentile.value]);
    for (const key of STATS_KEYS) if (key in stats) out.push([key, stats[key]]);
  }
  for (const [key, value] of Object.entries(toleranceJson(l.tolerance))) out.push([key, value]);
  if (l.lesions) {
    const c = l.lesions.counts;
    out.push(['lesions', c.lesions], ['lesion_true_positives', c.truePositives], ['lesion_false_negatives', c.falseNegatives], ['lesion_false_positives', c.falsePositives]);
    for (const [key, value] of l.lesions.lesionWise) out.push([`lesion_wise_${key}`, value]);
  }
  out.push(['method', r.method], ['backend', r.backend], ['total_ms', r.timingsMs.total]);
  return out;
}

export function renderLabelsCsv(r: LabelsResult, header: boolean): string {
  const rows = r.labels.map((l) => columns(r, l));
  const lines = rows.map((cols) => cols.map(([, v]) => csvCell(v)).join(',') + '\n');
  if (header && rows.length > 0) lines.unshift(rows[0].map(([k]) => csvCell(k)).join(',') + '\n');
  return lines.join('');
}
