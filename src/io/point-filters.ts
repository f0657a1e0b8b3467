// The point filters of compare and info (--classes, --returns, --bbox, --every): how they apply to a geometry
// that a reader has already made. LAS and LAZ apply them while decoding instead (las-records.ts), where the
// classification and returns are. Their values and parsing are in point-filter-values.ts.
import { formatCount } from '../core/counts.js';
import { UsageError } from '../core/errors.js';
import { computeBounds, markFinite } from '../core/coordinates.js';
import { plural } from './build.js';
import type { Geometry } from './geometry.js';
import type { PointFilters } from './point-filter-values.js';

export { describeFilters, hasFilters, parseBbox, parseClasses, RETURNS_FILTERS, type PointFilters, type ReturnsFilter } from './point-filter-values.js';
import { describeFilters, hasFilters } from './point-filter-values.js';

/** The note a filtered input gets. */
export function filteredNote(kept: number, of: number, f: PointFilters): string {
  return `${describeFilters(f)} kept ${plural(kept, 'point')} of ${formatCount(of)}`;
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
