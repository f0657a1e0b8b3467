// The exact sum of doubles rounded once to the nearest double (ties to even): the sums behind means, RMS and
// Chamfer, the same bits in whatever order the values come, so the native libraries' parallel sums (CPU threads
// and GPU blocks, kernels/geometry/exact_sum.h) agree with this one bit for bit.
//
// Shewchuk's method: the running sum is kept exactly as a few doubles that do not overlap ("partials", smallest
// first), each new value folded in with error-free additions; the partials are then added from the largest down,
// and where the rest lies exactly half-way the last rounding is corrected towards the side the smaller partials lean.

/** More partials than any sum of doubles needs (the double range spans about 2100 bits, 53 a partial). */
const MAX_PARTIALS = 64;

export function exactSum(values: ArrayLike<number>): number {
  return sumOf(values, false);
}

/** The exact sum of each value's square rounded to a double (v * v). */
export function exactSumOfSquares(values: ArrayLike<number>): number {
  return sumOf(values, true);
}

function sumOf(values: ArrayLike<number>, squares: boolean): number {
  const partials = new Float64Array(MAX_PARTIALS);
  let count = 0;
  for (let n = 0; n < values.length; n++) {
    let x = squares ? values[n] * values[n] : values[n];
    let kept = 0;
    for (let p = 0; p < count; p++) {
      let y = partials[p];
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      const high = x + y;
      const low = y - (high - x); // exact: |x| >= |y|
      if (low !== 0) partials[kept++] = low;
      x = high;
    }
    partials[kept] = x;
    count = kept + 1;
  }
  return roundPartials(partials, count);
}

/** The partials' exact total rounded to nearest, ties to even. */
function roundPartials(partials: Float64Array, count: number): number {
  if (count === 0) return 0;
  let n = count - 1;
  let high = partials[n], low = 0;
  while (n > 0) {
    const x = high, y = partials[--n];
    high = x + y;
    low = y - (high - x);
    if (low !== 0) break;
  }
  // high + low is exact and low is half an ulp of high when high's rounding was a tie: the partials below decide.
  if (n > 0 && ((low < 0 && partials[n - 1] < 0) || (low > 0 && partials[n - 1] > 0))) {
    const twice = low * 2;
    const moved = high + twice;
    if (twice === moved - high) high = moved;
  }
  return high;
}
