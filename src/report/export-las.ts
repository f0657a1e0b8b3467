// compare --export FILE.las: LAS 1.4, point data format 6, every exported point with three extra-bytes
// dimensions that CloudCompare, QGIS and PDAL show as scalar fields: distance (float64), nearest_index
// (int64, -1 where none was measured) and direction (uint8, 0 A → B, 1 B → A).
// Format 6 because LAS 1.4 asks new files to use 6-10 (and 64-bit counts); it is the smallest of those, and
// its 30 bytes carry the coordinates and the classification and returns, which a LAS/LAZ input's points keep
// (points of other inputs, and surface samples, are return 1 of 1, class 0: never classified).
// Coordinates are integers with a scale and offset: a LAS input's own (its points round-trip exactly), else
// per axis the finest power of ten that spans the points, with a note saying how far points were rounded.
// The header, its VLRs and the records are built apart, so that a LAZ writer can take the same records.
import type { PerPointDistances } from '../jobs/per-point.js';
import { distanceRange, exportBounds, exportDirections, rowCount, type ExportSource } from './export-rows.js';
import { XHD_VERSION } from '../core/version.js';
import { extraBytesDescriptor, extraBytesVlr, fixedText, LAS_DOUBLE, LAS_INT64, LAS_UCHAR, vlrBytes } from '../io/las-vlr.js';

export interface LasTransform {
  scale: [number, number, number];
  offset: [number, number, number];
}

const INT32_MAX = 2 ** 31 - 1;
const HEADER_SIZE = 375;
const POINT_FORMAT = 6;
const BASE_RECORD = 30;
/** distance float64, nearest_index int64, direction uint8. */
const EXTRA_BYTES = 17;
export const LAS_EXPORT_RECORD = BASE_RECORD + EXTRA_BYTES;
const CHUNK_POINTS = 1 << 16;

/** The largest |stored - exact| over every exported point under `t`, or Infinity when one does not fit an int32. */
function roundingError(d: PerPointDistances, t: LasTransform): number {
  let worst = 0;
  for (const [, p] of exportDirections(d)) {
    for (let i = 0; i < p.distances.length; i++) {
      for (let k = 0; k < 3; k++) {
        const v = d.dims === 2 && k === 2 ? 0 : p.points[3 * i + k];
        const integer = Math.round((v - t.offset[k]) / t.scale[k]);
        if (!(Math.abs(integer) <= INT32_MAX)) return Infinity;
        const error = Math.abs(integer * t.scale[k] + t.offset[k] - v);
        if (error > worst) worst = error;
      }
    }
  }
  return worst;
}

/** Per axis, a whole-number offset at the middle and the finest power of ten (1e-9 at most) that spans the points. */
function decimalTransform(d: PerPointDistances): LasTransform {
  const { min, max } = exportBounds(d);
  const scale = [0, 0, 0] as LasTransform['scale'], offset = [0, 0, 0] as LasTransform['offset'];
  for (let k = 0; k < 3; k++) {
    offset[k] = max[k] >= min[k] ? Math.round((min[k] + max[k]) / 2) : 0;
    const half = max[k] >= min[k] ? Math.max(max[k] - offset[k], offset[k] - min[k]) : 0;
    let exponent = -9;
    while (half / 10 ** exponent > INT32_MAX - 1) exponent++;
    scale[k] = exponent < 0 ? Number(`1e${exponent}`) : 10 ** exponent; // "1e-3" parses to the double nearest 0.001
  }
  return { scale, offset };
}

export interface TransformChoice {
  transform: LasTransform;
  /** The largest distance any exported coordinate moved when stored (0: all exact). */
  rounding: number;
  /** Where the scale and offset came from. */
  from: 'A' | 'B' | 'chosen';
}

/** A LAS input's scale and offset when every exported point round-trips through it exactly; else a decimal one. */
export function chooseTransform(d: PerPointDistances, sources: { a?: ExportSource; b?: ExportSource }): TransformChoice {
  for (const [from, source] of [['A', sources.a], ['B', sources.b]] as const) {
    const t = source?.lasTransform;
    if (t && roundingError(d, t) === 0) return { transform: { scale: [...t.scale], offset: [...t.offset] }, rounding: 0, from };
  }
  const transform = decimalTransform(d);
  return { transform, rounding: roundingError(d, transform), from: 'chosen' };
}

export interface LasExport {
  choice: TransformChoice;
  count: number;
  /** The header and VLRs (`more` VLRs after xhd's, e.g. a LAZ writer's), the point data right after them. */
  header(more?: Uint8Array[]): Uint8Array;
  /** The point records, in chunks (a chunk may be reused once the next is asked for). */
  records(): Generator<Uint8Array>;
  notes: string[];
}

