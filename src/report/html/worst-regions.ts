// The places a report points the reader to first: the largest distances, grouped so that one bad spot
// with a thousand bad points is one entry and the second-worst spot elsewhere still makes the list.
import type { Coordinates } from '../../core/coordinates.js';
import { largestIndices } from './display-sample.js';
import type { WorstRegion } from './page-data.js';

export type { WorstRegion } from './page-data.js';


/** Candidates looked at: the largest distances of a direction. */
const CANDIDATES = 5000;

/**
 * Up to `count` regions, worst first: each candidate, in order of decreasing distance, joins the first
 * region whose worst point lies within `radius`, or starts a new one.
 */
export function worstRegions(points: Coordinates, distances: Float64Array, count: number, radius: number): WorstRegion[] {
  const regions: WorstRegion[] = [];
  const r2 = radius * radius;
  for (const i of largestIndices(distances, CANDIDATES)) {
    const x = points[3 * i], y = points[3 * i + 1], z = points[3 * i + 2];
    const home = regions.find((g) => (g.point[0] - x) ** 2 + (g.point[1] - y) ** 2 + (g.point[2] - z) ** 2 <= r2);
    if (home) home.members++;
    else if (regions.length < count) regions.push({ index: i, point: [x, y, z], distance: distances[i], members: 1 });
  }
  return regions;
}
