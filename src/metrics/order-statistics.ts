// Percentiles of per-point distances without sorting them all: a selection finds the two order
// statistics the interpolation needs, in linear time, on a copy (the input stays in point order).

/** The k-th smallest value (0-based) of `values`, which it reorders. Hoare partition around a median of three. */
export function select(values: Float64Array, k: number): number {
  let lo = 0, hi = values.length - 1;
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    const a = values[lo], b = values[mid], c = values[hi];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo, j = hi;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const t = values[i];
        values[i++] = values[j];
        values[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return values[k];
  }
  return values[k];
}

/** The smallest value of values[from…]: after select(k), the (k+1)-th smallest overall. */
function smallestFrom(values: Float64Array, from: number): number {
  let m = Infinity;
  for (let i = from; i < values.length; i++) if (values[i] < m) m = values[i];
  return m;
}

/**
 * The p-th percentile (0 ≤ p ≤ 100) with linear interpolation between closest ranks, as NumPy's and
 * PyTorch's default: rank h = (n − 1)·p/100, value x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
 * Of several arrays, the percentile of all their values together (the pooled variant).
 */
export function percentile(p: number, ...parts: Float64Array[]): number {
  const n = parts.reduce((s, x) => s + x.length, 0);
  if (n === 0) return NaN;
  const all = new Float64Array(n);
  let at = 0;
  for (const x of parts) {
    all.set(x, at);
    at += x.length;
  }
  const h = ((n - 1) * p) / 100, k = Math.floor(h), frac = h - k;
  const low = select(all, k);
  if (frac === 0 || k + 1 >= n) return low;
  return low + frac * (smallestFrom(all, k + 1) - low);
}
