// The one shape every reader returns, whatever the file format.
import type { Crs } from './crs.js';
import type { E57Summary } from './e57-summary.js';
import type { LidarSummary } from './las-summary.js';
import type { Bounds, Coordinates } from '../core/coordinates.js';
import type { PointFilters } from './point-filter-values.js';

// The coordinate types and helpers live in core/ (every layer uses them); readers import them from here too.
export { boundsAreFinite, boundsDiagonal, computeBounds, firstNonFinitePoint, isMarkedFinite, markFinite } from '../core/coordinates.js';
export type { Bounds, Coordinates } from '../core/coordinates.js';

export type FileFormat = 'off' | 'ply' | 'csv' | 'xyz' | 'stl' | 'obj' | 'nifti' | 'nrrd' | 'metaimage' | 'dicom-seg' | 'las' | 'laz' | 'pcd' | 'e57';

/** The label-volume formats, read as masks (--label, --region, --voxel-space apply to them). */
export const VOLUME_FORMATS: readonly FileFormat[] = ['nifti', 'nrrd', 'metaimage', 'dicom-seg'];

/** A label-volume format. */
export type VoxelFormat = 'nifti' | 'nrrd' | 'metaimage' | 'dicom-seg';

export function isVolumeFormat(format: FileFormat | undefined): format is VoxelFormat {
  return format === 'nifti' || format === 'nrrd' || format === 'metaimage' || format === 'dicom-seg';
}

export interface Geometry {
  /**
   * Interleaved x,y,z per point, unrounded (see Coordinates for which array type a reader gives); 2D inputs
   * have z = 0 so every backend sees 3 coordinates a point.
   */
  positions: Coordinates;
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
  /** A voxel mask's grid (NIfTI, NRRD, MetaImage, DICOM-SEG inputs): where it lies, to tell whether two masks share one space. */
  grid?: {
    dims: [number, number, number];
    affine: Float64Array;
    foregroundVoxels: number;
    /** With a --label the mask lacks: the labels it does have (nonzero values, ascending; at most 1000). */
    labelsPresent?: number[];
    /** With MaskOptions.surfels: the surface elements (block centres) and their areas. */
    surfels?: { positions: Float64Array; areas: Float64Array };
  };
  /** The coordinate reference system the file states (LAS/LAZ), where it states one. */
  crs?: Crs;
  /** What a LAS/LAZ file's header and records say about it (xhd info). */
  lidar?: LidarSummary;
  /** What an E57 file's XML says about its scans (xhd info). */
  e57?: E57Summary;
  /**
   * LAS/LAZ read with `lasAttributes`: two bytes a point, its classification and its returns (return number |
   * number of returns << 4), for a LAS export to keep.
   */
  lasAttributes?: Uint8Array;
}

/** How a voxel mask becomes points (NIfTI, NRRD, MetaImage, DICOM-SEG inputs). */
export interface MaskOptions {
  /** Voxels equal to this value; default every nonzero voxel. */
  label?: number;
  /** surface (default): mask voxels with a 6-connected background neighbour; all: every mask voxel. */
  region?: 'surface' | 'all';
  /** Index coordinates (i, j, k) instead of millimetres through the affine. */
  voxelSpace?: boolean;
  /** Also the mask's surface elements with their areas (Geometry.grid.surfels), for the surfel variants. */
  surfels?: boolean;
}

export interface ReadOptions {
  /** Forces a format instead of detecting it from the extension and contents. */
  format?: FileFormat;
  /** For CSV/XYZ/TXT: column names or 0-based indices for x,y[,z]. */
  columns?: string[];
  /** For voxel masks. */
  mask?: MaskOptions;
  /** --classes, --returns, --bbox, --every. */
  filters?: PointFilters;
  /** LAS/LAZ: keep each point's classification and returns (Geometry.lasAttributes). */
  lasAttributes?: boolean;
  /** Threads the native readers use (the run's --threads); default every core this process may use. */
  threads?: number;
  /**
   * A GPU ordinal: a voxel mask's points are then selected by the CUDA library on that GPU (the same points), which
   * leaves the host's cores to other work (a BraTS-sized pair: about 36 ms of CPU on one thread, 0.4 ms of kernels).
   */
  maskDevice?: number;
}
