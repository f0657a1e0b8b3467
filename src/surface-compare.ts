// Surface-to-surface comparison for `xhd compare` when an input has faces: sample each mesh, measure
// every sample's exact distance to the other input's surface (a point cloud counts as its points), and
// reduce the distances to the statistics users ask for: HD, min, mean, RMS and the squared-distance sum E.
// The per-sample distances stay in the outcome for the pictures (heatmap, histogram).
import { availableParallelism } from 'node:os';

import { UsageError } from './errors.js';
import { selectBackend, type BackendChoice, type DeviceInfo } from './backends.js';
import type { Coordinates, Geometry } from './io/geometry.js';
import { nativeAreaSampler, nativeSurfaceArea } from './sampling/native-sampler.js';
import { defaultSampleCount, sampleMesh, type SamplingMode } from './sampling/sample-mesh.js';
import {
  pointsAsMesh,
  pointSurfaceDistances,
  pointSurfaceDistancesOnly,
  type SurfaceMeasure,
  type SurfaceMethod,
  type TriangleMesh,
} from './surface.js';
import type { BackendName, NativeBackend } from './native/library.js';

/** The point the library's float filters ran relative to (surface_frame.h); 0 for float32 inputs. */
export type Origin = [number, number, number];

/** The library that samples (on the host, whichever backend measures) and its thread count. */
interface NativeSampling {
  backend: NativeBackend;
  threads: number;
}

