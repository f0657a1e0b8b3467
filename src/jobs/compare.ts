// `xhd compare`: read two inputs, compute the exact Hausdorff distance, and describe the outcome as one
// plain result object that the text and JSON renderers share.
import { UsageError } from '../core/errors.js';
import { emptyOutcome, uniformStats, type EmptyOutcome, type EmptyPolicy } from './empty-policy.js';
import { warmUpCuda, type DeviceInfo } from '../ops/backends.js';
import { DEFAULT_SEED, type BackendChoice, type DirectedHausdorff, type Method } from '../ops/hausdorff.js';
import { boundsDiagonal, type Coordinates, type FileFormat, type Geometry, type MaskOptions } from '../io/geometry.js';
import { spaceDifference } from '../io/voxel-mask.js';
import { crsNotes, type Crs } from '../io/crs.js';
import type { PointFilters } from '../io/point-filters.js';
import { readGeometry, STDIN_NAME } from '../io/read.js';
import { silentProgress, type Progress, type ProgressFactory } from '../core/progress.js';
import { countOf } from '../core/counts.js';
import type { SamplingMode } from '../sampling/sample-mesh.js';
import { compareSurfaces, hasFaces, type DirectionStats, type SurfaceOutcome } from '../ops/surface-compare.js';
import type { SurfaceMethod } from '../ops/surface-distance.js';
import { distanceStats, type AssdVariant, type DistanceStats, type PercentileVariant } from '../metrics/distance-stats.js';
import { pointsSearch } from '../ops/points-search.js';
import type { PerPointDistances } from './per-point.js';
import { relativeValues, type RelativeBasis, type RelativeValues } from '../metrics/relative.js';
import { exportSource } from './per-point.js';
import { checkThresholdOptions, judge, metricNeeds, type ThresholdMetric, type ThresholdSpec, type ThresholdVerdict } from './threshold.js';

