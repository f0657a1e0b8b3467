// An uncompressed LAS body, read straight from the file a piece of whole records at a time into one reused
// buffer and decoded from it (las-records.ts): the file is never held whole, whatever its size.
import { InputError } from '../core/errors.js';
import { readFully } from './input-file.js';
import type { LasHeader } from './las-header.js';
import { decodeLasRecords, type RecordFilter, type RecordLayout } from './las-records.js';
import { pieceBytes } from './pieces.js';

/** The decoding facts of a header. */
export function recordLayout(header: LasHeader): RecordLayout {
  return { recordLength: header.recordLength, extended: header.pointFormat.extended, transform: Float64Array.from([...header.scale, ...header.offset]) };
}

/** Decodes every record of the body into `out`; returns how many points the filter kept. */
export function readLasBody(fd: number, file: string, header: LasHeader, filter: RecordFilter | null, out: Float64Array, tally: Float64Array,
  attributes: Uint8Array | null = null): number {
  const layout = recordLayout(header);
  const length = header.recordLength;
  const perPiece = Math.max(1, Math.floor(Math.min(pieceBytes(), header.pointCount * length) / length));
  const buffer = new Uint8Array(perPiece * length);
  const view = new DataView(buffer.buffer);
  let kept = 0;
  for (let first = 0; first < header.pointCount; first += perPiece) {
    const records = Math.min(perPiece, header.pointCount - first);
    const position = header.pointDataOffset + first * length;
    const got = readFully(fd, buffer, 0, records * length, position);
    // The size was checked against the header; a file that shrank since is still refused, not misread.
    if (got < records * length) {
      throw new InputError(file, { byte: position + got }, `file is truncated: data ran out in point ${first + Math.floor(got / length)} of ${header.pointCount}`);
    }
    kept = decodeLasRecords(view, 0, records, layout, filter, out, kept, tally, attributes);
  }
  return kept;
}
