// The text histogram of `xhd compare --histogram`: equal-width bins from 0 to the largest distance.
import type { SurfaceReport } from '../jobs/compare.js';
import { countOf, formatCount, formatSignificant } from './format.js';

export interface HistogramOptions {
  bins?: number;
  /** Characters of the longest bar. */
  width?: number;
}

/** How many distances fall in each of `bins` equal-width bins over [0, max]; max itself lands in the last bin. */
export function binDistances(distances: Float64Array, max: number, bins: number): number[] {
  const counts = new Array<number>(bins).fill(0);
  const scale = max > 0 ? bins / max : 0;
  for (let i = 0; i < distances.length; i++) counts[Math.min(Math.floor(distances[i] * scale), bins - 1)]++;
  return counts;
}

/** A header naming the direction and the count, then one `[lo, hi)  count  bar` line per bin. */
export function histogramLines(distances: Float64Array, direction: string, options: HistogramOptions = {}): string[] {
  const width = options.width ?? 40;
  let max = 0;
  for (let i = 0; i < distances.length; i++) if (distances[i] > max) max = distances[i];
  // With every distance 0 (identical surfaces) there is no range to split: one bin holds them all.
  const bins = max > 0 ? options.bins ?? 20 : 1;
  const counts = binDistances(distances, max, bins);
  const most = Math.max(...counts);
  const edge = (k: number) => formatSignificant((max * k) / bins, 4);
  const ranges = counts.map((_, k) => `[${edge(k)}, ${edge(k + 1)}${k === bins - 1 ? ']' : ')'}`);
  const rangeWidth = Math.max(...ranges.map((r) => r.length));
  const countWidth = formatCount(most).length;
  const lines = [`${direction} distances: ${countOf(distances.length, 'sample')}, max ${formatSignificant(max, 10)}`];
  counts.forEach((count, k) => {
    // A bin that holds anything shows at least one mark, so rare far samples stay visible.
    const bar = count > 0 ? '#'.repeat(Math.max(1, Math.round((count / most) * width))) : '';
    lines.push(`  ${ranges[k].padEnd(rangeWidth)}  ${formatCount(count).padStart(countWidth)}  ${bar}`.trimEnd());
  });
  return lines;
}

/** Both directions' histograms (A → B only when directed), for stderr. */
export function renderHistograms(s: SurfaceReport): string {
  const lines = histogramLines(s.distancesAb, 'A → B');
  if (s.distancesBa) lines.push('', ...histogramLines(s.distancesBa, 'B → A'));
  return lines.join('\n') + '\n';
}
