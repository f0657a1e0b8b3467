// The rows every per-point export writes, whatever its format: A → B's points, then B → A's, each with its
// distance, its nearest index (-1 where none is measured) and its direction (0 A → B, 1 B → A); and what
// the inputs say that a LiDAR export can keep (a LAS input's scale and offset, a CRS's WKT).
import type { DirectionPoints, PerPointDistances } from '../jobs/per-point.js';

// What an input contributes is gathered by the compare job (jobs/per-point.ts).
export { exportSource, type ExportSource } from '../jobs/per-point.js';

/** The directions written, in order: [direction code, its points]. */
export function exportDirections(d: PerPointDistances): [number, DirectionPoints][] {
  return d.ba ? [[0, d.ab], [1, d.ba]] : [[0, d.ab]];
}

export function rowCount(d: PerPointDistances): number {
  return d.ab.distances.length + (d.ba ? d.ba.distances.length : 0);
}

/** Bounds of every exported point (z 0 for 2D inputs). */
export function exportBounds(d: PerPointDistances): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (const [, p] of exportDirections(d)) {
    for (let i = 0; i < p.distances.length; i++) {
      for (let k = 0; k < 3; k++) {
        const v = d.dims === 2 && k === 2 ? 0 : p.points[3 * i + k];
        if (v < min[k]) min[k] = v;
        if (v > max[k]) max[k] = v;
      }
    }
  }
  return { min, max };
}

/** The smallest and largest distance written (for the LAS extra-bytes description). */
export function distanceRange(d: PerPointDistances): [number, number] {
  let min = Infinity, max = -Infinity;
  for (const [, p] of exportDirections(d)) {
    for (const v of p.distances) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return [min, max];
}