export function lasExport(d: PerPointDistances, sources: { a?: ExportSource; b?: ExportSource }): LasExport {
  const choice = chooseTransform(d, sources);
  const { scale, offset } = choice.transform;
  const count = rowCount(d);
  const [dMin, dMax] = count > 0 ? distanceRange(d) : [0, 0];
  const notes: string[] = [];
  const descriptors = [
    extraBytesDescriptor('distance', LAS_DOUBLE, 'xhd: distance to the other input', count > 0 ? { min: dMin, max: dMax } : {}),
    extraBytesDescriptor('nearest_index', LAS_INT64, 'xhd: nearest point there, or -1', { noData: -1n }),
    extraBytesDescriptor('direction', LAS_UCHAR, 'xhd: 0 A to B, 1 B to A'),
  ];
  const vlrs = [extraBytesVlr(descriptors, 'xhd per-point distances')];
  const crs = sources.a?.crs;
  if (crs?.wkt) vlrs.push(vlrBytes('LASF_Projection', 2112, 'OGC WKT (from input A)', new TextEncoder().encode(`${crs.wkt}\0`)));
  else if (crs) notes.push('A\'s CRS is not written to the LAS export: it came as GeoTIFF keys, and point format 6 takes WKT only');
  if (choice.from === 'chosen') {
    notes.push(choice.rounding === 0
      ? `LAS export: scale ${scale.join(' ')}, every point stored exactly`
      : `LAS export: scale ${scale.join(' ')}; coordinates rounded to it by at most ${choice.rounding.toPrecision(3)} (distances are exact, from the inputs)`);
  }
  const stored = (v: number, k: number) => Math.round((v - offset[k]) / scale[k]);
  // A direction's points keep their input's classes and returns when they are that input's own points.
  const attributesOf = (direction: number, points: PerPointDistances['ab']['points']): Uint8Array | null => {
    const source = direction === 0 ? sources.a : sources.b;
    return source?.lasAttributes && source.lasAttributes.of === points ? source.lasAttributes.values : null;
  };
  /** Points by return number 1 to 15, as the header states them. */
  const returnCounts = (): number[] => {
    const counts = new Array<number>(15).fill(0);
    for (const [direction, p] of exportDirections(d)) {
      const attributes = attributesOf(direction, p.points);
      if (attributes === null) counts[0] += p.distances.length;
      else for (let i = 0; i < p.distances.length; i++) if ((attributes[2 * i + 1] & 15) >= 1) counts[(attributes[2 * i + 1] & 15) - 1]++;
    }
    return counts;
  };
  return {
    choice,
    count,
    notes,
    header(more: Uint8Array[] = []) {
      const all = [...vlrs, ...more];
      const vlrLength = all.reduce((s, v) => s + v.length, 0);
      const bytes = new Uint8Array(HEADER_SIZE + vlrLength);
      const view = new DataView(bytes.buffer);
      fixedText(bytes, 0, 4, 'LASF');
      view.setUint16(6, 16, true); // global encoding bit 4: the CRS, if any, is WKT (required with formats 6-10)
      bytes[24] = 1;
      bytes[25] = 4;
      fixedText(bytes, 26, 32, 'xhd compare --export');
      fixedText(bytes, 58, 32, `xhd ${XHD_VERSION}`);
      const now = new Date();
      view.setUint16(90, Math.floor((Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - Date.UTC(now.getUTCFullYear(), 0, 1)) / 86_400_000) + 1, true);
      view.setUint16(92, now.getUTCFullYear(), true);
      view.setUint16(94, HEADER_SIZE, true);
      view.setUint32(96, HEADER_SIZE + vlrLength, true);
      view.setUint32(100, all.length, true);
      bytes[104] = POINT_FORMAT;
      view.setUint16(105, LAS_EXPORT_RECORD, true);
      // Legacy counts stay 0, as format 6 requires; the 64-bit ones hold the points (all return 1 of 1).
      for (let k = 0; k < 3; k++) {
        view.setFloat64(131 + 8 * k, scale[k], true);
        view.setFloat64(155 + 8 * k, offset[k], true);
      }
      const { min, max } = count > 0 ? exportBounds(d) : { min: [0, 0, 0], max: [0, 0, 0] };
      for (let k = 0; k < 3; k++) {
        // The bounds of the stored coordinates, as readers recompute them.
        view.setFloat64(179 + 16 * k, count > 0 ? stored(max[k], k) * scale[k] + offset[k] : 0, true);
        view.setFloat64(187 + 16 * k, count > 0 ? stored(min[k], k) * scale[k] + offset[k] : 0, true);
      }
      view.setBigUint64(247, BigInt(count), true);
      returnCounts().forEach((n, r) => view.setBigUint64(255 + 8 * r, BigInt(n), true));
      let at = HEADER_SIZE;
      for (const v of all) {
        bytes.set(v, at);
        at += v.length;
      }
      return bytes;
    },
    *records() {
      const chunk = new Uint8Array(CHUNK_POINTS * LAS_EXPORT_RECORD);
      const view = new DataView(chunk.buffer);
      for (const [direction, p] of exportDirections(d)) {
        const n = p.distances.length;
        const attributes = attributesOf(direction, p.points);
        for (let start = 0; start < n; start += CHUNK_POINTS) {
          const end = Math.min(n, start + CHUNK_POINTS);
          chunk.fill(0);
          for (let i = start, o = 0; i < end; i++, o += LAS_EXPORT_RECORD) {
            view.setInt32(o, stored(p.points[3 * i], 0), true);
            view.setInt32(o + 4, stored(p.points[3 * i + 1], 1), true);
            view.setInt32(o + 8, stored(d.dims === 2 ? 0 : p.points[3 * i + 2], 2), true);
            if (attributes !== null) {
              chunk[o + 14] = attributes[2 * i + 1];
              chunk[o + 16] = attributes[2 * i];
            } else {
              chunk[o + 14] = 0x11; // return 1 of 1
            }
            view.setFloat64(o + BASE_RECORD, p.distances[i], true);
            view.setBigInt64(o + BASE_RECORD + 8, p.nearest ? p.nearest[i] : -1n, true);
            chunk[o + BASE_RECORD + 16] = direction;
          }
          yield chunk.subarray(0, (end - start) * LAS_EXPORT_RECORD);
        }
      }
    },
  };
}
