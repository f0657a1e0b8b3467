// The one shape every reader returns, whatever the file format.

export type FileFormat = 'off' | 'ply' | 'csv' | 'xyz' | 'stl' | 'obj';

export interface Bounds {
  min: [number, number, number];
  max: [number, number, number];
}

export interface Geometry {
  /** Interleaved x,y,z per point; 2D inputs have z = 0 so every backend sees 3 floats a point. */
  positions: Float32Array;
  /** Number of points (positions.length / 3). */
  count: number;
  /** Dimensionality of the source data: 2 or 3. */
  dims: 2 | 3;
  /** Triangles as vertex-index triples (polygons are fan-triangulated); absent for point clouds. */
  triangles?: Uint32Array;
  /** Tight bounds of the positions; for an empty set min = +Inf and max = -Inf. */
  bounds: Bounds;
  format: FileFormat;
  /** Human-readable notes from the reader (e.g. "12 quads triangulated"). */
  notes: string[];
}

export interface ReadOptions {
  /** Forces a format instead of detecting it from the extension and contents. */
  format?: FileFormat;
  /** For CSV/XYZ/TXT: column names or 0-based indices for x,y[,z]. */
  columns?: string[];
}

/** Bounds of interleaved xyz positions. */
export function computeBounds(positions: Float32Array): Bounds {
  let minX = Infinity, minY = Infinity, minZ = Infinity;
  let maxX = -Infinity, maxY = -Infinity, maxZ = -Infinity;
  for (let i = 0; i < positions.length; i += 3) {
    const x = positions[i], y = positions[i + 1], z = positions[i + 2];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  return { min: [minX, minY, minZ], max: [maxX, maxY, maxZ] };
}

/** Index of the first point with a NaN or infinite coordinate, or -1. */
export function firstNonFinitePoint(positions: Float32Array): number {
  for (let i = 0; i < positions.length; i++) {
    if (!Number.isFinite(positions[i])) return Math.floor(i / 3);
  }
  return -1;
}
