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
 * The `count` largest distances, and the first `ordered` of them in order. The bits of a non-negative double,
 * read as an unsigned integer, order as the double does: a radix selection on them, 16 bits a pass, finds the
 * bucket where the largest count begin; the engine's own sort of the distances from that bucket up (for a
 * million distances, tens of thousands rather than a copy of all of them) then gives the exact thresholds.
 */
export function largestDistances(distances: Float64Array, count: number, ordered: number): LargestDistances {
  const n = distances.length;
  count = Math.min(count, n);
  ordered = Math.min(ordered, count);
  if (count === 0) return { indices: new Uint32Array(0), ordered: [] };
  const words = new Uint32Array(distances.buffer, distances.byteOffset, 2 * n);
  const HI = isLittleEndian ? 1 : 0, LO = 1 - HI;
  // The key's four 16-bit digits, most significant first, chosen one a pass: [hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff].
  let keyHi = 0, keyLo = 0, need = count, candidates = n;
  const bins = new Uint32Array(1 << 16);
  for (let digit = 0; digit < 4; digit++) {
    bins.fill(0);
    // One loop a digit, each as tight as it can be: this is the pass over every distance.
    if (digit === 0) {
      for (let i = HI; i < 2 * n; i += 2) {
        const hi = words[i];
        // Negative (a sign bit, -0 included), infinite or NaN: not ordered by their bits as by their values.
        if (hi >= 0x7ff00000) return largestBySelection(distances, count, ordered);
        bins[hi >>> 16]++;
      }
    } else if (digit === 1) {
      const top = keyHi >>> 16;
      for (let i = HI; i < 2 * n; i += 2) if (words[i] >>> 16 === top) bins[words[i] & 0xffff]++;
    } else if (digit === 2) {
      for (let i = 0; i < n; i++) if (words[2 * i + HI] === keyHi) bins[words[2 * i + LO] >>> 16]++;
    } else {
      const top = keyLo >>> 16;
      for (let i = 0; i < n; i++) if (words[2 * i + HI] === keyHi && words[2 * i + LO] >>> 16 === top) bins[words[2 * i + LO] & 0xffff]++;
    }
    // The digit's bucket where the largest `need` of those matching the key so far begin.
    let b = 0xffff, above = 0;
    while (above + bins[b] < need) above += bins[b--];
    need -= above;
    candidates = count - need + bins[b];
    if (digit === 0) keyHi = b * 0x10000;
    else if (digit === 1) keyHi += b;
    else if (digit === 2) keyLo = b * 0x10000;
    else keyLo += b;
    // Few enough from this bucket up (at most about three times count): select among them exactly. (Ties
    // make a bucket that no further digit splits: a million points shifted by one distance have thousands.)
    if (bins[b] <= Math.max(SELECT_DIRECTLY, 2 * count)) break;
  }
  // Every distance whose bits are at least the key's: the candidates, in index order.
  const at = new Uint32Array(candidates), values = new Float64Array(candidates);
  for (let i = 0, m = 0; i < n; i++) {
    const hi = words[2 * i + HI];
    if (hi > keyHi || (hi === keyHi && words[2 * i + LO] >= keyLo)) {
      at[m] = i;
      values[m++] = distances[i];
    }
  }
  return chooseLargest(distances, at, values, count, ordered);
}

/**
 * Of candidates `at` (ascending indices, every one of the largest among them) with their distances `values`:
 * the count largest, ties to the smaller index, and the first `ordered` of them in order. values is reordered.
 */
function chooseLargest(distances: Float64Array, at: Uint32Array, values: Float64Array, count: number, ordered: number): LargestDistances {
  const m = at.length;
  values.sort(); // the engine's own sort: ascending
  const indices = indicesAtLeast(distances, at, values[m - count], count);
  if (ordered === 0) return { indices, ordered: [] };
  const first = ordered === count ? indices : indicesAtLeast(distances, at, values[m - ordered], ordered);
  return { indices, ordered: Array.from(first).sort((i, j) => distances[j] - distances[i] || i - j) };
}

/** The count candidates above threshold and at it, those at it from the smallest index, ascending. */
function indicesAtLeast(distances: Float64Array, at: Uint32Array, threshold: number, count: number): Uint32Array {
  const out = new Uint32Array(count);
  let above = 0;
  for (let k = 0; k < at.length; k++) if (distances[at[k]] > threshold) above++;
  let ties = count - above, kept = 0;
  for (let k = 0; k < at.length && kept < count; k++) {
    const d = distances[at[k]];
    if (d > threshold || (d === threshold && ties-- > 0)) out[kept++] = at[k];
  }
  return out;
}

/** Candidates in a bucket few enough to select among without narrowing further (or count, when more). */
const SELECT_DIRECTLY = 4096;

const isLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The same from every distance as a candidate: for distances the radix cannot order (negative, NaN). */
function largestBySelection(distances: Float64Array, count: number, ordered: number): LargestDistances {
  const at = new Uint32Array(distances.length);
  for (let i = 0; i < at.length; i++) at[i] = i;
  return chooseLargest(distances, at, distances.slice(), count, ordered);
}
