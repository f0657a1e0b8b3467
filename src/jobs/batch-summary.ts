// xhd batch --summary: per label and metric, statistics over the pairs of a batch (metrics/summary-stats.ts),
// every pair that was measured counted, including those an empty input gave the --empty policy's value to
// (counted again in n_empty, so that a mean over such values is never mistaken for one over measurements).
import { summaryStats, type SummaryStats } from '../metrics/summary-stats.js';
import type { CompareResult } from './compare-result.js';
import type { LabelsResult } from './compare-labels.js';
import { metricValues } from './metric-values.js';

export interface MetricSummary extends SummaryStats {
  metric: string;
  /** Pairs whose value came from the --empty policy (an input, or the label, empty on a side). */
  nEmpty: number;
}

export interface LabelSummary {
  /** The label value ("3"), "foreground" (a mask's every nonzero voxel), or the mode for point sets and meshes. */
  label: string;
  metrics: MetricSummary[];
}

interface Cell { values: number[]; empty: number }

export class BatchSummaryCollector {
  private readonly labels = new Map<string, Map<string, Cell>>();

  /** Adds one measured pair's values. */
  add(result: CompareResult | LabelsResult, label: number | undefined): void {
    if (result.mode === 'labels') {
      for (const l of result.labels) {
        const values = metricValues(l);
        if (l.lesions) for (const [key, v] of l.lesions.lesionWise) values.push([`lesion_wise_${key}`, v]);
        this.addValues(l.label, values, l.empty !== null);
      }
      return;
    }
    const name = label !== undefined ? String(label) : result.a.format === 'nifti' && result.b.format === 'nifti' ? 'foreground' : result.mode;
    this.addValues(name, metricValues(result), result.empty !== null);
  }

  private addValues(label: string, values: [string, number][], empty: boolean): void {
    let metrics = this.labels.get(label);
    if (!metrics) this.labels.set(label, (metrics = new Map()));
    for (const [key, v] of values) {
      let cell = metrics.get(key);
      if (!cell) metrics.set(key, (cell = { values: [], empty: 0 }));
      cell.values.push(v);
      if (empty) cell.empty++;
    }
  }

  /** Labels in numeric order (named ones after), metrics in the order first met. */
  summary(): LabelSummary[] {
    const order = (x: string, y: string) => {
      const a = Number(x), b = Number(y);
      const na = Number.isFinite(a), nb = Number.isFinite(b);
      return na && nb ? a - b : na ? -1 : nb ? 1 : x.localeCompare(y);
    };
    return [...this.labels.keys()].sort(order).map((label) => ({
      label,
      metrics: [...this.labels.get(label)!.entries()].map(([metric, cell]) => ({ metric, nEmpty: cell.empty, ...summaryStats(cell.values) })),
    }));
  }
}
