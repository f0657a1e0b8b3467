// Decoding a run of LAS point records (raw from a LAS file, or as the LAZ decoder writes them): each X, Y, Z
// scaled as X * scale + offset in double, in that order and unfused (the input's own coordinates, which xhd
// is exact over), the points the filters keep written out, and every record tallied by class and return.
// One function for both paths, so that LAS and LAZ cannot disagree on a field.
import type { PointFilters } from './point-filters.js';
import { TALLY_CLASSES, TALLY_LENGTH, TALLY_MAX, TALLY_MIN, TALLY_RAW_MAX, TALLY_RAW_MIN, TALLY_RETURNS } from './las-tally.js';

// The tally's layout (its own file: the summary reads it too); re-exported for the decoders.
export { TALLY_CLASSES, TALLY_LENGTH, TALLY_MAX, TALLY_MIN, TALLY_RAW_MAX, TALLY_RAW_MIN, TALLY_RETURNS } from './las-tally.js';

export function newTally(): Float64Array {
  const tally = new Float64Array(TALLY_LENGTH);
  resetTally(tally);
  return tally;
}

export function resetTally(tally: Float64Array): void {
  tally.fill(0);
  tally.fill(Infinity, TALLY_RAW_MIN, TALLY_RAW_MIN + 3);
  tally.fill(-Infinity, TALLY_RAW_MAX, TALLY_RAW_MAX + 3);
  tally.fill(Infinity, TALLY_MIN, TALLY_MIN + 3);
  tally.fill(-Infinity, TALLY_MAX, TALLY_MAX + 3);
}

/** Adds `from` into `into` (workers' tallies into one). */
export function mergeTally(into: Float64Array, from: Float64Array): void {
  for (let i = 0; i < TALLY_RAW_MIN; i++) into[i] += from[i];
  for (const [min, max] of [[TALLY_RAW_MIN, TALLY_RAW_MAX], [TALLY_MIN, TALLY_MAX]]) {
    for (let k = 0; k < 3; k++) {
      into[min + k] = Math.min(into[min + k], from[min + k]);
      into[max + k] = Math.max(into[max + k], from[max + k]);
    }
  }
}

/** The filters in the form the loop tests: a class mask, a return rule, a box. Structured-clonable (workers). */
export interface RecordFilter {
  /** 1 for each class kept, or null for every class. */
  classes: Uint8Array | null;
  /** 0 all, 1 first, 2 last. */
  returns: number;
  /** min x, y, z then max x, y, z, or null. */
  box: Float64Array | null;
}

export function recordFilter(f: PointFilters | undefined): RecordFilter | null {
  if (!f || (f.classes === undefined && (f.returns ?? 'all') === 'all' && f.bbox === undefined)) return null;
  let classes: Uint8Array | null = null;
  if (f.classes) {
    classes = new Uint8Array(256);
    for (const c of f.classes) classes[c] = 1;
  }
  return {
    classes,
    returns: f.returns === 'first' ? 1 : f.returns === 'last' ? 2 : 0,
    box: f.bbox ? Float64Array.from([...f.bbox.min, ...f.bbox.max]) : null,
  };
}

/** The layout facts the loop needs, and the transform: scale x, y, z then offset x, y, z. */
export interface RecordLayout {
  recordLength: number;
  /** Formats 6-10 (4-bit returns in byte 14, the class in byte 16); else formats 0-5. */
  extended: boolean;
  transform: Float64Array;
}

/**
 * Decodes `count` records starting at byte `start` of `view` into out[3 * at ...] (the kept ones, packed);
 * returns the index after the last point written. With `attributes`, each kept point's classification and
 * returns (return number | number of returns << 4) go to attributes[2 * index ...] (for a LAS export).
 */
export function decodeLasRecords(view: DataView, start: number, count: number, layout: RecordLayout, filter: RecordFilter | null,
  out: Float64Array, at: number, tally: Float64Array, attributes: Uint8Array | null = null): number {
  const length = layout.recordLength, t = layout.transform;
  const sx = t[0], sy = t[1], sz = t[2], ox = t[3], oy = t[4], oz = t[5];
  const classByte = layout.extended ? 16 : 15, classMask = layout.extended ? 0xff : 0x1f;
  const returnMask = layout.extended ? 0x0f : 0x07, countShift = layout.extended ? 4 : 3;
  let rawMinX = tally[TALLY_RAW_MIN], rawMinY = tally[TALLY_RAW_MIN + 1], rawMinZ = tally[TALLY_RAW_MIN + 2];
  let rawMaxX = tally[TALLY_RAW_MAX], rawMaxY = tally[TALLY_RAW_MAX + 1], rawMaxZ = tally[TALLY_RAW_MAX + 2];
  let minX = tally[TALLY_MIN], minY = tally[TALLY_MIN + 1], minZ = tally[TALLY_MIN + 2];
  let maxX = tally[TALLY_MAX], maxY = tally[TALLY_MAX + 1], maxZ = tally[TALLY_MAX + 2];
  const classes = filter?.classes ?? null, returns = filter?.returns ?? 0, box = filter?.box ?? null;
  let o = 3 * at;
  for (let r = 0, p = start; r < count; r++, p += length) {
    const X = view.getInt32(p, true), Y = view.getInt32(p + 4, true), Z = view.getInt32(p + 8, true);
    const returnByte = view.getUint8(p + 14);
    const cls = view.getUint8(p + classByte) & classMask;
    const returnNumber = returnByte & returnMask;
    tally[TALLY_CLASSES + cls]++;
    tally[TALLY_RETURNS + returnNumber]++;
    if (X < rawMinX) rawMinX = X;
    if (X > rawMaxX) rawMaxX = X;
    if (Y < rawMinY) rawMinY = Y;
    if (Y > rawMaxY) rawMaxY = Y;
    if (Z < rawMinZ) rawMinZ = Z;
    if (Z > rawMaxZ) rawMaxZ = Z;
    // Written as two operations on purpose: the product rounded to double, then the sum (no fused multiply-add).
    const x = X * sx + ox, y = Y * sy + oy, z = Z * sz + oz;
    if (filter !== null) {
      if (classes !== null && classes[cls] === 0) continue;
      if (returns === 1 && returnNumber > 1) continue;
      if (returns === 2 && returnNumber < ((returnByte >> countShift) & returnMask)) continue;
      if (box !== null && (x < box[0] || y < box[1] || z < box[2] || x > box[3] || y > box[4] || z > box[5])) continue;
    }
    out[o] = x;
    out[o + 1] = y;
    out[o + 2] = z;
    if (attributes !== null) {
      const a = (2 * o) / 3;
      attributes[a] = cls;
      attributes[a + 1] = returnNumber | (((returnByte >> countShift) & returnMask) << 4);
    }
    o += 3;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  tally[TALLY_RAW_MIN] = rawMinX; tally[TALLY_RAW_MIN + 1] = rawMinY; tally[TALLY_RAW_MIN + 2] = rawMinZ;
  tally[TALLY_RAW_MAX] = rawMaxX; tally[TALLY_RAW_MAX + 1] = rawMaxY; tally[TALLY_RAW_MAX + 2] = rawMaxZ;
  tally[TALLY_MIN] = minX; tally[TALLY_MIN + 1] = minY; tally[TALLY_MIN + 2] = minZ;
  tally[TALLY_MAX] = maxX; tally[TALLY_MAX + 1] = maxY; tally[TALLY_MAX + 2] = maxZ;
  return o / 3;
}
