// CSV / XYZ files read in line-aligned pieces straight from the file: those over WHOLE_FILE_LIMIT, which
// may be larger than the 4 GiB one Node buffer holds, and any size when XHD_READ_PIECE_BYTES is set (tests).
// The layout (separator, header, columns) comes from the file's first lines; a counting pass sizes the
// coordinates exactly; then each piece, cut after its last '\n' with the partial line carried into the next,
// is parsed by the native parser (delimited-native.ts) straight into them. Only the native parser's plain
// shape is read this way. Anything else goes, for a file that fits one buffer, to the whole-file TypeScript
// parser (the reference for every irregular file and every message); a larger file is refused with the line
// where the plain shape ends.
import { closeSync, openSync } from 'node:fs';

import { InputError, NativeError } from '../core/errors.js';
import { AsciiScanner } from './ascii-numbers.js';
import { finishGeometry } from './build.js';
import { parseDelimited, readRows } from './delimited.js';
import { analyseDelimited, type DelimitedLayout } from './delimited-layout.js';
import { parseRowsNatively } from './delimited-native.js';
import type { Bounds, Geometry, ReadOptions } from './geometry.js';
import { MAX_FILE_BYTES, readFully } from './input-file.js';
import { nativeReader, type NativeReader } from './native-reader.js';
import { PIECES_NOTE, pieceBytes } from './pieces.js';
import { readerThreads } from './reader-threads.js';

const LF = 10, CR = 13, QUOTE = 34, HASH = 35, SPACE = 32, TAB = 9;

/** The analysis starts on this much of the file, and grows to at most ANALYSIS_MAX_BYTES (see analysisPrefix). */
const ANALYSIS_START_BYTES = 1 << 20;
const ANALYSIS_MAX_BYTES = 16 << 20;

const GIB = 1024 ** 3;

/**
 * The file's geometry read in pieces; undefined when the whole-file reader must read it instead (the text
 * is not plain, or the native reader is missing, and the file fits one buffer). `wholeFileMax` is the
 * largest file that may be handed back that way (MAX_FILE_BYTES; tests lower it to see the refusal).
 */
