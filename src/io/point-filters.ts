// The point filters of compare and info (--classes, --returns, --bbox, --every): their command-line values,
// the fields they need, and how they apply to a geometry that a reader has already made. LAS and LAZ
// apply them while decoding instead (las-records.ts), where the classification and returns are.
import { InvalidArgumentError } from 'commander';

import { UsageError } from '../errors.js';
import { plural } from './build.js';
import { computeBounds, markFinite, type Geometry } from './geometry.js';

export type ReturnsFilter = 'first' | 'last' | 'all';
export const RETURNS_FILTERS: ReturnsFilter[] = ['first', 'last', 'all'];

export interface PointFilters {
  /** LAS classification codes to keep. */
  classes?: number[];
  /** first: return number ≤ 1; last: return number ≥ number of returns; all: every point. */
  returns?: ReturnsFilter;
  /** Keep points inside this box (edges included); a 2D box leaves z free (±Infinity). */
  bbox?: { min: [number, number, number]; max: [number, number, number] };
  /** Keep every Nth of the points the other filters keep (the first, the N+1th, ...). */
  every?: number;
  /** E57: read this scan alone (numbered from 0 in the file's order) instead of every scan. */
  scan?: number;
}

export function parseClasses(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const classes = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
  if (parts.length === 0 || classes.some((c) => !(c >= 0 && c <= 255))) {
    throw new InvalidArgumentError(`expected comma-separated LAS classification codes from 0 to 255, got '${value}'`);
  }
  return [...new Set(classes)].sort((a, b) => a - b);
}

export function parseBbox(value: string): PointFilters['bbox'] {
  const numbers = value.split(',').map((p) => (p.trim() === '' ? NaN : Number(p)));
  if ((numbers.length !== 4 && numbers.length !== 6) || numbers.some((n) => !Number.isFinite(n))) {
    throw new InvalidArgumentError(`expected xmin,ymin,xmax,ymax or xmin,ymin,zmin,xmax,ymax,zmax, got '${value}'`);
  }
  const [min, max]: [number, number, number][] = numbers.length === 4
    ? [[numbers[0], numbers[1], -Infinity], [numbers[2], numbers[3], Infinity]]
    : [[numbers[0], numbers[1], numbers[2]], [numbers[3], numbers[4], numbers[5]]];
  if (min.some((m, axis) => m > max[axis])) throw new InvalidArgumentError(`a minimum is above its maximum in '${value}'`);
  return { min, max };
}

export function hasFilters(f: PointFilters | undefined): f is PointFilters {
  return f !== undefined && (f.classes !== undefined || (f.returns !== undefined && f.returns !== 'all') || f.bbox !== undefined || (f.every ?? 1) > 1);
}

/** "--classes 2,6 --every 10": the filters given, as they were written. */
export function describeFilters(f: PointFilters): string {
  const parts: string[] = [];
  if (f.classes) parts.push(`--classes ${f.classes.join(',')}`);
  if (f.returns && f.returns !== 'all') parts.push(`--returns ${f.returns}`);
  if (f.bbox) {
    const { min, max } = f.bbox;
    parts.push(`--bbox ${(Number.isFinite(min[2]) ? [...min, ...max] : [min[0], min[1], max[0], max[1]]).join(',')}`);
  }
  if ((f.every ?? 1) > 1) parts.push(`--every ${f.every}`);
  return parts.join(' ');
}

/** The note a filtered input gets. */
export function filteredNote(kept: number, of: number, f: PointFilters): string {
  return `${describeFilters(f)} kept ${plural(kept, 'point')} of ${of.toLocaleString('en-US')}`;
}

/**
 * Applies the filters to a geometry of a format without LAS fields (every format but LAS/LAZ): --classes or
 * --returns on one is a usage error naming the file. A mesh's --bbox keeps the vertices inside and the
 * triangles with all three corners inside; --every on a mesh thins its vertices and drops its faces (said
 * in a note), as thinning a surface's vertices leaves no surface.
 */
export function filterGeometry(g: Geometry, file: string, f: PointFilters): Geometry {
  const lasOnly = f.classes !== undefined ? '--classes' : f.returns !== undefined && f.returns !== 'all' ? '--returns' : undefined;
  if (lasOnly) {
    throw new UsageError(`${lasOnly} needs LAS ${lasOnly === '--classes' ? 'classification' : 'return numbers'}, and ${file} (${g.format.toUpperCase()}) has none`);
  }
  if (!hasFilters(f)) return g;
  const before = g.count;
  const keep = new Int32Array(g.count).fill(-1); // each vertex's new index, or -1
  let kept = 0;
  const box = f.bbox;
  const p = g.positions;
  for (let v = 0; v < g.count; v++) {
    if (box) {
      const x = p[3 * v], y = p[3 * v + 1], z = p[3 * v + 2];
      if (x < box.min[0] || x > box.max[0] || y < box.min[1] || y > box.max[1] || z < box.min[2] || z > box.max[2]) continue;
    }
    keep[v] = kept++;
  }
  const every = f.every ?? 1;
  if (every > 1) {
    let rank = 0;
    kept = 0;
    for (let v = 0; v < g.count; v++) {
      if (keep[v] < 0) continue;
      keep[v] = rank++ % every === 0 ? kept++ : -1;
    }
  }
  const positions = new (p.constructor as Float64ArrayConstructor)(3 * kept);
  for (let v = 0; v < g.count; v++) {
    const to = keep[v];
    if (to >= 0) positions.set(p.subarray(3 * v, 3 * v + 3), 3 * to);
  }
  const notes = [...g.notes, filteredNote(kept, before, f)];
  let triangles: Uint32Array | undefined;
  if (g.triangles && every > 1) {
    notes.push(`${plural(g.triangles.length / 3, 'triangle')} dropped: --every thins points, and leaves no surface`);
  } else if (g.triangles) {
    const t = g.triangles, inside: number[] = [];
    for (let i = 0; i < t.length; i += 3) {
      const a = keep[t[i]], b = keep[t[i + 1]], c = keep[t[i + 2]];
      if (a >= 0 && b >= 0 && c >= 0) inside.push(a, b, c);
    }
    triangles = Uint32Array.from(inside);
  }
  const filtered: Geometry = { ...g, positions, count: kept, bounds: computeBounds(positions), notes };
  if (triangles && triangles.length > 0) filtered.triangles = triangles;
  else delete filtered.triangles;
  markFinite(positions); // a subset of coordinates the reader already checked
  return filtered;
}