export interface CompareOptions {
  method: Method;
  directed: boolean;
  backend: BackendChoice;
  device?: number;
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

function summarize(path: string, g: Geometry, mode: 'points' | 'surface' = 'points'): InputSummary {
  const triangles = g.triangles ? g.triangles.length / 3 : 0;
  const source = triangles === 0 ? 'points' : mode === 'surface' ? 'surface' : 'vertices';
  const summary: InputSummary = { path, format: g.format, points: g.count, dims: g.dims, triangles, source, bboxDiagonal: g.count > 0 ? boundsDiagonal(g.bounds) : 0 };
  if (g.crs) summary.crs = g.crs;
  return summary;
}

function pointAt(g: Geometry, index: number): number[] {
  const p = [g.positions[3 * index], g.positions[3 * index + 1], g.positions[3 * index + 2]];
  return g.dims === 2 ? p.slice(0, 2) : p;
}

function witnessOf(d: DirectedHausdorff, from: Geometry, to: Geometry): Witness {
  return { fromIndex: d.fromIndex, fromPoint: pointAt(from, d.fromIndex), toIndex: d.toIndex, toPoint: pointAt(to, d.toIndex) };
}

export async function compareFiles(pathA: string, pathB: string, given: CompareOptions): Promise<CompareResult> {
  const started = performance.now();
  const options = withThresholdNeeds(given);
  const result = await compareInputs(pathA, pathB, options, started);
  result.notes.push(...inapplicableOptionNotes(result, options), ...crsNotes(result.a, result.b));
  if (options.relative) {
    const diagonal = options.relative === 'union' ? result.bboxDiagonal : result[options.relative].bboxDiagonal;
    result.relative = relativeValues(options.relative, diagonal, result);
  }
  if (options.failAbove) result.threshold = judge(options.metric ?? 'hd', options.failAbove, result.hd, result.stats, result.bboxDiagonal);
  return result;
}

/** Options given that did not apply to these inputs or this backend: said, rather than silently ignored. */
function inapplicableOptionNotes(result: CompareResult, options: CompareOptions): string[] {
  const formats = [result.a.format, result.b.format];
  const notes: string[] = [];
  const mask = options.mask ?? {};
  if (!formats.includes('nifti')) {
    const given = [mask.label !== undefined && '--label', mask.region !== undefined && '--region', mask.voxelSpace && '--voxel-space'].filter(Boolean);
    if (given.length > 0) notes.push(`${given.join(', ')} appl${given.length === 1 ? 'ies' : 'y'} to NIfTI masks; neither input is one, so ignored`);
  }
  if (options.columns !== undefined && !formats.some((f) => f === 'csv' || f === 'xyz')) {
    notes.push('--columns applies to CSV and XYZ text files; neither input is one, so ignored');
  }
  if (options.device !== undefined && result.backend === 'cpu') {
    notes.push(`--device ${options.device} applies to the CUDA backend; the CPU backend measured, so ignored`);
  }
  return notes;
}

/** A threshold on a statistic asks for the statistics it is computed from. */
function withThresholdNeeds(options: CompareOptions): CompareOptions {
  const metric = options.metric ?? 'hd';
  checkThresholdOptions(metric, options.failAbove, options.percentile);
  const needs = metricNeeds(metric);
  if (!options.failAbove || !needs.stats) return options;
  return { ...options, stats: true, percentile: options.percentile ?? needs.percentile };
}

async function compareInputs(pathA: string, pathB: string, options: CompareOptions, started: number): Promise<CompareResult> {
  const bar = (options.progress ?? silentProgress)('hausdorff');
  if (pathA === STDIN_NAME && pathB === STDIN_NAME) throw new UsageError('only one input can be standard input (-)');
  // With one input on standard input, --format names that one's format; the file's comes from its name.
  const stdin = pathA === STDIN_NAME || pathB === STDIN_NAME;
  const readOptions = (path: string) => ({ format: stdin && path !== STDIN_NAME ? undefined : options.format, columns: options.columns, mask: options.mask, filters: options.filters,
    lasAttributes: options.export !== undefined && /\.la[sz]$/i.test(options.export) }); // a LAS export keeps LAS inputs' classes and returns

  // The GPU's start-up runs on a worker thread while the files are read.
  const mayUseCuda = options.backend !== 'cpu' && options.method !== 'brute';
  const warming = mayUseCuda ? warmUpCuda(options.device ?? 0) : Promise.resolve();
  const readStarted = performance.now();
  let a: Geometry, b: Geometry;
  try {
    bar.status(`reading ${pathA}`);
    a = readGeometry(pathA, readOptions(pathA));
    bar.status(`reading ${pathB}`);
    b = readGeometry(pathB, readOptions(pathB));
  } finally {
    bar.finish();
  }
  const readMs = performance.now() - readStarted;
  await warming;

  refuseLabelInNeither(pathA, a, pathB, b, options);
  const empty = emptyOutcome(pathA, a, pathB, b, options.empty);
  if (empty) return emptyResult(pathA, pathB, a, b, empty, options, started, readMs);
  if (a.dims !== b.dims) {
    throw new UsageError(`${pathA} is ${a.dims}D but ${pathB} is ${b.dims}D; compare point sets of the same dimension`);
  }

  if (!options.verticesOnly && (hasFaces(a) || hasFaces(b))) return compareSurfaceFiles(pathA, pathB, a, b, options, bar, started, readMs);
  if (options.verticesOnly && (options.sampling !== undefined || options.samples !== undefined || options.density !== undefined)) {
    throw new UsageError('--sampling, --samples and --density sample surfaces; they do not apply with --vertices-only');
  }
  const perSample = options.heatmap !== undefined ? '--heatmap' : options.histogram ? '--histogram' : undefined;
  if (perSample) {
    throw new UsageError(`${perSample} needs surface mode: per-point distances are measured when an input is a mesh (without --vertices-only)`);
  }

  // One search: the Hausdorff distance and (when asked for) every point's nearest, on the backend chosen.
  const measuresEveryPoint = wantsStats(options) || options.export !== undefined || options.keepDistances === true;
  bar.phase(measuresEveryPoint ? 'hausdorff, every point' : 'hausdorff', 0, 1);
  const result = await pointsSearch(a.positions, b.positions, {
    method: options.method,
    directed: options.directed,
    backend: options.backend,
    device: options.device,
    threads: options.threads,
    seed: options.seed,
    signal: options.signal,
    distances: measuresEveryPoint,
    nearest: options.export !== undefined,
    onProgress: (done, total) => bar.update(done, total),
  }).finally(() => bar.finish()); // an error message must not land on the bar's line

  const statsStarted = performance.now();
  const nearest = result.perPoint;
  const stats = nearest && wantsStats(options) ? distanceStats(nearest.ab.distances!, nearest.ba ? nearest.ba.distances! : null, options) : null;
  const statsMs = stats ? performance.now() - statsStarted : 0;
  const perPoint: PerPointDistances | null = nearest && (options.export || options.keepDistances) ? {
    dims: a.dims,
    nearestIs: 'point',
    ab: { points: a.positions, distances: nearest.ab.distances!, nearest: nearest.ab.nearest },
    ba: nearest.ba ? { points: b.positions, distances: nearest.ba.distances!, nearest: nearest.ba.nearest } : null,
    sources: { a: exportSource(a), b: exportSource(b) },
    targetPoints: b.positions,
  } : null;

  const notes: string[] = maskSpaceWarning(a, b);
  for (const [name, g] of [['A', a], ['B', b]] as const) {
    if (hasFaces(g)) {
      notes.push(
        `${name} is a mesh (${countOf(g.triangles!.length / 3, 'triangle')}): its ${countOf(g.count, 'vertex', 'vertices')} are compared as points (--vertices-only)`,
      );
    }
    for (const n of g.notes) notes.push(`${name}: ${n}`);
  }

  return {
    mode: 'points',
    surface: null,
    stats,
    threshold: null,
    empty: null,
    relative: null,
    perPoint,
    hd: result.hd,
    hdAb: result.ab.distance,
    hdBa: result.ba ? result.ba.distance : null,
    witnessAb: witnessOf(result.ab, a, b),
    witnessBa: result.ba ? witnessOf(result.ba, b, a) : null,
    a: summarize(pathA, a),
    b: summarize(pathB, b),
    method: result.method,
    backend: result.backend,
    threads: result.threads,
    device: result.device,
    peakDeviceBytes: result.peakDeviceBytes,
    queryChunks: result.queryChunks,
    directed: options.directed,
    bboxDiagonal: boundsDiagonal(a.bounds, b.bounds),
    coordinateOrigin: result.coordinateOrigin,
    timingsMs: {
      read: readMs,
      sample: 0,
      upload: result.uploadMs,
      build: result.ab.buildMs + (result.ba?.buildMs ?? 0),
      query: result.ab.queryMs + (result.ba?.queryMs ?? 0),
      download: result.downloadMs,
      stats: statsMs,
      total: performance.now() - started,
    },
    notes,
  };
}

/** Whether both inputs are masks without the --label asked for. */
export function labelInNeither(a: Geometry, b: Geometry, label: number | undefined): boolean {
  return label !== undefined && a.grid !== undefined && b.grid !== undefined && a.count === 0 && b.count === 0;
}

function refuseLabelInNeither(pathA: string, a: Geometry, pathB: string, b: Geometry, options: CompareOptions): void {
  const label = options.mask?.label;
  if (!labelInNeither(a, b, label) || options.empty !== undefined || options.labelInNeither === 'empty-policy') return;
  const has = (path: string, g: Geometry) => {
    const labels = g.grid!.labelsPresent ?? [];
    return labels.length === 0 ? `${path} has no nonzero voxels` : `${path} has label${labels.length === 1 ? '' : 's'} ${listLabels(labels)}`;
  };
  throw new UsageError(`label ${label} is in neither mask (${has(pathA, a)}; ${has(pathB, b)}); `
    + 'give --empty zero-or-diagonal to report it as a match (0) anyway');
}

function listLabels(labels: number[]): string {
  const shown = labels.slice(0, 20).join(', ');
  return labels.length > 20 ? `${shown}, … (${labels.length >= 1000 ? '1000 or more' : labels.length} in all)` : shown;
}

/** The outcome with an empty input: nothing to search, every distance the policy's value. */
function emptyResult(pathA: string, pathB: string, a: Geometry, b: Geometry, empty: EmptyOutcome, options: CompareOptions,
                     started: number, readMs: number): CompareResult {
  const v = empty.value;
  const which = empty.a && empty.b ? 'both inputs are' : empty.a ? 'A is' : 'B is';
  const notes = [`${which} empty: every distance is ${v} (--empty ${empty.policy})`, ...maskSpaceWarning(a, b)];
  for (const [name, g] of [['A', a], ['B', b]] as const) for (const n of g.notes) notes.push(`${name}: ${n}`);
  const filled = [a, b].filter((g) => g.count > 0);
  return {
    mode: 'points',
    surface: null,
    stats: wantsStats(options) ? uniformStats(v, a.count, options.directed ? null : b.count, options) : null,
    threshold: null,
    empty,
    labelInNeither: labelInNeither(a, b, options.mask?.label),
    relative: null,
    perPoint: null,
    hd: v,
    hdAb: v,
    hdBa: options.directed ? null : v,
    witnessAb: null,
    witnessBa: null,
    a: summarize(pathA, a),
    b: summarize(pathB, b),
    method: options.method,
    backend: 'none',
    threads: 0,
    device: null,
    peakDeviceBytes: 0,
    queryChunks: 0,
    directed: options.directed,
    bboxDiagonal: filled.length === 2 ? boundsDiagonal(a.bounds, b.bounds) : filled.length === 1 ? boundsDiagonal(filled[0].bounds) : 0,
    coordinateOrigin: [0, 0, 0],
    timingsMs: { read: readMs, sample: 0, upload: 0, build: 0, query: 0, download: 0, stats: 0, total: performance.now() - started },
    notes,
  };
}

/** Two masks in different physical spaces still have a distance, but the user likely wants to know. */
function maskSpaceWarning(a: Geometry, b: Geometry): string[] {
  if (!a.grid || !b.grid) return [];
  const difference = spaceDifference(a.grid, b.grid);
  return difference ? [`warning: the two masks do not occupy the same physical space: ${difference}`] : [];
}

export function wantsStats(options: CompareOptions): boolean {
  return options.stats === true || options.percentile !== undefined;
}

function surfaceWitness(d: DirectionStats): Witness {
  return { fromIndex: d.fromIndex, fromPoint: d.fromPoint, toIndex: d.toIndex, toPoint: d.toPoint };
}

async function compareSurfaceFiles(pathA: string, pathB: string, a: Geometry, b: Geometry, options: CompareOptions,
                                   bar: Progress, started: number, readMs: number): Promise<CompareResult> {
  if (options.method === 'eb') throw new UsageError('the eb method compares point sets; meshes are compared surface to surface (use --vertices-only for eb on their vertices)');
  const sampling = options.sampling ?? 'area';
  const seed = options.seed ?? DEFAULT_SEED;
  let outcome: SurfaceOutcome;
  bar.phase('surface distances', 0, 1);
  try {
    outcome = await compareSurfaces(a, b, {
      method: options.method === 'brute' ? 'brute' : 'grid',
      directed: options.directed,
      sampling,
      samples: options.samples,
      density: options.density,
      seed,
      backend: options.backend,
      device: options.device,
      threads: options.threads,
      signal: options.signal,
      onProgress: (done, total) => bar.update(done, total),
    });
  } finally {
    bar.finish();
  }
  const notes = [...outcome.notes];
  for (const [name, g] of [['A', a], ['B', b]] as const) for (const n of g.notes) notes.push(`${name}: ${n}`);
  const ab = outcome.ab, ba = outcome.ba;
  return {
    mode: 'surface',
    threshold: null,
    empty: null,
    relative: null,
    stats: wantsStats(options) ? distanceStats(outcome.distancesAb, outcome.distancesBa, options) : null,
    perPoint: options.export || options.keepDistances ? {
      dims: a.dims,
      nearestIs: 'none',
      ab: { points: outcome.queriesA, distances: outcome.distancesAb, nearest: null },
      ba: outcome.distancesBa ? { points: outcome.queriesB, distances: outcome.distancesBa, nearest: null } : null,
      sources: { a: exportSource(a), b: exportSource(b) },
      targetPoints: b.positions,
    } : null,
    surface: {
      ab, ba, es: outcome.es, sampling, seed,
      queriesA: outcome.queriesA, distancesAb: outcome.distancesAb, distancesBa: outcome.distancesBa,
    },
    hd: ba ? Math.max(ab.hd, ba.hd) : ab.hd,
    hdAb: ab.hd,
    hdBa: ba ? ba.hd : null,
    witnessAb: surfaceWitness(ab),
    witnessBa: ba ? surfaceWitness(ba) : null,
    a: summarize(pathA, a, 'surface'),
    b: summarize(pathB, b, 'surface'),
    method: options.method === 'brute' ? 'brute' : 'grid',
    backend: outcome.backend,
    threads: outcome.threads,
    device: outcome.device,
    peakDeviceBytes: outcome.peakDeviceBytes,
    queryChunks: 1,
    directed: options.directed,
    bboxDiagonal: boundsDiagonal(a.bounds, b.bounds),
    coordinateOrigin: outcome.origin,
    timingsMs: {
      read: readMs,
      sample: outcome.sampleMs,
      upload: outcome.uploadMs,
      build: outcome.buildMs,
      query: outcome.queryMs,
      download: outcome.downloadMs,
      stats: 0,
      total: performance.now() - started,
    },
    notes,
  };
}
