// The places a report points the reader to first: the largest distances, grouped so that one bad spot
// with a thousand bad points is one entry and the second-worst spot elsewhere still makes the list.
import type { Coordinates } from '../../core/coordinates.js';
import { largestIndices } from './display-sample.js';
import type { WorstRegion } from './page-data.js';

export type { WorstRegion } from './page-data.js';


/** Candidates looked at: the largest distances of a direction. */
export const REGION_CANDIDATES = 5000;

/**
 * Up to `count` regions, worst first: each candidate, in order of decreasing distance, joins the first
 * region whose worst point lies within `radius`, or starts a new one. largest: the caller's largestIndices of
 * these distances, of which the first REGION_CANDIDATES (or all, when fewer) are the candidates.
 */
export function worstRegions(points: Coordinates, distances: Float64Array, count: number, radius: number, largest?: number[]): WorstRegion[] {
  const regions: WorstRegion[] = [];
  const r2 = radius * radius;
  const wanted = Math.min(REGION_CANDIDATES, distances.length);
  const candidates = largest && largest.length >= wanted ? largest.slice(0, wanted) : largestIndices(distances, wanted);
  for (const i of candidates) {
    const x = points[3 * i], y = points[3 * i + 1], z = points[3 * i + 2];
    let home = 0;
    while (home < regions.length && !within(regions[home].point, x, y, z, r2)) home++;
    if (home < regions.length) regions[home].members++;
    else if (regions.length < count) regions.push({ index: i, point: [x, y, z], distance: distances[i], members: 1 });
  }
  return regions;
}

function within(p: [number, number, number], x: number, y: number, z: number, r2: number): boolean {
  const dx = p[0] - x, dy = p[1] - y, dz = p[2] - z;
  return dx * dx + dy * dy + dz * dz <= r2;
}
