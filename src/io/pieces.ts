// When and how large the readers that go in pieces (binary PLY, CSV / XYZ, OFF / OBJ / STL, ascii PLY,
// LAS) read a file: over WHOLE_FILE_LIMIT always, and at any size when XHD_READ_PIECE_BYTES is set (tests).

/** Files above this are read in pieces; below it, whole (the faster path for small files). */
export const WHOLE_FILE_LIMIT = 1024 ** 3;

/** Bytes read at a time; XHD_READ_PIECE_BYTES overrides it, and makes every reader that can go in pieces do so (tests). */
export function pieceBytes(): number {
  const forced = Number(process.env.XHD_READ_PIECE_BYTES);
  return forced > 0 ? Math.max(64, Math.floor(forced)) : 64 * 1024 ** 2;
}

/** The note on a file read in pieces. */
export const PIECES_NOTE = `read in pieces (the file is larger than ${(WHOLE_FILE_LIMIT / 1024 ** 3).toFixed(0)} GiB, or XHD_READ_PIECE_BYTES is set)`;

export function piecesForced(): boolean {
  return Number(process.env.XHD_READ_PIECE_BYTES) > 0;
}
