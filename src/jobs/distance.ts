// `xhd distance`: read two inputs, build one MeshDistance context, query it for one pose of B or for every
// frame of a poses file, and describe the outcome as one plain result object for the text and JSON renderers.
import { warmUpCuda, type BackendChoice, type DeviceInfo } from '../ops/backends.js';
import type { InputSummary } from './compare.js';
import { InputError } from '../core/errors.js';
import { summarizeFrames, type FrameOutcome, type FramesSummary } from './frame-summary.js';
import { boundsDiagonal, type FileFormat, type Geometry } from '../io/geometry.js';
import { readGeometry } from '../io/read.js';
import { IDENTITY_POSE, MeshDistance, type DistanceContacts, type DistanceMesh, type DistancePenetration, type DistanceMethod, type DistancePair, type Pose } from '../ops/mesh-distance.js';
import { readPoseFile, type PoseFrame } from '../io/pose-file.js';
import { silentProgress, type Progress, type ProgressFactory } from '../core/progress.js';
import { formatCount } from '../core/counts.js';
import { hasFaces } from '../ops/surface-compare.js';
import { pointsAsMesh } from '../ops/surface-distance.js';

export interface DistanceOptions {
  min: boolean;
  max: boolean;
  /** With the minimum: when it is 0, every triangle pair at distance 0, counted and bounded (CPU backend). */
  contacts?: boolean;
  /** With the minimum, for closed meshes: whether the solids overlap, and bounds on the penetration depth (CPU backend). */
  penetration?: boolean;
  method: DistanceMethod;
  backend: BackendChoice;
  device?: number;
  threads?: number;
  /** Reports how far the work has got (the command line draws a bar); default: nothing. */
  progress?: ProgressFactory;
  format?: FileFormat;
  columns?: string[];
  /** The one pose of B (default: as read). */
  pose?: Pose;
  /** A poses file: every frame is queried on the same context. */
  frames?: string;
  signal?: AbortSignal;
  /** Keep both meshes and every frame's pose in the result (an HTML report draws them). */
  keepMeshes?: boolean;
}

export interface DistanceResult {
  which: { min: boolean; max: boolean };
  /** The single pose's answers; with --frames, the extremes over the frames (from summary.min/max's frame). */
  min: DistancePair | null;
  max: DistancePair | null;
  /** The single pose's contacts (asked for with contacts), else null; with --frames each frame has its own. */
  contacts: DistanceContacts | null;
  /** The single pose's penetration facts (asked for with penetration), else null; with --frames each frame has its own. */
  penetration: DistancePenetration | null;
  /** The pose of B (single-pose runs), else null. */
  pose: Pose | null;
  /** Every frame's answers (--frames), else null. */
  frames: FrameOutcome[] | null;
  framesPath: string | null;
  summary: FramesSummary | null;
  /** Work of the single query (with --frames, summed over the frames). */
  boxPairs: number;
  trianglePairs: number;
  a: InputSummary;
  b: InputSummary;
  method: DistanceMethod;
  backend: string;
  threads: number;
  device: DeviceInfo | null;
  /** query, upload and download are summed over the frames; upload and download are 0 on the CPU. */
  timingsMs: { read: number; build: number; query: number; upload: number; download: number; total: number };
  notes: string[];
  /** With keepMeshes: the meshes as measured (a point cloud as one-point triangles) and each frame's pose of B. */
  meshes: { a: DistanceMesh; b: DistanceMesh; poses: Pose[] } | null;
}

function summarize(path: string, g: Geometry): InputSummary {
  const triangles = hasFaces(g) ? g.triangles!.length / 3 : 0;
  return { path, format: g.format, points: g.count, dims: g.dims, triangles, source: triangles > 0 ? 'surface' : 'points', bboxDiagonal: g.count > 0 ? boundsDiagonal(g.bounds) : 0 };
}

/**
 * A mesh with its coordinates as read (the library measures exactly over them, float32 or double, and reports
 * points in them); a point cloud as one-point triangles, so "triangle i" is point i.
 */
function asMesh(g: Geometry, name: string, notes: string[]): DistanceMesh {
  if (hasFaces(g)) return { positions: g.positions, triangles: g.triangles! };
  notes.push(`${name} has no faces: its ${formatCount(g.count)} points are measured as a point cloud (its triangle ids are point indices)`);
  return pointsAsMesh(g.positions);
}

function readInputs(pathA: string, pathB: string, options: DistanceOptions, bar: Progress): [Geometry, Geometry] {
  const readOptions = { format: options.format, columns: options.columns, threads: options.threads };
  try {
    bar.status(`reading ${pathA}`);
    const a = readGeometry(pathA, readOptions);
    bar.status(`reading ${pathB}`);
    const b = readGeometry(pathB, readOptions);
    return [a, b];
  } finally {
    bar.finish();
  }
}

