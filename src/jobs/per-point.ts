// Every query point's distance to the other input (and, for point sets, its nearest point there): what a
// compare keeps when asked to export them (--export) or to draw them (--report), for the report layer.
import type { Coordinates } from '../core/coordinates.js';
import type { Crs } from '../io/crs.js';
import type { Geometry } from '../io/geometry.js';

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
  /** What the inputs give a LiDAR export (a LAS input's scale and offset, a CRS). */
  sources?: { a?: ExportSource; b?: ExportSource };
  /** Two voxel masks: each one's grid (its points are voxel centres through the affine), for a report's slices. */
  grids?: { a: VoxelGrid; b: VoxelGrid };
}

/** A voxel mask's grid: its size and its affine (row-major 3x4, voxel (i, j, k) to x, y, z). */
export interface VoxelGrid {
  dims: [number, number, number];
  affine: Float64Array;
}

/** What an input contributes to a LiDAR export. */
export interface ExportSource {
  /** A LAS/LAZ input's scale and offset, which its own points round-trip through exactly. */
  lasTransform?: { scale: [number, number, number]; offset: [number, number, number] };
  crs?: Crs;
  /** A LAS/LAZ input's classification and returns a point (Geometry.lasAttributes), and the points they belong to. */
  lasAttributes?: { values: Uint8Array; of: Geometry['positions'] };
}

export function exportSource(g: Geometry): ExportSource {
  const source: ExportSource = {};
  if (g.lidar) source.lasTransform = { scale: g.lidar.scale, offset: g.lidar.offset };
  if (g.crs) source.crs = g.crs;
  if (g.lasAttributes) source.lasAttributes = { values: g.lasAttributes, of: g.positions };
  return source;
}
