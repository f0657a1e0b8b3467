// The rows of a CSV / XYZ file parsed by the native reader (xhd_parse_delimited) on every core. It takes
// only the plain shape (see kernels/include/xhd.h) and otherwise says so, and readRows in delimited.ts,
// the reference for every irregular case, parses the text instead: the result or the error is always
// the TypeScript parser's, only faster where the file is plain.
import { NativeError } from '../core/errors.js';
import type { RawDelimitedResult } from '../native/abi.js';
import type { DelimitedLayout } from './delimited-layout.js';
import type { Bounds } from './geometry.js';
import { nativePieceBytes, type NativeReader } from './native-reader.js';
import { readerThreads } from './reader-threads.js';

/**
 * The rows from byte `from` on (the first data row), 3 doubles each, and their bounds; undefined when the
 * text is not plain (a quote anywhere included: such files go to csv-parse).
 */
export function readRowsNatively(reader: NativeReader, bytes: Uint8Array, from: number, layout: DelimitedLayout, threads?: number):
  { positions: Float64Array; bounds: Bounds } | undefined {
  const text = bytes.subarray(from);
  const lines = new BigUint64Array(1);
  check(reader, reader.countLines(text, text.length, readerThreads(threads), lines) as number);
  // A row takes a line, so this holds every row; for a file with no blank or comment lines it is exact.
  const positions = new Float64Array(3 * Number(lines[0]));
  const parsed = parseRowsNatively(reader, text, layout, positions, threads);
  if (!parsed) return undefined;
  return {
    positions: 3 * parsed.rows === positions.length ? positions : positions.slice(0, 3 * parsed.rows),
    bounds: parsed.bounds,
  };
}

/**
 * Rows of `text` (whole lines, all of them data rows, blanks or comments) into `into`, which must have room
 * for 3 doubles per line; how many rows and their bounds, or undefined when the text is not plain.
 */
export function parseRowsNatively(reader: NativeReader, text: Uint8Array, layout: DelimitedLayout, into: Float64Array, threads?: number):
  { rows: number; bounds: Bounds } | undefined {
  const request = {
    slots: layout.slots,
    column_count: layout.columnCount,
    comma: layout.comma ? 1 : 0,
    threads: readerThreads(threads),
    reserved: 0,
    piece_bytes: nativePieceBytes(),
  };
  const result = {} as RawDelimitedResult;
  check(reader, reader.parseDelimited(text, text.length, request, into, Math.floor(into.length / 3), result) as number);
  if (result.plain !== 1) return undefined;
  return {
    rows: Number(result.rows),
    bounds: { min: [result.min[0], result.min[1], result.min[2]], max: [result.max[0], result.max[1], result.max[2]] },
  };
}

function check(reader: NativeReader, status: number): void {
  if (status !== 0) throw new NativeError(`parsing delimited text: ${reader.lastError()}`);
}
