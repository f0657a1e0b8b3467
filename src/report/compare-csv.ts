// --output csv: one comparison as one CSV line (RFC 4180), for appending run after run to one file. The
// columns depend only on the options (statistics, --relative, --fail-above), so runs with the same options
// line up; --csv-header prints their names first. NaN and infinities print as nan, inf and -inf.
import type { CompareResult } from '../jobs/compare.js';
import { percentileKey } from '../metrics/distance-stats.js';
import { relativeKey } from '../metrics/relative.js';
import { statsJson } from './stats-json.js';
import { toleranceJson } from './tolerance-json.js';

const STATS_COLUMNS = ['mean_ab', 'mean_ba', 'assd', 'assd_variant', 'rms', 'chamfer_sq_mean', 'chamfer_sq_sum'];

function columns(r: CompareResult): [string, unknown][] {
  const out: [string, unknown][] = [
    ['a', r.a.path], ['b', r.b.path], ['mode', r.mode], ['empty_a', r.empty?.a ?? false], ['empty_b', r.empty?.b ?? false],
    ['hd', r.hd], ['hd_ab', r.hdAb], ['hd_ba', r.hdBa],
  ];
  // Surface mode's per-sample statistics, as in the JSON; empty cells in points mode, so that the columns
  // stay those of the options. With --stats the statistics columns below carry the means and RMS.
  const s = r.surface, ab = s?.ab, ba = s?.ba ?? null;
  if (!r.stats) out.push(['mean_ab', ab?.mean], ['mean_ba', ba?.mean], ['rms_ab', ab?.rms], ['rms_ba', ba?.rms]);
  out.push(['min_ab', ab?.min], ['min_ba', ba?.min], ['e_ab', ab?.e], ['e_ba', ba?.e], ['es', s?.es]);
  if (r.stats) {
    const p = r.stats.percentile;
    if (p) out.push([percentileKey(p.p), p.value], ['percentile_variant', p.variant]);
    const stats = statsJson(r.stats);
    for (const key of STATS_COLUMNS) out.push([key, stats[key]]);
  }
  for (const [key, value] of Object.entries(toleranceJson(r.tolerance))) out.push([key, value]);
  if (r.relative) {
    for (const [key, value] of Object.entries(r.relative.percent)) out.push([`${key}_${relativeKey(r.relative.basis)}`, value]);
  }
  if (r.threshold) {
    const t = r.threshold;
    out.push(['threshold_metric', t.label], ['threshold_value', t.value], ['threshold_limit', t.limit], ['threshold_exceeded', t.exceeded]);
  }
  out.push(['method', r.method], ['backend', r.backend], ['total_ms', r.timingsMs.total]);
  return out;
}

/** One CSV cell: RFC 4180 quoting, NaN and infinities as nan, inf, -inf, nothing for null. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : value === Infinity ? 'inf' : value === -Infinity ? '-inf' : String(value);
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function renderCompareCsv(r: CompareResult, header: boolean): string {
  const cols = columns(r);
  const line = cols.map(([, v]) => csvCell(v)).join(',') + '\n';
  return header ? cols.map(([k]) => csvCell(k)).join(',') + '\n' + line : line;
}
