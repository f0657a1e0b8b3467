// The data an HTML report embeds, as one set of types that both sides use: the generators in src/report/html/
// write it, the page's script (viewer/) reads it. Types only, importing nothing, so the browser code can import
// them without the generators' Node modules.

export interface DistanceSummary {
  count: number;
  max: number;
  mean: number;
  /** The 95th percentile of this direction (linear interpolation, as --percentile 95). */
  p95: number;
  /** Counts of FINE_BINS equal bins over [0, max]; max itself in the last. */
  bins: number[];
}

export interface WorstRegion {
  /** The worst point of the region: its index, coordinates (the input's own) and distance. */
  index: number;
  point: [number, number, number];
  distance: number;
  /** Points among the candidates (the direction's largest distances) within the radius of this one. */
  members: number;
}

/** One direction as the page sees it: which set it colours, and its plane offsets in the packed data. */
export interface DirectionData {
  key: 'ab' | 'ba';
  label: string;
  /** The set coloured (0 = A, 1 = B). */
  set: 0 | 1;
  summary: DistanceSummary;
  regions: WorstRegion[];
  witness: { from: number[]; to: number[]; distance: number } | null;
}

export interface SetData {
  name: 'A' | 'B';
  path: string;
  total: number;
  shown: number;
  worstKept: number;
  /** Whether the packed data holds a distance plane for this set (false: drawn only as the overlay). */
  hasDistances: boolean;
  /** Distances were quantised as fractions of this. */
  distanceScale: number;
}

export interface CompareReportData<Json = Record<string, unknown> & { hd: number }> {
  kind: 'compare';
  version: string;
  generated: string;
  command: string[];
  /** The --json report's object. */
  json: Json;
  range: [number, number];
  rangeGiven: boolean;
  /** 256 r,g,b entries of the perceptual colour map, as a plain array. */
  colourTable: number[];
  /** The packing box: 16-bit steps from min (pack-points.ts). */
  box: { min: [number, number, number]; step: [number, number, number] };
  sets: SetData[];
  directions: DirectionData[];
  /** Base64 of the deflated planes: per set x, y, z, then its distances where it has them. */
  packed: string;
  notes: string[];
  /** Two masks on one grid: the slice view's data (mask-slices.ts); null otherwise. */
  slices: SliceData | null;
}

/**
 * The slice view of two masks on one grid: every point of each set as its voxel, by linear index (i fastest),
 * with its distance. packed: base64 of the deflated planes, per set its voxel indices as increments from the
 * previous one (32-bit; the first from 0), then its distances as 16-bit fractions of its distanceScale.
 */
export interface SliceData {
  dims: [number, number, number];
  /** Each axis's voxel size (the affine's column lengths), for the slices' aspect. */
  spacing: [number, number, number];
  sets: Array<{ name: 'A' | 'B'; count: number; distanceScale: number }>;
  packed: string;
  /** The voxel (i, j, k) the slices open at: that of the largest distance (the HD's witness). */
  start: [number, number, number];
}

/** One pair as the table shows it; metrics null where the pair has none (an error, or not asked for). */
export interface BatchRow {
  line: number;
  status: string;
  a: string;
  b: string;
  hd: number | null;
  hd95: number | null;
  assd: number | null;
  /** The threshold's metric, measured value and limit, when the row has a threshold. */
  metric: string | null;
  limit: number | null;
  totalMs: number | null;
  error: string | null;
  /** The pair's own report page (--report-dir), as a link relative to the batch page; null without one. */
  report: string | null;
}

export interface BatchReportData {
  kind: 'batch';
  version: string;
  generated: string;
  command: string[];
  summary: Record<string, unknown>;
  rows: BatchRow[];
}

/** One mesh of a distance report's 3D view: which of its triangles are drawn, and their packing. */
export interface SceneMeshData {
  name: 'A' | 'B';
  path: string;
  /** The mesh's triangles (its points, for a point cloud) and how many of them are drawn. */
  total: number;
  shown: number;
  /** A point cloud: drawn as points, its "triangles" being point ids. */
  pointCloud: boolean;
  /** Vertices in the packed data (those the drawn triangles use), and their packing box (pack-points.ts). */
  vertices: number;
  box: { min: [number, number, number]; step: [number, number, number] };
}

/**
 * The distance report's 3D view: both meshes (B in its own coordinates, placed by each frame's pose) and the
 * exact corners of every triangle that is some frame's closest or farthest pair, to highlight unrounded.
 */
export interface DistanceSceneData {
  meshes: [SceneMeshData, SceneMeshData];
  /** Base64 of the deflated planes: per mesh x, y, z (16-bit), then its triangles' vertex indices (32-bit, not for a point cloud). */
  packed: string;
  /** Each frame's pose of B, [M | t] row by row (12 numbers a frame). */
  poses: number[][];
  /** Triangle id → its corners (x, y, z three times; a point cloud's point once), per mesh, in its own coordinates. */
  pairTriangles: { a: Record<string, number[]>; b: Record<string, number[]> };
}
