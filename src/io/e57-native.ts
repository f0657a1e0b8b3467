// One E57 scan's section through the native reader (kernels/cpu/e57_reader.cpp): pages read and CRC-checked
// on every core, the bytestreams unpacked and the points posed in double there, a window of pages at a time.
// e57-points.ts stays the reference and the one that words errors: where the native reader finds anything
// amiss it says only that, and the caller decodes the section in TypeScript, which names the problem.
// Spherical scans come back as range, azimuth and elevation and are converted here by writePoints, so that
// cos and sin are JavaScript's own (a C library's may differ in the last bit).
import { NativeError } from '../core/errors.js';
import { XHD_E57_FLOAT32, XHD_E57_FLOAT64, XHD_E57_INTEGER, XHD_E57_OK, XHD_E57_PROBLEM, XHD_E57_SCALED, XHD_E57_SYSTEM_ERROR, type RawE57Result } from '../native/abi.js';
import { poseTransform, writePoints, type E57Section, type ScanTally } from './e57-points.js';
import type { E57Field } from './e57-scans.js';
import { asInputError, systemError } from './input-file.js';
import { nativePieceBytes, type NativeReader } from './native-reader.js';
import { readerThreads } from './reader-threads.js';

const KINDS: Record<E57Field['kind'], number> = { integer: XHD_E57_INTEGER, scaled: XHD_E57_SCALED, float32: XHD_E57_FLOAT32, float64: XHD_E57_FLOAT64 };

/** Points converted from spherical a batch at a time (the three coordinates go through separate arrays). */
const SPHERICAL_BATCH = 65536;

/**
 * Decodes `section` into out[3 * at ...] as decodeSection does; undefined where the native reader found a
 * problem (the caller then decodes the section itself, and reports it).
 */
export function readSectionNatively(reader: NativeReader, file: string, section: E57Section, out: Float64Array, at: number,
  threads?: number): ScanTally | undefined {
  const { scan } = section;
  const slots = [...scan.axes, scan.invalid];
  const field = (k: number) => (slots[k] >= 0 ? scan.fields[slots[k]] : undefined);
  const spherical = scan.coordinates === 'spherical';
  const transform = poseTransform(scan);
  const job = {
    data_start: section.dataStart,
    section_end: section.end,
    records: scan.records,
    piece_bytes: nativePieceBytes(),
    minimum: slots.map((_, k) => field(k)?.minimum ?? 0n),
    scale: slots.map((_, k) => field(k)?.scale ?? 1),
    offset: slots.map((_, k) => field(k)?.offset ?? 0),
    kind: slots.map((_, k) => KINDS[field(k)?.kind ?? 'integer']),
    bits: slots.map((_, k) => field(k)?.bits ?? 0),
    stream: slots,
    field_count: scan.fields.length,
    spherical: spherical ? 1 : 0,
    pose: spherical ? null : transform,
    threads: readerThreads(threads, 'XHD_E57_THREADS'),
    reserved: 0,
  };
  const result = {} as RawE57Result;
  const status = reader.readE57(file, job, out.subarray(3 * at), result) as number;
  if (status !== 0) throw new NativeError(`reading ${file}: ${reader.lastError()}`);
  if (result.kind === XHD_E57_PROBLEM) return undefined;
  if (result.kind === XHD_E57_SYSTEM_ERROR) throw asInputError(file, systemError(result.error_number), 'an E57 file');
  if (result.kind !== XHD_E57_OK) throw new NativeError(`reading ${file}: unknown E57 result kind ${result.kind}`);
  const kept = Number(result.kept), invalid = Number(result.invalid);
  let box: Float64Array;
  if (spherical) {
    box = Float64Array.of(Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity);
    if (!convertSpherical(out, at, kept, transform, box)) return undefined;
  } else {
    box = Float64Array.of(...result.min, ...result.max);
  }
  return { kept, invalid, bounds: kept > 0 ? { min: [box[0], box[1], box[2]], max: [box[3], box[4], box[5]] } : null };
}

/** Converts `count` range, azimuth, elevation triples at out[3 * at ...] to posed x, y, z in place; false at a bad coordinate. */
function convertSpherical(out: Float64Array, at: number, count: number, transform: Float64Array | null, box: Float64Array): boolean {
  const size = Math.min(SPHERICAL_BATCH, count);
  const values = [new Float64Array(size), new Float64Array(size), new Float64Array(size)];
  for (let first = 0; first < count; first += SPHERICAL_BATCH) {
    const n = Math.min(SPHERICAL_BATCH, count - first);
    for (let i = 0, p = 3 * (at + first); i < n; i++, p += 3) {
      values[0][i] = out[p];
      values[1][i] = out[p + 1];
      values[2][i] = out[p + 2];
    }
    if (writePoints(values, n, true, transform, out, 3 * (at + first), box) < 0) return false;
  }
  return true;
}
