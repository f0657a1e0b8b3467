// `xhd batch`: every pair of a manifest compared in turn, in this one process, so the native library (and the
// GPU, with its memory pool) is loaded once. A pair that fails is an outcome like any other, not the end of
// the run; only an interrupt (SIGINT, via the AbortSignal) stops it.
import { getMaxListeners, setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';

import { compareFiles, compareLabelFiles, wantsLabelVolumes, type CompareOptions, type CompareResult, type LabelsResult } from './compare.js';
import { CancelledError, EXIT_NATIVE, InputError, UsageError, XhdError } from '../core/errors.js';
import { checkThresholdOptions, type ThresholdMetric, type ThresholdSpec } from './threshold.js';
import type { Manifest, ManifestRow } from './batch-manifest.js';
import { formatFromExtension } from '../io/format-names.js';
import { isVolumeFormat } from '../io/geometry.js';
import { batchGpus } from '../ops/placement.js';
import { resolveRun, type RunSettings } from '../ops/run-settings.js';
import { cloneableForWorkers, runLanesInWorkers } from './batch-lanes-in-workers.js';
import { InOrderReports } from './in-order-reports.js';

/** The command's --fail-above and --metric: what a row without its own threshold or metric gets. */
export interface BatchDefaults {
  failAbove?: ThresholdSpec;
  metric: ThresholdMetric;
  /** --percentile, which an hd95 threshold must agree with. */
  percentile?: number;
}

export interface BatchPair {
  row: ManifestRow;
  /** The limit and metric this pair is checked against; no limit: measured, not checked. */
  failAbove?: ThresholdSpec;
  metric: ThresholdMetric;
}

/** What became of one pair. `passed`/`exceeded`: measured against a limit; `unchecked`: measured, no limit. */
export type PairOutcome =
  | { status: 'passed' | 'exceeded' | 'unchecked'; result: CompareResult | LabelsResult }
  | { status: 'error'; message: string; exitCode: number };

export interface BatchSummary {
  pairs: number;
  passed: number;
  exceeded: number;
  unchecked: number;
  errors: number;
  /** Pairs never started because the run was interrupted. */
  notRun: number;
  /** Pairs whose --label is in neither mask (measured by the empty policy, and counted here). */
  labelInNeither: number;
  interrupted: boolean;
  /** The exit code the outcomes call for: the highest error code, else 1 when a limit was exceeded, else 0. */
  exitCode: number;
  totalMs: number;
}

/**
 * Each row's limit and metric, the command's defaults filling in what a row leaves out. A combination that
 * cannot be checked (a metric without any limit, a percentage on the squared Chamfer distance, hd95 against
 * another --percentile) is an error naming the manifest line, before anything runs.
 */
export function planBatch(manifest: Manifest, defaults: BatchDefaults): BatchPair[] {
  if (defaults.failAbove) checkThresholdOptions(defaults.metric, defaults.failAbove, defaults.percentile);
  else if (defaults.metric !== 'hd' && !manifest.rows.some((r) => r.threshold)) {
    throw new UsageError('--metric chooses what a threshold checks; give --fail-above or a threshold column in the manifest');
  }
  return manifest.rows.map((row) => {
    const failAbove = row.threshold ?? defaults.failAbove;
    const metric = row.metric ?? defaults.metric;
    if (!failAbove) {
      if (row.metric) throw new InputError(manifest.path, { line: row.line }, `metric ${row.metric} needs a threshold: give the row one, or give --fail-above`);
      return { row, metric: 'hd' };
    }
    try {
      checkThresholdOptions(metric, failAbove, defaults.percentile);
    } catch (error) {
      if (error instanceof UsageError) throw new InputError(manifest.path, { line: row.line }, `threshold ${failAbove.text} on ${metric}: ${error.message}`);
      throw error;
    }
    return { row, failAbove, metric };
  });
}

export interface RunBatchOptions {
  /** The measuring options every pair shares (the command's, less its threshold). */
  compare: Omit<CompareOptions, 'signal' | 'failAbove' | 'metric' | 'progress'>;
  signal?: AbortSignal;
  /** Called before each pair starts (index 0-based), and with index = pairs.length at the end. */
  onProgress?: (index: number, total: number) => void;
  /**
   * Called with each pair's outcome, in manifest order, as soon as it and those before it are known; a returned
   * promise (a pair's report being written) is awaited before the next outcome's call. The lanes go on meanwhile,
   * up to REPORT_WINDOW_PER_LANE pairs a lane ahead of the first outcome not yet reported.
   */
  onPair?: (pair: BatchPair, outcome: PairOutcome) => void | Promise<void>;
  /** Pairs each GPU runs at once (--lanes); undefined: batchLanesPerDevice's default. */
  lanes?: number;
  /**
   * Each lane on a worker thread of its own (batch-lanes-in-workers.ts): true or false; undefined: as
   * XHD_BATCH_LANE_THREADS says (1 or 0), else when there are several lanes and at least LANE_THREAD_PAIRS pairs
   * a lane. When true on the CPU backend, `lanes` threads share its cores (tests: the outcomes of one thread).
   */
  laneThreads?: boolean;
}

/** Pairs a lane should have before a thread of its own (its start: about a hundred modules loaded) pays. */
export const LANE_THREAD_PAIRS = 8;

function laneThreadsAsked(options: RunBatchOptions): boolean | undefined {
  const env = process.env.XHD_BATCH_LANE_THREADS;
  return options.laneThreads ?? (env === '1' ? true : env === '0' ? false : undefined);
}

function laneThreads(options: RunBatchOptions, lanes: Array<number | null>, pairs: BatchPair[]): boolean {
  const wanted = laneThreadsAsked(options) ?? (lanes.length > 1 && pairs.length >= LANE_THREAD_PAIRS * lanes.length);
  return wanted && cloneableForWorkers(pairs, options.compare);
}

/**
 * Lanes a GPU runs when --lanes is not given: MASK_LANES for a batch whose every input is a volume (NIfTI,
 * NRRD, MetaImage, DICOM-SEG) by its name, one otherwise. A mask pair is small beside a GPU and its host work (reading,
 * inflating, surface extraction) is most of its time, so pairs running side by side on one GPU overlap it:
 * 1,000 small mask pairs on one H200 took 3.05 s in four lanes against 8.3 s in one (docs/benchmarks.md,
 * "A 2-GPU host"). Point clouds and meshes can be as large as the GPU, and each lane holds its pair in host
 * and GPU memory, so they keep one lane unless asked.
 */
export const MASK_LANES = 4;

/**
 * Pairs a lane may run ahead of the first outcome not yet reported (in-order-reports.ts), so that a slow pair holds
 * back no lane but its own, while the outcomes held at once stay at this many a lane.
 */
export const REPORT_WINDOW_PER_LANE = 4;

export function batchLanesPerDevice(pairs: BatchPair[], lanes: number | undefined): number {
  if (lanes !== undefined) return lanes;
  const volume = (path: string) => isVolumeFormat(formatFromExtension(path));
  return pairs.length > 1 && pairs.every((p) => volume(p.row.pathA) && volume(p.row.pathB)) ? MASK_LANES : 1;
}

/**
 * The lanes of a batch on the GPU backend: each of --devices' GPUs (or the one --device names) `perDevice`
 * times, interleaved so the first pairs go to different GPUs; each pair runs whole on its lane's GPU (a
 * batch's pairs are many and small, so spreading pairs scales where splitting each one would not), the next
 * pair going to the first lane free. Null: one lane, every pair on the device given (and the CPU backend,
 * whose every pair uses every core).
 */
function laneDevices(options: RunBatchOptions, run: RunSettings, perDevice: number): number[] | null {
  const { devices } = options.compare;
  if (run.backend.name === 'cpu') return null;
  const lanes = interleavedLanes(devices === undefined ? [run.device] : batchGpus(run.backend, devices), perDevice);
  return lanes.length > 1 ? lanes : null;
}

/**
 * A batch starts its GPU once for every pair, so --backend auto is decided for the batch (resolved: the backend
 * selectBackend picks) and each pair runs there; a compare alone would keep a small mask pair on the CPU rather than
 * wait for a GPU's start (src/ops/auto-backend.ts), a cost the batch pays once.
 */
export function batchBackend(compare: CompareOptions, resolved: string): CompareOptions {
  if ((compare.backend ?? 'auto') !== 'auto') return compare;
  return { ...compare, backend: resolved === 'cpu' ? 'cpu' : 'cuda' };
}

/** Each GPU `perDevice` times, the list repeated (0,1,0,1 for two lanes on GPUs 0 and 1). */
export function interleavedLanes(gpus: number[], perDevice: number): number[] {
  const lanes: number[] = [];
  for (let k = 0; k < perDevice; k++) lanes.push(...gpus);
  return lanes;
}

export async function runBatch(pairs: BatchPair[], given: RunBatchOptions): Promise<BatchSummary> {
  const started = performance.now();
  // The batch's backend and first device, resolved once: the lanes and every pair's backend follow from it.
  const { devices } = given.compare;
  const run = resolveRun({ backend: given.compare.backend, device: given.compare.device ?? (Array.isArray(devices) ? devices[0] : undefined), threads: given.compare.threads }, given.compare.method);
  const options: RunBatchOptions = { ...given, compare: batchBackend(given.compare, run.backend.name) };
  const summary: BatchSummary = { pairs: pairs.length, passed: 0, exceeded: 0, unchecked: 0, errors: 0, notRun: 0, labelInNeither: 0, interrupted: false, exitCode: 0, totalMs: 0 };
  let worstError = 0;
  const lanes = laneDevices(options, run, batchLanesPerDevice(pairs, options.lanes)) ??
    (laneThreadsAsked(options) === true && run.backend.name === 'cpu' ? new Array<null>(Math.max(1, options.lanes ?? 1)).fill(null) : [null]);
  // Outcomes are reported in manifest order, each lane going on with its next pair meanwhile (in-order-reports.ts).
  const reports = new InOrderReports<PairOutcome | 'cancelled'>(pairs.length, REPORT_WINDOW_PER_LANE * lanes.length, async (i, outcome) => {
    if (outcome === 'cancelled') {
      summary.interrupted = true;
      return false;
    }
    if (outcome.status === 'error') {
      summary.errors++;
      worstError = Math.max(worstError, outcome.exitCode);
    } else {
      summary[outcome.status]++;
      if (outcome.result.labelInNeither) summary.labelInNeither++;
    }
    await options.onPair?.(pairs[i], outcome);
    return true;
  });
  // The next pair's index, or -1 when none is left or the batch was interrupted.
  const take = (): number => {
    if (options.signal?.aborted && !summary.interrupted) {
      summary.interrupted = true;
      reports.stop();
    }
    const i = reports.take();
    if (i >= 0) options.onProgress?.(i, pairs.length);
    return i;
  };
  const finish = (i: number, outcome: PairOutcome | 'cancelled') => reports.finish(i, outcome);
  // Lanes share the host's cores: each pair's native calls take its lane's share unless --threads was given. A
  // pair given every core runs short jobs on 32 threads beside seven other lanes doing the same (a batch of
  // 1,000 small mask pairs on a 32-core host in eight lanes: 3.3 s with every core a pair, 2.3 s with four).
  const threads = options.compare.threads ?? (lanes.length > 1 ? Math.max(1, Math.floor(availableParallelism() / lanes.length)) : undefined);
  const laneCompare = (device: number | null) => (device === null && lanes.length === 1 ? options.compare : { ...options.compare, device: device ?? options.compare.device, devices: device === null ? options.compare.devices : undefined, threads });
  // Every native call in flight listens to the batch's signal: more lanes than Node's default of 10 listeners
  // would print a MaxListenersExceededWarning on stderr (16 lanes on two GPUs did).
  if (options.signal) setMaxListeners(Math.max(getMaxListeners(options.signal), 4 * lanes.length), options.signal);
  if (laneThreads(options, lanes, pairs)) {
    await runLanesInWorkers(pairs, lanes.map(laneCompare), take, finish, options.signal);
  } else {
    const lane = async (device: number | null) => {
      const own = { ...options, compare: laneCompare(device) };
      for (let i = take(); i >= 0; i = take()) await finish(i, await runPair(pairs[i], own));
    };
    await Promise.all(lanes.map(lane));
  }
  await reports.settled();
  if (summary.interrupted) summary.notRun = pairs.length - reports.reported;
  if (!summary.interrupted) options.onProgress?.(pairs.length, pairs.length);
  summary.exitCode = summary.interrupted ? new CancelledError(options.signal?.reason).exitCode : worstError > 0 ? worstError : summary.exceeded > 0 ? 1 : 0;
  summary.totalMs = performance.now() - started;
  return summary;
}

export async function runPair(pair: BatchPair, options: RunBatchOptions): Promise<PairOutcome | 'cancelled'> {
  try {
    // Not `{ ...options.compare, failAbove, … }`: V8 (Node 20) adds each field that follows a spread at about 2 µs.
    const compare: CompareOptions = Object.assign({}, options.compare, {
      failAbove: pair.failAbove,
      metric: pair.metric,
      labelInNeither: 'empty-policy' as const,
      signal: options.signal,
    });
    if (wantsLabelVolumes(compare)) return { status: 'unchecked', result: await compareLabelFiles(pair.row.pathA, pair.row.pathB, compare) };
    const result = await compareFiles(pair.row.pathA, pair.row.pathB, compare);
    const status = !result.threshold ? 'unchecked' : result.threshold.exceeded ? 'exceeded' : 'passed';
    return { status, result };
  } catch (error) {
    if (error instanceof CancelledError) return 'cancelled';
    if (error instanceof XhdError) return { status: 'error', message: oneLine(error.message), exitCode: error.exitCode };
    // What the CLI would call an internal error (exit 3); it ends this pair, not the batch.
    const detail = error instanceof Error ? error.message : String(error);
    return { status: 'error', message: oneLine(`internal error: ${detail}`), exitCode: EXIT_NATIVE };
  }
}

/** Native-library messages put the cause and the fix on lines of their own; a JSON Lines record wants one. */
function oneLine(message: string): string {
  return message.split('\n').map((s) => s.trim()).filter((s) => s !== '').join(' ');
}