export function readDelimitedInPieces(path: string, size: number, format: 'csv' | 'xyz', options: ReadOptions = {},
  wholeFileMax = MAX_FILE_BYTES): Geometry | undefined {
  const native = nativeReader();
  if (!native) {
    if (size <= wholeFileMax) return undefined;
    throw new InputError(path, {}, `file is ${(size / GIB).toFixed(1)} GiB; CSV / XYZ files over ${(wholeFileMax / GIB).toFixed(0)} GiB are read only by the native reader (build/libxhd_cpu.so), which could not be loaded`);
  }
  const fd = openSync(path, 'r');
  try {
    const prefix = analysisPrefix(fd, size);
    if (!prefix) {
      if (size <= wholeFileMax) return undefined;
      throw new InputError(path, {}, `no line end in the first ${ANALYSIS_MAX_BYTES >> 20} MiB: not a CSV / XYZ file`);
    }
    const whole = prefix.length === size;
    // Spreadsheet exports often start with a byte-order mark, which the whole-file path also drops.
    const bom = prefix[0] === 0xef && prefix[1] === 0xbb && prefix[2] === 0xbf ? 3 : 0;
    const scanner = new AsciiScanner(prefix.subarray(bom), path);
    let layout: DelimitedLayout | undefined;
    try {
      layout = analyseDelimited(scanner, options.columns);
    } catch (error) {
      // On a cut prefix the error may be the cut's doing: the whole-file reader has the last word.
      if (!whole && size <= wholeFileMax) return undefined;
      throw error;
    }
    if (!layout) {
      if (whole) return parseDelimited(prefix.subarray(bom), path, format, options); // no rows: its empty result
      if (size <= wholeFileMax) return undefined;
      throw new InputError(path, {}, `no data row in the first ${ANALYSIS_MAX_BYTES >> 20} MiB`);
    }
    const body = new PieceReader(fd, size, bom + scanner.pos);
    const positions = new Float64Array(3 * body.countLines(native, options.threads));
    const parsed = parsePieces(native, body, layout, positions, scanner.line, options.threads);
    if ('notPlain' in parsed) {
      if (size <= wholeFileMax) return undefined;
      throw notPlainError(native, path, parsed.notPlain, layout, parsed.line, wholeFileMax);
    }
    return finishGeometry({
      positions: 3 * parsed.rows === positions.length ? positions : positions.slice(0, 3 * parsed.rows),
      dims: layout.dims,
      format,
      notes: [...layout.notes, PIECES_NOTE],
      bounds: parsed.bounds,
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * The file's first bytes for the layout analysis: enough to hold its first four complete lines that are
 * not blank or comments (a header or point count, the first data row, and a row after it, which the
 * analysis looks at), within ANALYSIS_MAX_BYTES; cut after a '\n' unless it is the whole file. Undefined
 * when there is no '\n' in ANALYSIS_MAX_BYTES: not a text file (csv-parse would spend seconds on it).
 */
function analysisPrefix(fd: number, size: number): Uint8Array | undefined {
  for (let length = Math.min(size, ANALYSIS_START_BYTES); ; length = Math.min(size, 2 * length)) {
    const bytes = new Uint8Array(length);
    const got = readFully(fd, bytes, 0, length, 0);
    if (got < length || length === size) return bytes.subarray(0, got);
    const end = contentLinesEnd(bytes, 4);
    if (end > 0) return bytes.subarray(0, end);
    if (length >= ANALYSIS_MAX_BYTES) {
      const lastLf = bytes.lastIndexOf(LF);
      return lastLf >= 0 ? bytes.subarray(0, lastLf + 1) : undefined;
    }
  }
}

/** The offset after the '\n' that ends the `wanted`-th line with content; 0 when there are fewer. */
function contentLinesEnd(bytes: Uint8Array, wanted: number): number {
  let found = 0, content = false, comment = false;
  for (let p = 0; p < bytes.length; p++) {
    const c = bytes[p];
    if (c === LF) {
      if (content && ++found === wanted) return p + 1;
      content = comment = false;
    } else if (c === HASH) comment = true;
    else if (!comment && c !== SPACE && c !== TAB && c !== CR) content = true;
  }
  return 0;
}

/** The file from the first data row on, as whole lines a piece at a time through one reused buffer. */
class PieceReader {
  private buffer: Uint8Array;
  constructor(private readonly fd: number, private size: number, readonly start: number) {
    this.buffer = new Uint8Array(Math.max(1, Math.min(pieceBytes(), size - start)));
  }

  /** The lines from `start` on (each '\n', and a last line without one): the most rows there can be. */
  countLines(native: NativeReader, threads: number | undefined): number {
    const count = new BigUint64Array(1);
    let lines = 0, last = LF;
    for (let position = this.start; position < this.size;) {
      const got = readFully(this.fd, this.buffer, 0, Math.min(this.buffer.length, this.size - position), position);
      if (got === 0) break;
      const piece = this.buffer.subarray(0, got);
      check(native, native.countLines(piece, got, readerThreads(threads), count) as number);
      last = piece[got - 1];
      lines += Number(count[0]) - (last === LF ? 0 : 1); // the '\n' bytes alone: a piece may end mid-line
      position += got;
    }
    return lines + (last === LF ? 0 : 1);
  }

  /** Hands each run of whole lines to `visit`, in order; false from `visit` stops. */
  forEachPiece(visit: (text: Uint8Array) => boolean): void {
    let position = this.start, carried = 0;
    while (position < this.size) {
      const got = readFully(this.fd, this.buffer, carried, Math.min(this.buffer.length - carried, this.size - position), position);
      if (got === 0) this.size = position; // the file shrank while we read it: parse what is there
      position += got;
      const filled = carried + got;
      const cut = position >= this.size ? filled : this.buffer.lastIndexOf(LF, filled - 1) + 1;
      if (cut === 0) {
        // A line longer than the buffer: make room for the rest of it.
        const larger = new Uint8Array(2 * this.buffer.length);
        larger.set(this.buffer.subarray(0, filled));
        this.buffer = larger;
        carried = filled;
        continue;
      }
      if (cut > 0 && !visit(this.buffer.subarray(0, cut))) return;
      this.buffer.copyWithin(0, cut, filled);
      carried = filled - cut;
    }
  }
}

type Parsed = { rows: number; bounds: Bounds } | { notPlain: Uint8Array; line: number };

/** Every piece through the native parser into `positions`; or the first piece that is not plain, and its first line. */
function parsePieces(native: NativeReader, body: PieceReader, layout: DelimitedLayout, positions: Float64Array, firstLine: number,
  threads: number | undefined): Parsed {
  const bounds: Bounds = { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
  const count = new BigUint64Array(1);
  let rows = 0, line = firstLine;
  let notPlain: Uint8Array | undefined;
  body.forEachPiece((text) => {
    const piece = parseRowsNatively(native, text, layout, positions.subarray(3 * rows), threads);
    if (!piece) {
      notPlain = text.slice();
      return false;
    }
    rows += piece.rows;
    for (let k = 0; k < 3; k++) {
      // Math.min and Math.max order -0 below +0, as the native bounds and computeBounds do.
      bounds.min[k] = Math.min(bounds.min[k], piece.bounds.min[k]);
      bounds.max[k] = Math.max(bounds.max[k], piece.bounds.max[k]);
    }
    // Plain text has no lone '\r', so its '\n' bytes are its lines: the next piece's first line number.
    check(native, native.countLines(text, text.length, readerThreads(threads), count) as number);
    line += Number(count[0]);
    return true;
  });
  return notPlain ? { notPlain, line } : { rows, bounds };
}

/**
 * The error for a file too large to read whole whose piece `text` (first line `firstLine`) is not plain:
 * the first line the native parser declines, found by halving (a prefix of plain lines is plain). Where
 * the TypeScript parser finds a fault in that line, its message; else what the plain shape is.
 */
function notPlainError(native: NativeReader, file: string, text: Uint8Array, layout: DelimitedLayout, firstLine: number,
  wholeFileMax: number): InputError {
  const starts = [0];
  for (let p = text.indexOf(LF); p >= 0 && p + 1 < text.length; p = text.indexOf(LF, p + 1)) starts.push(p + 1);
  const endOf = (k: number) => (k + 1 < starts.length ? starts[k + 1] : text.length);
  const scratch = new Float64Array(3 * starts.length);
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (parseRowsNatively(native, text.subarray(0, endOf(mid)), layout, scratch)) lo = mid + 1;
    else hi = mid;
  }
  const line = firstLine + lo, lineText = text.subarray(starts[lo], endOf(lo));
  // Quoted fields are csv-parse's in the whole-file reader; the row scanner would misreport them.
  if (lineText.indexOf(QUOTE) < 0) {
    try {
      const crs = lineText.reduce((n, c) => n + (c === CR ? 1 : 0), 0);
      readRows(new AsciiScanner(lineText, file, { line }), layout, crs + 1);
    } catch (error) {
      if (error instanceof InputError) return error;
      throw error;
    }
  }
  return new InputError(file, { line },
    `not in the plain shape that CSV / XYZ files over ${(wholeFileMax / GIB).toFixed(0)} GiB must have (they are read in pieces by ` +
    'the native parser): fields separated by commas or by spaces and tabs, lines ending in LF or CRLF, \'#\' comments, ' +
    'no quotes, numbers such as -12.5e3 within ±1e15');
}

function check(native: NativeReader, status: number): void {
  if (status !== 0) throw new NativeError(`counting lines: ${native.lastError()}`);
}
