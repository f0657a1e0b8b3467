// Dataset statistics of one metric over many cases, as NumPy computes them: mean, standard deviation with
// ddof 0 (np.std's default), median and quartiles with linear interpolation (np.percentile's default),
// minimum and maximum. NaN values (an empty case under --empty nan) are left out and counted.

import { percentile } from './order-statistics.js';

export interface SummaryStats {
  /** Values the statistics are over (NaN values left out). */
  n: number;
  /** NaN values left out. */
  nNan: number;
  mean: number;
  std: number;
  median: number;
  q1: number;
  q3: number;
  min: number;
  max: number;
}

export function summaryStats(values: ArrayLike<number>): SummaryStats {
  const kept: number[] = [];
  let nNan = 0;
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i])) nNan++;
    else kept.push(values[i]);
  }
  const n = kept.length;
  if (n === 0) return { n, nNan, mean: NaN, std: NaN, median: NaN, q1: NaN, q3: NaN, min: NaN, max: NaN };
  const x = Float64Array.from(kept);
  let sum = 0, min = Infinity, max = -Infinity;
  for (const v of x) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = sum / n;
  let sq = 0;
  for (const v of x) sq += (v - mean) * (v - mean);
  // An infinite value (--empty inf) makes the mean infinite and the spread undefined, as NumPy gives (nan).
  const std = Number.isFinite(mean) ? Math.sqrt(sq / n) : NaN;
  return { n, nNan, mean, std, median: percentile(50, x), q1: percentile(25, x), q3: percentile(75, x), min, max };
}
