// Distances weighted by surface-element area, as DeepMind's surface-distance defines them
// (compute_average_surface_distance, compute_robust_hausdorff): each distance counts in proportion to the
// area of the surface element it was measured from.

/** Σ w·d / Σ w (NaN when there are no points). */
export function weightedMean(distances: Float64Array, weights: Float64Array): number {
  let sum = 0, total = 0;
  for (let i = 0; i < distances.length; i++) {
    sum += distances[i] * weights[i];
    total += weights[i];
  }
  return sum / total;
}

/**
 * The area-weighted percentile of DeepMind's compute_robust_hausdorff: with the distances in ascending order
 * and their areas' running sum divided by the total, the first distance whose running share reaches p/100
 * (the last distance when rounding keeps every share below it). Ties in distance give the same value in any
 * order, so the order among equal distances does not matter. NaN when there are no points.
 */
export function weightedPercentile(p: number, distances: Float64Array, weights: Float64Array): number {
  const n = distances.length;
  if (n === 0) return NaN;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((x, y) => distances[x] - distances[y] || x - y);
  let total = 0;
  for (let i = 0; i < n; i++) total += weights[order[i]];
  const target = p / 100;
  let running = 0;
  for (let i = 0; i < n; i++) {
    running += weights[order[i]];
    if (running / total >= target) return distances[order[i]];
  }
  return distances[order[n - 1]];
}
