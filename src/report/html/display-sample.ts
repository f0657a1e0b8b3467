// Which points a report draws. A browser draws a few hundred thousand points smoothly and a report file
// should stay a few megabytes, so big inputs are thinned for display, but never their worst points: the
// largest distances are what the reader opens the report for. The statistics and plots use every point.

export interface DisplaySample {
  /** Indices of the points drawn, ascending. */
  indices: Uint32Array;
  /** How many of them were kept for being among the largest distances. */
  worstKept: number;
}

/** Share of the display budget reserved for the largest distances. */
const WORST_SHARE = 0.05;

/** How many of the largest distances a display sample of this budget keeps from n points (all when they fit). */
export function worstCountFor(n: number, budget: number): number {
  return n <= budget ? n : Math.min(budget, Math.max(1, Math.ceil(budget * WORST_SHARE)));
}

/**
 * At most `budget` indices of `distances`: all of them when they fit; else the ⌈5%⌉ of the budget with the
 * largest distances (ties to the smaller index) plus an even stride through the rest. Deterministic.
 * worst: the caller's indices of exactly those largest distances (worstCountFor(n, budget) of them), in any order.
 */
export function displaySample(distances: Float64Array, budget: number, worst?: ArrayLike<number>): DisplaySample {
  const n = distances.length;
  if (n <= budget) {
    const all = new Uint32Array(n);
    for (let i = 0; i < n; i++) all[i] = i;
    return { indices: all, worstKept: n };
  }
  const worstCount = worstCountFor(n, budget);
  const largest = worst && worst.length === worstCount ? worst : largestDistances(distances, worstCount, 0).indices;
  const isWorst = new Uint8Array(n);
  for (let k = 0; k < worstCount; k++) isWorst[largest[k]] = 1;
  // The rest of the budget, spread evenly over the points not already kept, in one pass with them.
  const others = n - worstCount, spare = budget - worstCount;
  const indices = new Uint32Array(budget);
  let kept = 0, seen = 0, taken = 0;
  for (let i = 0; i < n; i++) {
    if (isWorst[i]) {
      indices[kept++] = i;
      continue;
    }
    // Take the point when it crosses the next multiple of others/spare: an even stride with no drift.
    // (⌊(seen + 1)·spare / others⌋ > taken, in integers: the products are exact below 2^53.)
    if (taken < spare && (seen + 1) * spare >= (taken + 1) * others) {
      indices[kept++] = i;
      taken++;
    }
    seen++;
  }
  return { indices: kept === budget ? indices : indices.slice(0, kept), worstKept: worstCount };
}

/** The largest distances of a direction, as the display sample and the worst regions take them. */
export interface LargestDistances {
  /** The indices of the `count` largest distances (ties to the smaller index), ascending. */
  indices: Uint32Array;
  /** The first `ordered` of them by decreasing distance (ties to the smaller index). */
  ordered: number[];
}

/** The indices of the `count` largest distances, largest first (ties to the smaller index). */
export function largestIndices(distances: Float64Array, count: number): number[] {
  return largestDistances(distances, count, count).ordered;
}

/**
 * The `count` largest distances, and the first `ordered` of them in order. A sample of every STRIDE-th distance,
 * sorted, gives a bound that a quarter more than count of them likely reach; one pass collects those that do (a
 * bound too high is lowered and the pass made again), and the engine's own sort of their distances (tens of
 * thousands for a million, not a copy of all of them) gives the exact thresholds.
 */
export function largestDistances(distances: Float64Array, count: number, ordered: number): LargestDistances {
  const n = distances.length;
  count = Math.min(count, n);
  ordered = Math.min(ordered, count);
  if (count === 0) return { indices: new Uint32Array(0), ordered: [] };
  const sample = new Float64Array(Math.ceil(n / STRIDE));
  for (let i = 0, k = 0; i < n; i += STRIDE) sample[k++] = distances[i];
  sample.sort(); // ascending
  // The sample's rank above which a quarter more than count's share of it lies (and a few more).
  let wanted = Math.ceil(sample.length * (count / n) * 1.25) + 8;
  for (;;) {
    const bound = wanted >= sample.length ? -Infinity : sample[sample.length - wanted];
    // Those that reach it, in one pass into room for twice as many as the sample says (again when more do).
    let at = new Uint32Array(Math.min(n, 2 * wanted * STRIDE + 1024)), m = 0;
    for (let i = 0; i < n; i++) {
      if (distances[i] >= bound) {
        if (m < at.length) at[m] = i;
        m++;
      }
    }
    if (m > at.length) {
      at = new Uint32Array(m);
      for (let i = 0, k = 0; i < n; i++) if (distances[i] >= bound) at[k++] = i;
    }
    // Enough: every one of the largest count is among them. (NaN reaches no bound: never among the largest.)
    if (m >= count || bound === -Infinity) {
      at = at.subarray(0, m);
      const values = new Float64Array(m);
      for (let k = 0; k < m; k++) values[k] = distances[at[k]];
      return chooseLargest(distances, at, values, Math.min(count, m), Math.min(ordered, m));
    }
    wanted *= 4;
  }
}

/** Distances sampled to estimate the bound: one in this many. */
const STRIDE = 64;

/**
 * Of candidates `at` (ascending indices, every one of the largest among them) with their distances `values`:
 * the count largest, ties to the smaller index, and the first `ordered` of them in order. values is reordered.
 */
function chooseLargest(distances: Float64Array, at: Uint32Array, values: Float64Array, count: number, ordered: number): LargestDistances {
  const m = at.length;
  values.sort(); // the engine's own sort: ascending
  // The count-th and the ordered-th largest; those above each, then those at each from the smallest index.
  const atCount = values[m - count], atOrdered = ordered > 0 ? values[m - ordered] : Infinity;
  let tiesCount = count, tiesOrdered = ordered;
  for (let k = 0; k < m; k++) {
    const d = distances[at[k]];
    if (d > atCount) tiesCount--;
    if (d > atOrdered) tiesOrdered--;
  }
  const indices = new Uint32Array(count), first = new Uint32Array(ordered);
  for (let k = 0, c = 0, o = 0; k < m; k++) {
    const d = distances[at[k]];
    if (d > atCount || (d === atCount && tiesCount-- > 0)) indices[c++] = at[k];
    if (o < ordered && (d > atOrdered || (d === atOrdered && tiesOrdered-- > 0))) first[o++] = at[k];
  }
  return { indices, ordered: Array.from(first).sort((i, j) => distances[j] - distances[i] || i - j) };
}
