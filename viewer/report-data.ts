// The data the report generators embed: its types are the generators' own (src/report/html/page-data.ts),
// re-exported for the page's modules, beside what only the page makes of it.

export type { BatchReportData, BatchRow, CompareReportData, DirectionData, DistanceSceneData, DistanceSummary, SceneMeshData, SetData, SliceData, WorstRegion } from '../src/report/html/page-data.js';

/** A set's drawn points, decoded: coordinates relative to the view's centre, distances in input units. */
export interface DecodedSet {
  positions: Float32Array;
  distances: Float32Array | null;
}

/** A distance report's mesh, decoded: vertices relative to centre (its own coordinates' box centre), triangles (null: a point cloud). */
export interface DecodedMesh {
  positions: Float32Array;
  indices: Uint32Array | null;
  centre: [number, number, number];
}
