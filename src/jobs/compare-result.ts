// The outcome of `xhd compare` as one plain object that the text, JSON and HTML renderers share, the options
// that ask for it, and the base every comparison path (points, surface, empty input) builds its result on.
import { type EmptyOutcome, type EmptyPolicy } from './empty-policy.js';
import { type DeviceInfo } from '../ops/backends.js';
import { type BackendChoice, type Method } from '../ops/hausdorff.js';
import type { Placement } from '../ops/placement.js';
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
import type { NsdVariant } from '../metrics/surface-tolerance.js';
import type { Connectivity } from '../io/connected-components.js';
import type { LabelSelection } from './label-selection.js';
import type { ToleranceReport } from '../metrics/surface-tolerance.js';
import { type RelativeBasis, type RelativeValues } from '../metrics/relative.js';
import { type ThresholdMetric, type ThresholdSpec, type ThresholdVerdict } from './threshold.js';
import type { Shard } from '../core/shard.js';

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
  /** --nsd, --fscore: the tolerances τ (same units as the coordinates: mm for masks). */
  nsd?: number[];
  fscore?: number[];
  /** voxel (default): surface points count once; surfel: weighted by their surface element's area (masks). */
  nsdVariant?: NsdVariant;
  /** --labels: every asked label of two label masks, in one read and one surface extraction. */
  labels?: LabelSelection;
  /** --components: lesion-wise metrics per label (BraTS 2023 rule), with this connectivity (default 26). */
  components?: boolean;
  connectivity?: Connectivity;
  /** --lesion-dilation: voxels the reference's lesions are dilated by before matching (default 0). */
  lesionDilation?: number;
  /** --lesion-min-volume: reference lesions of at most this volume (mm³) are left out (default 0). */
  lesionMinVolume?: number;
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
  /**
   * --shard I/N with --partial: measure only this shard's slice of each direction's queries (against the whole
   * target) and return it as `shardPart`; the statistics, relative values and verdict wait for `xhd merge`.
   */
  shard?: Shard;
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
  /** NSD and F-score at each τ of --nsd / --fscore, when asked for. */
  tolerance: ToleranceReport | null;
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
  placement?: Pick<Placement, 'devices' | 'workers' | 'targetTiles' | 'memoryLimit' | 'splitBySpace'> | null;
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
  /** Set when the points were streamed from the files (--memory-limit on the CPU backend): how. */
  streamed?: { memoryLimit: number; slabs: number; passes: number; slowDirections: number; slowSlabs: number; secondPassQueries: number; skippedRecords: number };
  /** With options.shard: this shard's slices, their maxima and witnesses (and distances for the statistics). */
  shardPart?: ShardPart;
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
    tolerance: null,
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

/** Whether every point's distance is needed: for the statistics or for NSD / F-score. */
export function wantsPerPointDistances(options: CompareOptions): boolean {
  return wantsStats(options) || (options.nsd?.length ?? 0) + (options.fscore?.length ?? 0) > 0;
}

export /** Two masks in different physical spaces still have a distance, but the user likely wants to know. */
function maskSpaceWarning(a: Geometry, b: Geometry): string[] {
  if (!a.grid || !b.grid) return [];
  const difference = spaceDifference(a.grid, b.grid);
  return difference ? [`warning: the two masks do not occupy the same physical space: ${difference}`] : [];
}

// One shard of a sharded `xhd compare` measures a contiguous slice of each direction's query points, each
// searched against the whole other set, so every distance in it is the exact one the unsharded run measures.
// The part keeps the slice's maximum with its witness (ties already to the smallest index within the slice)
// and, when the statistics are asked for, every distance of the slice in query order.

export interface DirectionSlice {
  /** The queries [start, end) of this direction that the shard measured (indices into the whole set). */
  start: number;
  end: number;
  /** The slice's largest nearest distance and its witness (indices into the whole sets); null when empty. */
  max: { distance: number; witness: Witness } | null;
  /** Each query's nearest distance, in query order: kept only when statistics are asked for. */
  distances: Float64Array | null;
}

/** The options `xhd merge` finishes the result with: the statistics, relative values and verdict. */
export interface MergeOptions {
  stats: boolean;
  percentile?: number;
  percentileVariant?: PercentileVariant;
  assdVariant?: AssdVariant;
  relative?: RelativeBasis;
  failAbove?: ThresholdSpec;
  metric?: ThresholdMetric;
}

export interface ShardPart {
  shard: Shard;
  /** null when an input was empty: nothing is searched, and every shard holds the whole (policy's) answer. */
  ab: DirectionSlice | null;
  /** null also with --directed. */
  ba: DirectionSlice | null;
  merge: MergeOptions;
}
