// --output csv: one comparison as one CSV line (RFC 4180), for appending run after run to one file. The
// columns depend only on the options (statistics, --relative, --fail-above), so runs with the same options
// line up; --csv-header prints their names first. NaN and infinities print as nan, inf and -inf.
import type { CompareResult } from '../compare.js';
import { relativeKey } from '../metrics/relative.js';
import { compareJson } from './compare-json.js';

const STATS_COLUMNS = ['mean_ab', 'mean_ba', 'assd', 'assd_variant', 'rms', 'chamfer_sq_mean', 'chamfer_sq_sum'];

function columns(r: CompareResult, json: Record<string, unknown>): [string, unknown][] {
  const out: [string, unknown][] = [
    ['a', r.a.path], ['b', r.b.path], ['mode', r.mode], ['empty_a', r.empty?.a ?? false], ['empty_b', r.empty?.b ?? false],
    ['hd', r.hd], ['hd_ab', r.hdAb], ['hd_ba', r.hdBa],
  ];
  if (r.stats) {
    if (r.stats.percentile) {
      const key = Object.keys(json).find((k) => k === 'hd95' || k.startsWith('hd_p'))!;
      out.push([key, r.stats.percentile.value], ['percentile_variant', r.stats.percentile.variant]);
    }
    for (const key of STATS_COLUMNS) out.push([key, json[key]]);
  }
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

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isNaN(value) ? 'nan' : value === Infinity ? 'inf' : value === -Infinity ? '-inf' : String(value);
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function renderCompareCsv(r: CompareResult, header: boolean): string {
  const cols = columns(r, compareJson(r) as Record<string, unknown>);
  const line = cols.map(([, v]) => cell(v)).join(',') + '\n';
  return header ? cols.map(([k]) => cell(k)).join(',') + '\n' + line : line;
}
