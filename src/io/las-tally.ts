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
