// The outcome of `xhd compare` as one plain object that the text, JSON and HTML renderers share, the options
// that ask for it, and the base every comparison path (points, surface, empty input) builds its result on.
import { type EmptyOutcome, type EmptyPolicy } from './empty-policy.js';
import { type DeviceInfo } from '../ops/backends.js';
import { type BackendChoice, type Method } from '../ops/hausdorff.js';
import { boundsDiagonal, type Coordinates, type FileFormat, type Geometry, type MaskOptions } from '../io/geometry.js';
import { spaceDifference } from '../io/voxel-mask.js';
import { type Crs } from '../io/crs.js';
import type { PointFilters } from '../io/point-filters.js';
import { type ProgressFactory } from '../core/progress.js';
import type { SamplingMode } from '../sampling/sample-mesh.js';
import { type DirectionStats } from '../ops/surface-compare.js';
import type { SurfaceMethod } from '../ops/surface-distance.js';
import { type AssdVariant, type DistanceStats, type PercentileVariant } from '../metrics/distance-stats.js';
import type { PerPointDistances } from './per-point.js';
import { type RelativeBasis, type RelativeValues } from '../metrics/relative.js';
import { type ThresholdMetric, type ThresholdSpec, type ThresholdVerdict } from './threshold.js';

export interface CompareOptions {
  method: Method;
  directed: boolean;
  backend: BackendChoice;
  device?: number;
  /** Point compares on the CUDA backend: the GPUs sharing the queries ('all', or ordinals; repeats allowed). */
  devices?: number[] | 'all';
  /** Bytes of device memory each GPU worker may use; a target that does not fit is searched in tiles. */
  memoryLimit?: number;
  threads?: number;
  seed?: number;
  /** Reports how far the work has got (the command line draws a bar); default: nothing. */
  progress?: ProgressFactory;
  format?: FileFormat;
  columns?: string[];
  signal?: AbortSignal;
  /** How NIfTI voxel masks become points. */
  mask?: MaskOptions;
  /** Compare meshes by their vertices as point sets, not surface to surface. */
  verticesOnly?: boolean;
  sampling?: SamplingMode;
  /** Samples per mesh (surface mode). */
  samples?: number;
  /** Samples per unit area (surface mode). */
  density?: number;
  /**
   * The command writes a heatmap PLY here / prints a histogram from the per-sample distances. Given here so
   * that points mode, which has no per-sample distances, is refused before it runs.
   */
  heatmap?: string;
  histogram?: boolean;
  /** Measure every point's distance and report averages (mean, ASSD, RMS, Chamfer); implied by percentile. */
  stats?: boolean;
  /** Percentile Hausdorff distance to report (95 for HD95). */
  percentile?: number;
  percentileVariant?: PercentileVariant;
  assdVariant?: AssdVariant;
  /** --fail-above: the limit, and the metric it applies to (default hd). */
  failAbove?: ThresholdSpec;
  metric?: ThresholdMetric;
  /** What an empty input gives (default: zero-or-diagonal for masks, error for other files). */
  empty?: EmptyPolicy;
  /**
   * A --label in neither mask: 'refuse' (default: on a pair given by hand it is almost always a typo) unless
   * --empty is given, or 'empty-policy' (batches, where a label absent from both is a legitimate answer).
   */
  labelInNeither?: 'refuse' | 'empty-policy';
  /** Also report every distance as a percentage of this bounding-box diagonal. */
  relative?: RelativeBasis;
  /** The command exports every point's distance (and nearest index) to this file: they are kept. */
  export?: string;
  /** The command draws every point's distance in an HTML report (--report): they are kept, without indices. */
  keepDistances?: boolean;
  /** --classes, --returns, --bbox, --every: which of each input's points are compared. */
  filters?: PointFilters;
}

export interface InputSummary {
  path: string;
  format: FileFormat;
  points: number;
  dims: 2 | 3;
  triangles: number;
  /** What was measured: the file's points, a mesh's vertices (--vertices-only), or samples of its surface. */
  source: 'points' | 'vertices' | 'surface';
  /** Its bounding box's diagonal (0 when it has no points). */
  bboxDiagonal: number;
  /** The CRS the file states (LAS/LAZ), where it states one. */
  crs?: Crs;
}

export interface Witness {
  /** Point of the source set realizing the directed distance. */
  fromIndex: number;
  fromPoint: number[];
  /** Its nearest neighbour in the target set. */
  toIndex: number;
  toPoint: number[];
}

/** Surface mode's statistics (mean, RMS, min, E per direction, Es) and how the meshes were sampled. */
export interface SurfaceReport {
  ab: DirectionStats;
  ba: DirectionStats | null;
  es: number | null;
  sampling: SamplingMode;
  seed: number;
  /** A's query points (x,y,z) and the per-sample distances of each direction (null when directed). */
  queriesA: Coordinates;
  distancesAb: Float64Array;
  distancesBa: Float64Array | null;
}

