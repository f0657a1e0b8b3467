// The point data record formats of LAS 1.0-1.4 (0-10): how long each record is at least, and where the
// fields xhd reads lie in it. Everything after these fields (GPS time, colours, wave packets, extra bytes)
// is skipped by stepping a whole record length at a time.

export interface LasPointFormat {
  /** The format number, 0-10. */
  id: number;
  /** The smallest record length the format allows; longer records carry extra bytes. */
  minLength: number;
  /**
   * Formats 6-10 keep the return number and number of returns in 4 bits each of byte 14 and the
   * classification in a whole byte 16; formats 0-5 use 3 bits each of byte 14 and the low 5 bits of byte 15.
   */
  extended: boolean;
  /** The format carries waveform packet descriptors (4, 5, 9, 10): xhd ignores the waveforms. */
  waveform: boolean;
}

const LENGTHS = [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67];

export const LAS_POINT_FORMATS: LasPointFormat[] = LENGTHS.map((minLength, id) => ({
  id,
  minLength,
  extended: id >= 6,
  waveform: id === 4 || id === 5 || id === 9 || id === 10,
}));

/** Byte offsets shared by every format: X, Y, Z as int32 at 0, 4, 8, and the return bits in byte 14. */
export const X_OFFSET = 0;
export const RETURN_BYTE = 14;
