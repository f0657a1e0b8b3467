// compare --export FILE.laz: the LAS export's points compressed by xhd's LAZ writer (src/io/laz-write.ts,
// the native encoder). The encoder writes LASzip's version-2 items, which carry point formats 0 to 3, so the
// file is LAS 1.4 point format 0 rather than the .las export's format 6: classification in 5 bits (classes
// above 31 are written as 31, with a note), return number and count in 3 bits each (above 7 written as 7).
// The per-point values are extra-bytes dimensions of type double: distance, nearest_index (-1 where none was
// measured; exact, indices stay below 2^53) and direction (0 A → B, 1 B → A). Scale and offset are chosen as
// for the .las export (a LAS input's own where every point round-trips through it), the CRS copied when it
// came as WKT. The writer works under a temporary name and renames when complete: no partial file.
import type { ExportSource, PerPointDistances } from '../jobs/per-point.js';
import { writeLaz, type LazVlr } from '../io/laz-write.js';
import { chooseTransform } from './export-las.js';
import { exportDirections, rowCount } from './export-rows.js';

/** The largest class and return values point formats 0 to 3 hold. */
const MAX_CLASS = 31, MAX_RETURN = 7;

/** Writes the export; returns the notes it has for the user (rounding, clamped fields, an unwritten CRS). */
export function writeLazExport(path: string, d: PerPointDistances, sources: { a?: ExportSource; b?: ExportSource } = d.sources ?? {}): string[] {
  const count = rowCount(d);
  const xyz = new Float64Array(3 * count);
  const classification = new Uint8Array(count);
  const returnNumber = new Uint8Array(count).fill(1);
  const returnCount = new Uint8Array(count).fill(1);
  const distance = new Float64Array(count), nearest = new Float64Array(count), direction = new Float64Array(count);
  let clampedClasses = 0, clampedReturns = 0;
  let row = 0;
  for (const [dir, p] of exportDirections(d)) {
    const source = dir === 0 ? sources.a : sources.b;
    // A direction's points keep their input's classes and returns when they are that input's own points.
    const attributes = source?.lasAttributes && source.lasAttributes.of === p.points ? source.lasAttributes.values : null;
    for (let i = 0; i < p.distances.length; i++, row++) {
      xyz[3 * row] = p.points[3 * i];
      xyz[3 * row + 1] = p.points[3 * i + 1];
      xyz[3 * row + 2] = d.dims === 2 ? 0 : p.points[3 * i + 2];
      distance[row] = p.distances[i];
      nearest[row] = p.nearest ? Number(p.nearest[i]) : -1;
      direction[row] = dir;
      if (attributes === null) continue;
      const cls = attributes[2 * i], returns = attributes[2 * i + 1];
      if (cls > MAX_CLASS) clampedClasses++;
      classification[row] = Math.min(cls, MAX_CLASS);
      const number = returns & 15, of = returns >> 4;
      if (number > MAX_RETURN || of > MAX_RETURN) clampedReturns++;
      returnNumber[row] = Math.min(number, MAX_RETURN);
      returnCount[row] = Math.min(of, MAX_RETURN);
    }
  }
  const choice = chooseTransform(d, sources);
  const { scale, offset } = choice.transform;
  const notes: string[] = [];
  const vlrs: LazVlr[] = [];
  const crs = sources.a?.crs;
  if (crs?.wkt) vlrs.push({ userId: 'LASF_Projection', recordId: 2112, description: 'OGC WKT (from input A)', payload: new TextEncoder().encode(`${crs.wkt}\0`) });
  else if (crs) notes.push('A\'s CRS is not written to the LAZ export: it came as GeoTIFF keys, and only a WKT one is copied');
  writeLaz(path, {
    xyz, classification, returnNumber, returnCount,
    extra: [
      { name: 'distance', values: distance, description: 'xhd: distance to the other input' },
      { name: 'nearest_index', values: nearest, description: 'xhd: nearest point there, or -1' },
      { name: 'direction', values: direction, description: 'xhd: 0 A to B, 1 B to A' },
    ],
  }, { pointFormat: 0, minor: 4, scale, offset, vlrs, globalEncoding: crs?.wkt ? 16 : 0, software: 'xhd compare --export' });
  if (choice.from === 'chosen') {
    notes.push(choice.rounding === 0
      ? `LAZ export: scale ${scale.join(' ')}, every point stored exactly`
      : `LAZ export: scale ${scale.join(' ')}; coordinates rounded to it by at most ${choice.rounding.toPrecision(3)} (distances are exact, from the inputs)`);
  }
  if (clampedClasses > 0) notes.push(`LAZ export (point format 0): ${clampedClasses} points of classes above 31 written as class 31; export .las to keep them`);
  if (clampedReturns > 0) notes.push(`LAZ export (point format 0): ${clampedReturns} points with return numbers or counts above 7 written as 7; export .las to keep them`);
  return notes;
}
