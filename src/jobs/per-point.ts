// Every query point's distance to the other input (and, for point sets, its nearest point there): what a
// compare keeps when asked to export them (--export) or to draw them (--report), for the report layer.
import type { Coordinates } from '../core/coordinates.js';

export interface DirectionPoints {
  /** The query points, interleaved x,y,z, in the input's coordinates. */
  points: Coordinates;
  distances: Float64Array;
  /** Index of each point's nearest point in the other input; null where not measured. */
  nearest: BigInt64Array | null;
}

export interface PerPointDistances {
  dims: 2 | 3;
  /** point: nearest holds point indices; none: no index was measured. */
  nearestIs: 'point' | 'none';
  ab: DirectionPoints;
  ba: DirectionPoints | null;
  /** B's points when ba is null (a directed run): an HTML report draws them as the faint overlay. */
  targetPoints?: Coordinates;
}
