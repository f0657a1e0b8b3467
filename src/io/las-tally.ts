// The layout of the tally that LAS and LAZ decoding fill (counts by class and return, raw and kept bounds):
// its own file so the summary can read it without the decoder and its filters.

/** Where the tally keeps what: records by class (256), by return number (16), then the raw X, Y, Z min and max. */
export const TALLY_CLASSES = 0;
export const TALLY_RETURNS = 256;
export const TALLY_RAW_MIN = 272;
export const TALLY_RAW_MAX = 275;
/** Bounds of the kept points (their doubles), min then max. */
export const TALLY_MIN = 278;
export const TALLY_MAX = 281;
export const TALLY_LENGTH = 284;

/** What a native LAS or LAZ read reports of the records (xhd_las_result and xhd_laz_result share these fields). */
export interface NativeTallyFields {
  class_counts: ArrayLike<number | bigint>;
  return_counts: ArrayLike<number | bigint>;
  raw_min: ArrayLike<number>;
  raw_max: ArrayLike<number>;
  min: ArrayLike<number>;
  max: ArrayLike<number>;
}

/** The tally a native read's result fills, laid out as the TypeScript decoders fill theirs. */
export function tallyFromNative(result: NativeTallyFields): Float64Array {
  const tally = new Float64Array(TALLY_LENGTH);
  for (let c = 0; c < 256; c++) tally[TALLY_CLASSES + c] = Number(result.class_counts[c]);
  for (let r = 0; r < 16; r++) tally[TALLY_RETURNS + r] = Number(result.return_counts[r]);
  for (let k = 0; k < 3; k++) {
    tally[TALLY_RAW_MIN + k] = result.raw_min[k];
    tally[TALLY_RAW_MAX + k] = result.raw_max[k];
    tally[TALLY_MIN + k] = result.min[k];
    tally[TALLY_MAX + k] = result.max[k];
  }
  return tally;
}