export interface CompareResult {
  /** points: point sets (or mesh vertices); surface: samples against surfaces. */
  mode: 'points' | 'surface';
  /** Set in surface mode. */
  surface: SurfaceReport | null;
  /** Percentile HD and averages of the per-point distances, when asked for. */
  stats: DistanceStats | null;
  /** The --fail-above verdict, when a threshold was given. */
  threshold: ThresholdVerdict | null;
  /** Set when an input had no points: every distance is then the policy's value. */
  empty: EmptyOutcome | null;
  /** True when both inputs are masks without the --label asked for (measured by the empty policy). */
  labelInNeither?: boolean;
  /** --relative: the distances as percentages of the chosen diagonal. */
  relative: RelativeValues | null;
  /** Every query point with its distance (and nearest index in points mode), kept for --export. */
  perPoint: PerPointDistances | null;
  hd: number;
  hdAb: number;
  hdBa: number | null;
  /** null when an input was empty. */
  witnessAb: Witness | null;
  witnessBa: Witness | null;
  a: InputSummary;
  b: InputSummary;
  method: Method | SurfaceMethod;
  backend: string;
  threads: number;
  /** The GPU that ran it (CUDA backend), else null. */
  device: DeviceInfo | null;
  peakDeviceBytes: number;
  queryChunks: number;
  /** With --devices or --memory-limit: the workers' devices and the most tiles a target was cut into. */
  placement?: { devices: number[]; workers: number; targetTiles: number; memoryLimit: number } | null;
  directed: boolean;
  bboxDiagonal: number;
  /**
   * The searches ran in float32 on coordinates minus this point (one origin near the data; [0, 0, 0] for
   * float32 inputs). Every reported distance is exact over the input's own coordinates in points mode, and
   * every reported point is in the input's coordinates.
   */
  coordinateOrigin: [number, number, number];
  /** upload and download are host-device copies: 0 on the CPU backend. */
  /** stats: the statistics from the per-point distances (points mode; those distances are measured within the query). */
  timingsMs: { read: number; sample: number; upload: number; build: number; query: number; download: number; stats: number; total: number };
  notes: string[];
}


export function summarize(path: string, g: Geometry, mode: 'points' | 'surface' = 'points'): InputSummary {
  const triangles = g.triangles ? g.triangles.length / 3 : 0;
  const source = triangles === 0 ? 'points' : mode === 'surface' ? 'surface' : 'vertices';
  const summary: InputSummary = { path, format: g.format, points: g.count, dims: g.dims, triangles, source, bboxDiagonal: g.count > 0 ? boundsDiagonal(g.bounds) : 0 };
  if (g.crs) summary.crs = g.crs;
  return summary;
}


/** What every comparison's result starts from (points, surface, or an empty input): the inputs, the direction,
 * and the parts a path fills only when it has them (statistics, per-point distances, the verdicts added later). */
export function resultBase(mode: 'points' | 'surface', pathA: string, a: Geometry, pathB: string, b: Geometry, options: CompareOptions) {
  return {
    mode,
    surface: null,
    stats: null,
    threshold: null,
    empty: null,
    relative: null,
    perPoint: null,
    a: summarize(pathA, a, mode),
    b: summarize(pathB, b, mode),
    directed: options.directed,
    bboxDiagonal: boundsDiagonal(a.bounds, b.bounds),
    coordinateOrigin: [0, 0, 0] as [number, number, number],
  } satisfies Partial<CompareResult>;
}

/** The timings: what a path measured, zeros for what it did not do, the total up to now. */
export function timings(started: number, readMs: number, measured: Partial<CompareResult['timingsMs']> = {}): CompareResult['timingsMs'] {
  return { read: readMs, sample: 0, upload: 0, build: 0, query: 0, download: 0, stats: 0, ...measured, total: performance.now() - started };
}

/** The readers' notes on each input ("A: 12 quads triangulated"). */
export function inputNotes(a: Geometry, b: Geometry): string[] {
  const notes: string[] = [];
  for (const [name, g] of [['A', a], ['B', b]] as const) for (const n of g.notes) notes.push(`${name}: ${n}`);
  return notes;
}

export function wantsStats(options: CompareOptions): boolean {
  return options.stats === true || options.percentile !== undefined;
}

export /** Two masks in different physical spaces still have a distance, but the user likely wants to know. */
function maskSpaceWarning(a: Geometry, b: Geometry): string[] {
  if (!a.grid || !b.grid) return [];
  const difference = spaceDifference(a.grid, b.grid);
  return difference ? [`warning: the two masks do not occupy the same physical space: ${difference}`] : [];
}
