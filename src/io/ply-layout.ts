// The shapes the PLY readers pass between them: where the geometry lies in the header, and what a body
// reader returns. Apart from ply.ts so the body readers need not import the reader that calls them.
import type { Bounds, Coordinates } from '../core/coordinates.js';
import type { PlyElement } from './ply-header.js';

/** Where the geometry lives among the declared elements and properties. */
export interface PlyLayout {
  vertex: PlyElement;
  x: number;
  y: number;
  /** -1 for 2D data. */
  z: number;
  face?: PlyElement;
  /** Index of the vertex_indices list among the face properties. */
  faceIndices: number;
}

/** What both body readers return. */
export interface PlyBody {
  /** Float64Array for ascii bodies; binary ones follow the stored types (see ply-binary.ts). */
  positions: Coordinates;
  triangles?: Uint32Array;
  polygonsTriangulated: number;
  trailingBytes: number;
  notes: string[];
  /** Set when the body reader computed them (its finiteness check). */
  bounds?: Bounds;
}