export interface SurfaceCompareOptions {
  method: SurfaceMethod;
  directed: boolean;
  sampling: SamplingMode;
  /** Samples per mesh; overrides density. */
  samples?: number;
  /** Samples per unit area. */
  density?: number;
  seed: number;
  backend: BackendChoice;
  device?: number;
  threads?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** One direction's distances, reduced. */
export interface DirectionStats {
  hd: number;
  min: number;
  mean: number;
  rms: number;
  /** Σ d² over the samples: the similarity metric E. */
  e: number;
  samples: number;
  /** The sample realizing hd, and its closest point on the other surface. */
  fromIndex: number;
  fromPoint: number[];
  /** Triangle of the other input holding toPoint (for a point cloud: the point's index). */
  toIndex: number;
  toPoint: number[];
}

export interface SurfaceOutcome {
  ab: DirectionStats;
  ba: DirectionStats | null;
  /** A's query points, interleaved x,y,z: its samples, its vertices (vertices sampling) or a cloud's points. */
  queriesA: Coordinates;
  /** B's query points (empty when directed). */
  queriesB: Coordinates;
  /** The library's float filters ran relative to this point; every distance is over the input's own
   *  coordinates, and every point is reported in them. */
  origin: Origin;
  /** Each of A's query points' distance to B, and each of B's to A (null when directed), as measured. */
  distancesAb: Float64Array;
  distancesBa: Float64Array | null;
  /** max(E(A,B), E(B,A)); null when directed. */
  es: number | null;
  sampling: SamplingMode;
  samplesA: number;
  samplesB: number;
  sampleMs: number;
  buildMs: number;
  queryMs: number;
  uploadMs: number;
  downloadMs: number;
  peakDeviceBytes: number;
  backend: BackendName;
  threads: number;
  device: DeviceInfo | null;
  notes: string[];
}

export function hasFaces(g: Geometry): boolean {
  return g.triangles !== undefined && g.triangles.length > 0;
}

/** The points a side contributes as queries: samples of its surface, or its points when it has none. */
function queryPoints(g: Geometry, name: string, o: SurfaceCompareOptions, seed: number, sampler: NativeSampling, notes: string[]): Coordinates {
  if (!hasFaces(g)) return g.positions;
  const mesh = { positions: g.positions, triangles: g.triangles! };
  if (o.sampling === 'vertices') return g.positions;
  const area = nativeSurfaceArea(sampler.backend, mesh);
  if (!(area > 0)) {
    notes.push(`${name} has no area (every triangle is degenerate): its vertices are used as samples`);
    return g.positions;
  }
  const count = o.samples ?? (o.density !== undefined ? Math.max(1, Math.round(o.density * area)) : defaultSampleCount(mesh));
  return sampleMesh(mesh, { mode: o.sampling, count, seed }, nativeAreaSampler(sampler.backend, sampler.threads));
}

function targetOf(g: Geometry): TriangleMesh {
  return hasFaces(g) ? { positions: g.positions, triangles: g.triangles! } : pointsAsMesh(g.positions);
}

function point(values: ArrayLike<number>, i: number, dims: 2 | 3): number[] {
  const p = [values[3 * i], values[3 * i + 1], values[3 * i + 2]];
  return dims === 2 ? p.slice(0, 2) : p;
}

/** One direction's statistics; the witness's closest point is found afterwards (nearestOnSurface). */
export function reduceDistances(queries: Coordinates, distances: Float64Array, dims: 2 | 3): Omit<DirectionStats, 'toIndex' | 'toPoint'> {
  const n = distances.length;
  let worst = 0, min = Infinity, sum = 0, sum2 = 0;
  for (let i = 0; i < n; i++) {
    const v = distances[i];
    if (v > distances[worst]) worst = i; // ties keep the smallest sample index
    if (v < min) min = v;
    sum += v;
    sum2 += v * v;
  }
  return {
    hd: distances[worst],
    min,
    mean: sum / n,
    rms: Math.sqrt(sum2 / n),
    e: sum2,
    samples: n,
    fromIndex: worst,
    fromPoint: point(queries, worst, dims),
  };
}

/**
 * The witness sample's nearest triangle and closest point, by the CPU reference over every triangle: one
 * point costs one pass over the mesh, and the distance calls then return distances only (on the GPU, 8
 * bytes a point to download instead of 36). The reference's answer is the same triangle and point the
 * fast methods find (the tests compare them bit for bit).
 */
async function withWitness(stats: Omit<DirectionStats, 'toIndex' | 'toPoint'>, queries: Coordinates, target: TriangleMesh,
  dims: 2 | 3, threads: number): Promise<DirectionStats> {
  const i = stats.fromIndex;
  const nearest = await pointSurfaceDistances(queries.slice(3 * i, 3 * i + 3), target, { backend: 'cpu', method: 'brute', threads });
  return { ...stats, toIndex: nearest.triangles[0], toPoint: point(nearest.closest, 0, dims) };
}

/** Build and query wall times of the two directions run side by side within wallMs (see compareInFrame). */
function sideBySideTimes(both: SurfaceMeasure[], wallMs: number): { buildMs: number; queryMs: number } {
  const buildMs = Math.min(Math.max(...both.map((d) => d.buildMs)), wallMs);
  return { buildMs, queryMs: Math.max(0, wallMs - buildMs) };
}

/**
 * Build and query wall times of the two directions run one after the other within wallMs. On the GPU, B
 * is sampled while A's distances are measured, so the query is clamped to the wall time left after the
 * builds: the timings never add up to more than the total.
 */
function oneAfterTheOtherTimes(both: SurfaceMeasure[], wallMs: number): { buildMs: number; queryMs: number } {
  const buildMs = Math.min(both.reduce((s, d) => s + d.buildMs, 0), Math.max(0, wallMs));
  const queryMs = Math.min(both.reduce((s, d) => s + d.queryMs, 0), Math.max(0, wallMs - buildMs));
  return { buildMs, queryMs };
}

export async function compareSurfaces(a: Geometry, b: Geometry, o: SurfaceCompareOptions): Promise<SurfaceOutcome> {
  if (o.samples !== undefined && o.density !== undefined) throw new UsageError('give --samples or --density, not both');
  const notes: string[] = [];
  // On the CPU the two directions run side by side, each on half the threads, and B is sampled while
  // A's distances are measured: on few cores this overlaps the single-threaded parts of each call.
  const threads = o.threads ?? availableParallelism();
  const backend = selectBackend(o.backend, o.method, o.device ?? 0);
  const side = !o.directed && threads >= 2 && backend.name === 'cpu';
  const done = [0, 0];
  const counts = [0, 0];
  const run = (queries: Coordinates, target: TriangleMesh, direction: 0 | 1, threadsHere: number) =>
    pointSurfaceDistancesOnly(queries, target, {
      method: o.method,
      backend: o.backend,
      device: o.device,
      threads: threadsHere,
      signal: o.signal,
      onProgress: o.onProgress ? (d) => {
        done[direction] = d;
        // Until B is sampled, its count is taken to be A's.
        o.onProgress!(done[0] + done[1], counts[0] + (counts[1] || counts[0]));
      } : undefined,
    });

  const surfaceA = targetOf(a), surfaceB = targetOf(b);
  let sampleStart = performance.now();
  const queriesA = queryPoints(a, 'A', o, o.seed, { backend, threads }, notes);
  let sampleMs = performance.now() - sampleStart;
  counts[0] = queriesA.length / 3;
  const measureStart = performance.now();
  const pendingAb = run(queriesA, surfaceB, 0, side ? Math.ceil(threads / 2) : threads);
  // Keep a failure of the first call from going unobserved while B is sampled.
  pendingAb.catch(() => undefined);
  // One CPU thread means one: B is sampled only after A's distances are in.
  if (!side && backend.name === 'cpu') await pendingAb;
  sampleStart = performance.now();
  // B's stream differs from A's, so two copies of one mesh are not sampled at the same points.
  const samplerB = { backend, threads: side ? Math.floor(threads / 2) : threads };
  const queriesB = o.directed ? new Float64Array(0) : queryPoints(b, 'B', o, o.seed + 1, samplerB, notes);
  const sampleBMs = performance.now() - sampleStart;
  sampleMs += sampleBMs;
  counts[1] = queriesB.length / 3;
  let dab: SurfaceMeasure, dba: SurfaceMeasure | null;
  if (side) {
    [dab, dba] = await Promise.all([pendingAb, run(queriesB, surfaceA, 1, Math.floor(threads / 2))]);
  } else {
    dab = await pendingAb;
    dba = o.directed ? null : await run(queriesB, surfaceA, 1, threads);
  }
  const measureWallMs = performance.now() - measureStart;
  const [ab, ba] = await Promise.all([
    withWitness(reduceDistances(queriesA, dab.distances, a.dims), queriesA, surfaceB, a.dims, threads),
    dba ? withWitness(reduceDistances(queriesB, dba.distances, a.dims), queriesB, surfaceA, a.dims, threads) : null,
  ]);
  const both = dba ? [dab, dba] : [dab];
  const sumOf = (pick: (d: SurfaceMeasure) => number) => both.reduce((s, d) => s + pick(d), 0);
  return {
    ab,
    ba,
    // The arrays themselves, not copies: the heatmap and histogram read them after the statistics.
    queriesA,
    queriesB,
    origin: dab.origin,
    distancesAb: dab.distances,
    distancesBa: dba ? dba.distances : null,
    es: ba ? Math.max(ab.e, ba.e) : null,
    sampling: o.sampling,
    samplesA: ab.samples,
    samplesB: ba ? ba.samples : 0,
    sampleMs,
    // Wall times. Run one after the other, the directions' times add up; side by side they overlap (and
    // B's sampling overlaps A's measuring), so the build is the longer of the two and the query the rest of
    // the measuring's wall time.
    ...(side ? sideBySideTimes(both, measureWallMs - sampleBMs) : oneAfterTheOtherTimes(both, measureWallMs - sampleBMs)),
    uploadMs: sumOf((d) => d.uploadMs),
    downloadMs: sumOf((d) => d.downloadMs),
    peakDeviceBytes: Math.max(...both.map((d) => d.peakDeviceBytes)),
    backend: dab.backend,
    threads: side ? threads : dab.threads, // side by side, each direction had half
    device: dab.device,
    notes,
  };
}
