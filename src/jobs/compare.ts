// `xhd compare`: read two inputs, check them, and hand them to the comparison that fits (points, surface, or an
// empty input); then the notes, relative values and threshold verdict every result gets.
import { availableParallelism } from 'node:os';

import { UsageError } from '../core/errors.js';
import { emptyOutcome } from './empty-policy.js';
import { warmUpCuda } from '../ops/backends.js';
import { isVolumeFormat, type Geometry } from '../io/geometry.js';
import { formatFromExtension } from '../io/format-names.js';
import { autoCpuNote, cpuBeatsGpuStart } from '../ops/auto-backend.js';
import { crsNotes } from '../io/crs.js';
import { readGeometryAsync } from '../io/read-async.js';
import { STDIN_NAME } from '../io/stdin-name.js';
import { silentProgress } from '../core/progress.js';
import { hasFaces } from '../ops/surface-compare.js';
import { relativeValues } from '../metrics/relative.js';
import { checkThresholdOptions, judge, metricNeeds } from './threshold.js';
import type { CompareOptions, CompareResult, MergeOptions } from './compare-result.js';
import { emptyResult, refuseLabelInNeither } from './compare-empty.js';
import { comparePoints } from './compare-points.js';
import { compareSurfaceFiles } from './compare-surface.js';
import { checkToleranceOptions, wantsSurfelDistances } from './surface-metrics.js';
import { comparePointsShard } from './compare-points-shard.js';

export type { CompareOptions, CompareResult, InputSummary, SurfaceReport, Witness } from './compare-result.js';
export { wantsStats } from './compare-result.js';
export { labelInNeither } from './compare-empty.js';
export { compareLabelFiles, wantsLabelVolumes, type LabelsResult, type LabelResult } from './compare-labels.js';

export async function compareFiles(pathA: string, pathB: string, given: CompareOptions): Promise<CompareResult> {
  const started = performance.now();
  checkToleranceOptions(given);
  const options = withSurfels(withThresholdNeeds(given));
  const result = await compareInputs(pathA, pathB, options, started);
  result.notes.push(...inapplicableOptionNotes(result, options), ...crsNotes(result.a, result.b));
  if (result.shardPart) {
    // A shard's maxima are its slice's: what follows from the whole answer is for `xhd merge` to add.
    result.shardPart.merge = mergeOptions(options);
    return result;
  }
  return finishResult(result, mergeOptions(options));
}

/** What finishResult needs of the options: recorded in a shard's part so that `xhd merge` can finish alike. */
function mergeOptions(options: CompareOptions): MergeOptions {
  const { percentile, percentileVariant, assdVariant, relative, failAbove, metric } = options;
  return { stats: options.stats === true || percentile !== undefined, percentile, percentileVariant, assdVariant, relative, failAbove, metric };
}

/** The relative values and the threshold verdict, which follow from the whole pair's answer. */
export function finishResult(result: CompareResult, options: MergeOptions): CompareResult {
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
  if (!formats.some(isVolumeFormat)) {
    const given = [mask.label !== undefined && '--label', mask.region !== undefined && '--region', mask.voxelSpace && '--voxel-space'].filter(Boolean);
    if (given.length > 0) notes.push(`${given.join(', ')} appl${given.length === 1 ? 'ies' : 'y'} to voxel masks (NIfTI, NRRD, MetaImage, DICOM-SEG); neither input is one, so ignored`);
  }
  if (options.columns !== undefined && !formats.some((f) => f === 'csv' || f === 'xyz')) {
    notes.push('--columns applies to CSV and XYZ text files; neither input is one, so ignored');
  }
  const placed = options.devices !== undefined || options.memoryLimit !== undefined;
  if (placed && result.mode === 'surface') {
    notes.push('--devices and --memory-limit apply to point compares; the surface compare ran on one GPU');
  } else if (result.backend === 'cpu') {
    if (options.devices !== undefined) notes.push(`--devices applies to the CUDA backend; the CPU backend split the queries among ${result.placement?.workers ?? 1} groups of threads`);
    if (options.memoryLimit !== undefined && !result.streamed) {
      notes.push('--memory-limit: on the CPU backend binary PLY point clouds, LAS and LAZ files that need more memory are streamed from the files; these were read whole');
    }
  }
  if (options.device !== undefined && result.backend === 'cpu') {
    notes.push(`--device ${options.device} applies to the CUDA backend; the CPU backend measured, so ignored`);
  }
  return notes;
}