export async function distanceFiles(pathA: string, pathB: string, options: DistanceOptions): Promise<DistanceResult> {
  const started = performance.now();
  const progress = options.progress ?? silentProgress;
  const bar = progress('distance');
  // A bad frames file is found before any mesh is read or any hierarchy built.
  const poses: PoseFrame[] = options.frames !== undefined ? readPoseFile(options.frames) : [{ pose: options.pose ?? IDENTITY_POSE, line: 0 }];

  // One pose: make only the nodes its search reaches (MeshDistanceOptions.boundsOnDemand); backend auto then
  // runs on the CPU, as it does for contacts, so no CUDA context is started for it (an H200 host: 0.4 s waited for).
  const onePose = poses.length === 1;
  const auto = options.backend === undefined || options.backend === 'auto';
  const mayUseCuda = options.backend !== 'cpu' && options.method !== 'brute' && !(auto && (onePose || options.contacts || options.penetration));
  const warming = mayUseCuda ? warmUpCuda(options.device ?? 0) : Promise.resolve(); // overlaps the reading
  const readStarted = performance.now();
  const [a, b] = readInputs(pathA, pathB, options, bar);
  const readMs = performance.now() - readStarted;
  await warming;
  if (a.count === 0) throw new InputError(pathA, {}, 'has no points');
  if (b.count === 0) throw new InputError(pathB, {}, 'has no points');

  const notes: string[] = [];
  const meshA = asMesh(a, 'A', notes), meshB = asMesh(b, 'B', notes);
  for (const [name, g] of [['A', a], ['B', b]] as const) {
    if (g.dims === 2) notes.push(`${name} is 2D: its points lie in the plane z = 0`);
    for (const n of g.notes) notes.push(`${name}: ${n}`);
  }

  // A bar of its own: the build's work and the frames' are not parts of one whole.
  const buildBar = progress('building hierarchies');
  buildBar.status('building hierarchies');
  let context: MeshDistance;
  try {
    context = await MeshDistance.create(meshA, meshB, {
      min: options.min, max: options.max, contacts: options.contacts, penetration: options.penetration, method: options.method, backend: options.backend, device: options.device, threads: options.threads,
      boundsOnDemand: onePose,
      signal: options.signal, onProgress: (done, total) => buildBar.update(done, total),
    });
  } finally {
    buildBar.finish();
  }
  let frames: QueriedFrame[];
  try {
    frames = await queryFrames(context, poses, options.signal, bar);
  } finally {
    bar.finish();
    context.close();
  }

  const summary = summarizeFrames(frames);
  const sum = (key: 'queryMs' | 'uploadMs' | 'downloadMs') => frames.reduce((s, f) => s + f[key], 0);
  const single = options.frames === undefined;
  return {
    which: { min: options.min, max: options.max },
    min: summary.min ? frames[summary.min.frame].min : null,
    max: summary.max ? frames[summary.max.frame].max : null,
    contacts: single ? frames[0].contacts ?? null : null,
    penetration: single ? frames[0].penetration ?? null : null,
    pose: single ? poses[0].pose : null,
    frames: single ? null : frames,
    framesPath: single ? null : options.frames!,
    summary: single ? null : summary,
    boxPairs: frames.reduce((s, f) => s + f.boxPairs, 0),
    trianglePairs: frames.reduce((s, f) => s + f.trianglePairs, 0),
    a: summarize(pathA, a),
    b: summarize(pathB, b),
    method: options.method,
    backend: context.backend,
    threads: context.threads,
    device: context.device,
    timingsMs: {
      read: readMs,
      build: context.buildMs,
      query: sum('queryMs'),
      upload: sum('uploadMs'),
      download: sum('downloadMs'),
      total: performance.now() - started,
    },
    notes,
    meshes: options.keepMeshes ? { a: meshA, b: meshB, poses: poses.map((p) => p.pose) } : null,
  };
}

/**
 * Frames per native call. A call costs tens of microseconds beyond its queries, more than a small mesh's
 * query, so frames go in batches; the bar and Ctrl-C do not wait for a batch to end (the call reports each
 * frame done, or on the GPU each launch's up to 64, and stops before the next once cancelled), so the size only
 * bounds the results buffer
 * (4,096 × 272 bytes) and leaves the per-call cost at well under 0.1 µs a frame.
 */
export const FRAMES_PER_CALL = 4096;

type QueriedFrame = FrameOutcome & { boxPairs: number; trianglePairs: number };

/** Every pose on the one context: B's boxes are refitted per pose, its hierarchy is never rebuilt. */
async function queryFrames(context: MeshDistance, poses: PoseFrame[], signal: AbortSignal | undefined, bar: Progress): Promise<QueriedFrame[]> {
  const frames: QueriedFrame[] = [];
  const batch = new Float64Array(12 * Math.min(FRAMES_PER_CALL, poses.length));
  for (let first = 0; first < poses.length; first += FRAMES_PER_CALL) {
    const count = Math.min(FRAMES_PER_CALL, poses.length - first);
    const posesOfCall = batch.subarray(0, 12 * count);
    for (let k = 0; k < count; k++) posesOfCall.set(poses[first + k].pose, 12 * k);
    // The library's own count drives the bar, ten times a second, also within a call.
    const answers = await context.queryMany(posesOfCall, { signal, onProgress: (done) => bar.update(first + done, poses.length) });
    for (let k = 0; k < count; k++) {
      const i = first + k, q = answers[k];
      frames.push({
        frame: i, line: poses[i].line, min: q.min, max: q.max, ...(q.contacts ? { contacts: q.contacts } : {}),
        ...(q.penetration ? { penetration: q.penetration } : {}),
        queryMs: q.queryMs, uploadMs: q.uploadMs, downloadMs: q.downloadMs, boxPairs: q.boxPairs, trianglePairs: q.trianglePairs,
      });
    }
  }
  return frames;
}
