// An uncompressed LAS file described for xhd_points_compare_files, which reads its point records in ranges
// straight from the file: the header, the (E)VLRs for the CRS, and nothing of the body. Every point format
// (0-10) stores X, Y, Z as int32 at the start of a record; the library scales them in double exactly as the
// whole-file reader does (las-records.ts), so a streamed compare measures the same coordinates.
import type { Crs } from './crs.js';
import { fileSize, readPrefix, withOpenFile } from './input-file.js';
import { headerBoundsNote, skippedCrsNote, vlrsCrs, waveformNote } from './las.js';
import { checkLasBodySize, LAS_HEADER_PROBE, looksLikeLas, parseLasHeader, type LasHeader } from './las-header.js';
import { readLasVlrs } from './las-vlrs.js';
import type { RecordLayout } from './ply-point-file.js';
import { hostIsLittleEndian } from './ply-binary.js';
import { PlyType } from './ply-header.js';

export interface LasPointFile {
  path: string;
  format: 'las';
  count: number;
  dims: 3;
  floats: false;
  faces: false;
  layout: RecordLayout;
  crs?: Crs;
  /** What the whole-file reader would note, but the header-bounds note, which needs the points' bounds. */
  notes: string[];
  header: LasHeader;
}

/**
 * The file as a streamable point set, or null where it is not an uncompressed LAS file (or its header does not
 * parse: the whole-file reader says what is wrong). A header that lies about the file's size is an InputError,
 * as when the file is read whole.
 */
export function lasPointFile(path: string, threads = 0): LasPointFile | null {
  const found = lasHeaderOf(path);
  if (!found || found.header.compressed) return null;
  const { header, size } = found;
  checkLasBodySize(header, size, path);
  const { crs, skipped } = withOpenFile(path, (fd) => {
    const vlrs = readLasVlrs(fd, header, size, path);
    return { crs: vlrsCrs(fd, vlrs), skipped: skippedCrsNote(vlrs) };
  });
  const notes = [waveformNote(header), skipped].filter((n): n is string => n !== undefined);
  return {
    path,
    format: 'las',
    count: header.pointCount,
    dims: 3,
    floats: false,
    faces: false,
    layout: {
      body_offset: header.pointDataOffset,
      count: header.pointCount,
      piece_bytes: 0,
      stride: header.recordLength,
      swap_bytes: hostIsLittleEndian ? 0 : 1, // LAS is little-endian
      offset: [0, 4, 8],
      type: [PlyType.Int32, PlyType.Int32, PlyType.Int32],
      output: PlyType.Float64,
      threads,
      scale: [...header.scale],
      add: [...header.offset],
    },
    ...(crs ? { crs } : {}),
    notes,
    header,
  };
}

/**
 * The LAS (or LAZ) header of the file and the file's size, or null where it is not a LAS file or its header
 * does not parse (the whole-file reader then says what is wrong).
 */
export function lasHeaderOf(path: string): { header: LasHeader; size: number } | null {
  const size = fileSize(path);
  if (size === undefined) return null;
  const prefix = readPrefix(path, Math.min(size, LAS_HEADER_PROBE));
  if (!looksLikeLas(prefix)) return null;
  try {
    return { header: parseLasHeader(prefix, size, path), size };
  } catch {
    return null;
  }
}

/** The whole-file reader's notes for the points' bounds as read (the note on bounds outside the header's). */
export function lasBoundsNotes(file: { count: number; header: LasHeader }, min: number[], max: number[]): string[] {
  const note = file.count > 0 ? headerBoundsNote(file.header, min, max) : undefined;
  return note ? [note] : [];
}