/** The surfel variants ask the mask reader for each mask's surface elements as well. */
function withSurfels(options: CompareOptions): CompareOptions {
  return wantsSurfelDistances(options) ? { ...options, mask: { ...options.mask, surfels: true } } : options;
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
  let autoNote: string | undefined;
  const bar = (options.progress ?? silentProgress)('hausdorff');
  if (pathA === STDIN_NAME && pathB === STDIN_NAME) throw new UsageError('only one input can be standard input (-)');
  // With one input on standard input, --format names that one's format; the file's comes from its name.
  const stdin = pathA === STDIN_NAME || pathB === STDIN_NAME;
  const readOptions = (path: string) => ({ format: stdin && path !== STDIN_NAME ? undefined : options.format, columns: options.columns, mask: options.mask, filters: options.filters, threads: options.threads,
    lasAttributes: options.export !== undefined && /\.la[sz]$/i.test(options.export), // a LAS export keeps LAS inputs' classes and returns
    // --backend cuda: a mask's points are selected on the GPU too, not on the host's cores (which a batch's lanes
    // share: the selection was about half of a BraTS-sized pair's host work there).
    maskDevice: options.backend === 'cuda' ? options.device ?? 0 : undefined });

  // Larger than --memory-limit on the CPU backend: streamed from the files rather than read in.
  // (Loaded only then: its LAS, LAZ and PLY point-file readers are no ordinary compare's.)
  const streamed = options.memoryLimit === undefined ? null
    : await (await import('./compare-streamed.js')).compareStreamedIfNeeded(pathA, pathB, options, bar, started);
  if (streamed) return streamed;

  // The GPU's start-up runs on a worker thread while the files are read; for two voxel masks auto decides after
  // reading, when their surface points are known (auto-backend.ts).
  const masksDecideLater = (options.backend ?? 'auto') === 'auto' && !stdin && [pathA, pathB].every((p) => isVolumeFormat(options.format ?? formatFromExtension(p)));
  const mayUseCuda = options.backend !== 'cpu' && options.method !== 'brute' && !masksDecideLater;
  let warming = mayUseCuda ? warmUpCuda(options.device ?? 0) : Promise.resolve();
  const readStarted = performance.now();
  let a: Geometry, b: Geometry;
  try {
    // A mask's inflating and points are computed off the main thread (which `xhd batch` lanes share), so the
    // two masks are read at once, on two of libuv's threads: a BraTS-sized pair's reading is mostly those two
    // inflates. Other formats are read on the main thread, one after the other, as before. A's error, when
    // both fail, is the one reported, as when they were read in turn.
    bar.status(`reading ${pathA} and ${pathB}`);
    const [readA, readB] = await Promise.allSettled([readGeometryAsync(pathA, readOptions(pathA)), readGeometryAsync(pathB, readOptions(pathB))]);
    if (readA.status === 'rejected') throw readA.reason;
    if (readB.status === 'rejected') throw readB.reason;
    a = readA.value;
    b = readB.value;
  } finally {
    bar.finish();
  }
  const readMs = performance.now() - readStarted;
  if (masksDecideLater && options.method !== 'brute') {
    const threads = options.threads ?? availableParallelism();
    if (cpuBeatsGpuStart(a.count + b.count, threads)) {
      options = { ...options, backend: 'cpu' };
      autoNote = autoCpuNote(a.count + b.count, threads);
    } else {
      warming = warmUpCuda(options.device ?? 0);
    }
  }
  await warming;

  refuseLabelInNeither(pathA, a, pathB, b, options);
  const empty = emptyOutcome(pathA, a, pathB, b, options.empty);
  if (empty) {
    const result = emptyResult(pathA, pathB, a, b, empty, options, started, readMs);
    // Nothing to search: every shard's part holds the whole answer (the policy's value).
    if (options.shard) result.shardPart = { shard: options.shard, ab: null, ba: null, merge: { stats: false } };
    return result;
  }
  if (a.dims !== b.dims) {
    throw new UsageError(`${pathA} is ${a.dims}D but ${pathB} is ${b.dims}D; compare point sets of the same dimension`);
  }

  if (options.shard && !options.verticesOnly && (hasFaces(a) || hasFaces(b))) {
    throw new UsageError(`--shard splits point sets; ${hasFaces(a) ? pathA : pathB} is a mesh, compared surface to surface: give --vertices-only to compare its vertices, or compare the meshes unsharded`);
  }
  if (!options.verticesOnly && (hasFaces(a) || hasFaces(b))) return compareSurfaceFiles(pathA, pathB, a, b, options, bar, started, readMs);
  if (options.verticesOnly && (options.sampling !== undefined || options.samples !== undefined || options.density !== undefined)) {
    throw new UsageError('--sampling, --samples and --density sample surfaces; they do not apply with --vertices-only');
  }
  const perSample = options.heatmap !== undefined ? '--heatmap' : options.histogram ? '--histogram' : undefined;
  if (perSample) {
    throw new UsageError(`${perSample} needs surface mode: per-point distances are measured when an input is a mesh (without --vertices-only)`);
  }
  const result = options.shard
    ? await comparePointsShard(pathA, pathB, a, b, { ...options, shard: options.shard }, bar, started, readMs)
    : await comparePoints(pathA, pathB, a, b, options, bar, started, readMs);
  if (autoNote) result.notes.push(autoNote);
  return result;
}
