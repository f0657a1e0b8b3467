// The dataset statistics of xhd batch --summary: the last JSON Lines object, and --summary-csv's file (one row
// per label and metric). NaN and infinities are JSON null, as everywhere in xhd's JSON; CSV nan and inf.
import type { LabelSummary } from '../jobs/batch-summary.js';
import { csvCell } from './compare-csv.js';
import { writeOutputFile } from './output-file.js';

const COLUMNS = ['n', 'n_empty', 'n_nan', 'mean', 'std', 'median', 'q1', 'q3', 'min', 'max'] as const;

function row(m: LabelSummary['metrics'][number]): Record<(typeof COLUMNS)[number], number> {
  return { n: m.n, n_empty: m.nEmpty, n_nan: m.nNan, mean: m.mean, std: m.std, median: m.median, q1: m.q1, q3: m.q3, min: m.min, max: m.max };
}

export function batchSummaryJson(labels: LabelSummary[], emptyPolicy: string) {
  return {
    statistics: {
      empty_policy: emptyPolicy,
      std: 'population (ddof 0)',
      quantiles: 'linear interpolation (NumPy default)',
      labels: Object.fromEntries(labels.map((l) => [l.label, Object.fromEntries(l.metrics.map((m) => [m.metric, row(m)]))])),
    },
  };
}

export function batchSummaryCsv(labels: LabelSummary[]): string {
  const lines = [['label', 'metric', ...COLUMNS].join(',')];
  for (const l of labels) {
    for (const m of l.metrics) {
      const r = row(m);
      lines.push([csvCell(l.label), csvCell(m.metric), ...COLUMNS.map((c) => csvCell(r[c]))].join(','));
    }
  }
  return lines.join('\n') + '\n';
}

export async function writeBatchSummaryCsv(path: string, labels: LabelSummary[], signal?: AbortSignal): Promise<void> {
  const text = batchSummaryCsv(labels);
  await writeOutputFile(path, function* () { yield new TextEncoder().encode(text); }, signal);
}
