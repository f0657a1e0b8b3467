// --fail-above T [--metric M]: the check a CI pipeline runs, as a value, a limit and a verdict that the
// reports print and the exit code follows (1 when exceeded).

import { UsageError, ValueSyntaxError } from '../core/errors.js';
import type { DistanceStats } from '../metrics/distance-stats.js';

export const THRESHOLD_METRICS = ['hd', 'hd95', 'mean', 'rms', 'chamfer'] as const;
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];

/** A limit as given: absolute, or a percentage of the union bounding-box diagonal. */
export interface ThresholdSpec {
  value: number;
  percent: boolean;
  text: string;
}

export interface ThresholdVerdict {
  metric: ThresholdMetric;
  /** What the metric is called in the report (e.g. "hd95 (max-of-directed)", "chamfer_sq_mean"). */
  label: string;
  value: number;
  limit: number;
  spec: string;
  exceeded: boolean;
}

export function parseThreshold(value: string): ThresholdSpec {
  const text = value.trim();
  const percent = text.endsWith('%');
  const n = Number(percent ? text.slice(0, -1) : text);
  if (text === '' || text === '%' || !Number.isFinite(n) || n < 0) {
    throw new ValueSyntaxError(`expected a distance >= 0 or a percentage of the bounding-box diagonal (e.g. 2.5 or 1%), got '${value}'`);
  }
  return { value: n, percent, text };
}

/** Metrics other than hd need every point's distance; hd95 also the 95th percentile. */
export function metricNeeds(metric: ThresholdMetric): { stats: boolean; percentile?: number } {
  if (metric === 'hd') return { stats: false };
  return metric === 'hd95' ? { stats: true, percentile: 95 } : { stats: true };
}

export function checkThresholdOptions(metric: ThresholdMetric, spec: ThresholdSpec | undefined, percentile: number | undefined): void {
  if (metric !== 'hd' && spec === undefined) throw new UsageError('--metric chooses what --fail-above checks; give --fail-above too');
  if (metric === 'hd95' && percentile !== undefined && percentile !== 95) {
    throw new UsageError(`--metric hd95 checks the 95th percentile, but --percentile ${percentile} was asked for; drop one of them`);
  }
  if (metric === 'chamfer' && spec?.percent) {
    throw new UsageError('--metric chamfer is a squared distance; give --fail-above as an absolute value, not a percentage');
  }
}

/** The verdict for a finished comparison: hd from the exact search, the others from the statistics. */
export function judge(metric: ThresholdMetric, spec: ThresholdSpec, hd: number, stats: DistanceStats | null, diagonal: number): ThresholdVerdict {
  const limit = spec.percent ? (spec.value / 100) * diagonal : spec.value;
  let value: number, label: string;
  if (metric === 'hd') {
    value = hd;
    label = 'hd';
  } else {
    if (!stats) throw new Error(`the ${metric} threshold needs the distance statistics`);
    if (metric === 'hd95') {
      value = stats.percentile!.value;
      label = `hd95 (${stats.percentile!.variant})`;
    } else if (metric === 'mean') {
      value = stats.assd;
      label = stats.ba ? `assd (${stats.assdVariant})` : 'mean_ab';
    } else if (metric === 'rms') {
      value = stats.rms;
      label = 'rms';
    } else {
      value = stats.chamferSqMean;
      label = 'chamfer_sq_mean';
    }
  }
  return { metric, label, value, limit, spec: spec.text, exceeded: !(value <= limit) }; // NaN (an empty input under --empty nan) cannot pass
}
