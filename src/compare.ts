// `xhd compare`: read two inputs, compute the exact Hausdorff distance, and describe the outcome as one
// plain result object that the text and JSON renderers share.
import { InputError, UsageError } from './errors.js';
import { warmUpCuda, type DeviceInfo } from './backends.js';
import { hausdorff, type BackendChoice, type DirectedHausdorff, type Method } from './hausdorff.js';
import type { Bounds, FileFormat, Geometry } from './io/geometry.js';
import { readGeometry } from './io/read.js';
import { ProgressBar } from './progress.js';
import { formatCount } from './report/format.js';

export interface CompareOptions {
  method: Method;
  directed: boolean;
  backend: BackendChoice;
  device?: number;
  threads?: number;
  seed?: number;
  quiet: boolean;
  format?: FileFormat;
  columns?: string[];
  signal?: AbortSignal;
}

export interface InputSummary {
  path: string;
  format: FileFormat;
  points: number;
  dims: 2 | 3;
  triangles: number;
  /** What the point set is: the file's points, or a mesh's vertices. */
  source: 'points' | 'vertices';
}

export interface Witness {
  /** Point of the source set realizing the directed distance. */
  fromIndex: number;
  fromPoint: number[];
  /** Its nearest neighbour in the target set. */
  toIndex: number;
  toPoint: number[];
}

export interface CompareResult {
  hd: number;
  hdAb: number;
  hdBa: number | null;
  witnessAb: Witness;
  witnessBa: Witness | null;
  a: InputSummary;
  b: InputSummary;
  method: Method;
  backend: string;
  threads: number;
  /** The GPU that ran it (CUDA backend), else null. */
  device: DeviceInfo | null;
  peakDeviceBytes: number;
  queryChunks: number;
  directed: boolean;
  bboxDiagonal: number;
  /** upload and download are host-device copies: 0 on the CPU backend. */
  timingsMs: { read: number; upload: number; build: number; query: number; download: number; total: number };
  notes: string[];
}

function summarize(path: string, g: Geometry): InputSummary {
  const triangles = g.triangles ? g.triangles.length / 3 : 0;
  return { path, format: g.format, points: g.count, dims: g.dims, triangles, source: triangles > 0 ? 'vertices' : 'points' };
}

function unionDiagonal(a: Bounds, b: Bounds): number {
  let s = 0;
  for (let i = 0; i < 3; i++) {
    const d = Math.max(a.max[i], b.max[i]) - Math.min(a.min[i], b.min[i]);
    s += d * d;
  }
  return Math.sqrt(s);
}

function pointAt(g: Geometry, index: number): number[] {
  const p = [g.positions[3 * index], g.positions[3 * index + 1], g.positions[3 * index + 2]];
  return g.dims === 2 ? p.slice(0, 2) : p;
}

function witnessOf(d: DirectedHausdorff, from: Geometry, to: Geometry): Witness {
  return { fromIndex: d.fromIndex, fromPoint: pointAt(from, d.fromIndex), toIndex: d.toIndex, toPoint: pointAt(to, d.toIndex) };
}

export async function compareFiles(pathA: string, pathB: string, options: CompareOptions): Promise<CompareResult> {
  const started = performance.now();
  const bar = ProgressBar.forStderr('hausdorff', options.quiet);
  const readOptions = { format: options.format, columns: options.columns };

  // The GPU's start-up runs on a worker thread while the files are read.
  const mayUseCuda = options.backend !== 'cpu' && options.method !== 'brute';
  const warming = mayUseCuda ? warmUpCuda(options.device ?? 0) : Promise.resolve();
  const readStarted = performance.now();
  let a: Geometry, b: Geometry;
  try {
    bar.status(`reading ${pathA}`);
    a = readGeometry(pathA, readOptions);
    bar.status(`reading ${pathB}`);
    b = readGeometry(pathB, readOptions);
  } finally {
    bar.finish();
  }
  const readMs = performance.now() - readStarted;
  await warming;

  if (a.count === 0) throw new InputError(pathA, {}, 'has no points');
  if (b.count === 0) throw new InputError(pathB, {}, 'has no points');
  if (a.dims !== b.dims) {
    throw new UsageError(`${pathA} is ${a.dims}D but ${pathB} is ${b.dims}D; compare point sets of the same dimension`);
  }

  const result = await hausdorff(a.positions, b.positions, {
    method: options.method,
    directed: options.directed,
    backend: options.backend,
    device: options.device,
    threads: options.threads,
    seed: options.seed,
    signal: options.signal,
    onProgress: (done, total) => bar.update(done, total),
  }).finally(() => bar.finish()); // an error message must not land on the bar's line

  const notes: string[] = [];
  for (const [name, g] of [['A', a], ['B', b]] as const) {
    if (g.triangles && g.triangles.length > 0) {
      notes.push(
        `${name} is a mesh (${formatCount(g.triangles.length / 3)} triangles): its ${formatCount(g.count)} vertices are compared as points (surface sampling is not implemented yet)`,
      );
    }
    for (const n of g.notes) notes.push(`${name}: ${n}`);
  }

  return {
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
    bboxDiagonal: unionDiagonal(a.bounds, b.bounds),
    timingsMs: {
      read: readMs,
      upload: result.uploadMs,
      build: result.ab.buildMs + (result.ba?.buildMs ?? 0),
      query: result.ab.queryMs + (result.ba?.queryMs ?? 0),
      download: result.downloadMs,
      total: performance.now() - started,
    },
    notes,
  };
}
