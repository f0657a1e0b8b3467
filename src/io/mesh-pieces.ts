// OFF, OBJ and STL files read in pieces straight from the file, never whole: those too large for one
// buffer (over WHOLE_FILE_LIMIT), and any size when XHD_READ_PIECE_BYTES is set (tests). The text formats
// go through the same parsers as a whole file, fed windows of whole lines (line-pieces.ts); binary STL a
// run of whole records at a time. Same geometry, notes and error messages as the whole-file reader.
import { AsciiScanner } from './ascii-numbers.js';
import type { Geometry } from './geometry.js';
import { withOpenFile } from './input-file.js';
import { withLinePieces } from './line-pieces.js';
import { readObj } from './obj.js';
import { readOff } from './off.js';
import { PIECES_NOTE, pieceBytes } from './pieces.js';
import { hasBinaryStlSize, looksLikeAsciiStl, readAsciiStl, readBinaryStlInPieces } from './stl.js';

/** `prefix` holds the file's first bytes (at least its first KiB, or all of a shorter file). */
export function readMeshInPieces(path: string, size: number, prefix: Uint8Array, format: 'off' | 'obj' | 'stl'): Geometry {
  const geometry = format === 'stl' ? readStlInPieces(path, size, prefix) : withLinePieces(path, size, bomLength(prefix), (more) => {
    const scanner = AsciiScanner.overPieces(more, path);
    // The first vertex buffer is sized for a file of mostly vertices; it grows when that is too few.
    return format === 'off' ? readOff(scanner) : readObj(scanner, size >> 5);
  });
  geometry.notes.push(PIECES_NOTE);
  return geometry;
}

/** The whole-file reader's choice: binary when the size says so, else ascii when it starts like it. */
function readStlInPieces(path: string, size: number, prefix: Uint8Array): Geometry {
  if (hasBinaryStlSize(prefix, size) || !looksLikeAsciiStl(prefix)) {
    return withOpenFile(path, (fd) => readBinaryStlInPieces(fd, path, size, pieceBytes()));
  }
  return withLinePieces(path, size, 0, (more) => readAsciiStl(AsciiScanner.overPieces(more, path, { comments: false }), size));
}

/** Spreadsheet-style exports may start with a UTF-8 byte-order mark, which the whole-file reader drops too. */
function bomLength(prefix: Uint8Array): number {
  return prefix[0] === 0xef && prefix[1] === 0xbb && prefix[2] === 0xbf ? 3 : 0;
}
