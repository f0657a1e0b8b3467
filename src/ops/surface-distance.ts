// Exact distance from points to a triangle mesh's surface: argument checks, backend choice, one native
// call that returns every point's distance, nearest triangle and closest surface point.

import { expectOneOf, expectPoints } from '../core/arguments.js';
import { UsageError } from '../core/errors.js';
import { cudaDevice, type BackendChoice, type DeviceInfo } from './backends.js';
import { resolveRun } from './run-settings.js';
import type { Coordinates } from '../io/geometry.js';
import { meshArg, pointsArg, SURFACE_METHOD_CODES, type RawSurfaceResult } from '../native/abi.js';
import { callNative } from '../native/call.js';
import type { BackendName } from '../native/library.js';

export const SURFACE_METHODS = ['grid', 'bvh', 'brute'] as const;
export type SurfaceMethod = (typeof SURFACE_METHODS)[number];

export interface TriangleMesh {
  /** Interleaved x,y,z of the vertices: float32 or double, the truth distances are measured over. */
  positions: Coordinates;
  /** Vertex-index triples. */
  triangles: Uint32Array;
}

export interface SurfaceOptions {
  /**
   * grid (default): a uniform grid of triangles, with the hierarchy for points far from the surface;
   * bvh: the triangle hierarchy alone; brute: the double-precision reference (CPU only).
   */
  method?: SurfaceMethod;
  backend?: BackendChoice;
  device?: number;
  threads?: number;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

/** Every point's distance to the surface, and what measuring it cost. */
export interface SurfaceMeasure {
  /** Distance of each point to the surface (double precision). */
  distances: Float64Array;
  buildMs: number;
  queryMs: number;
  uploadMs: number;
  downloadMs: number;
  triangleTests: number;
  peakDeviceBytes: number;
  backend: BackendName;
  threads: number;
  device: DeviceInfo | null;
  /** The float filters ran on coordinates minus this point (0 when the inputs are float32). */
  origin: [number, number, number];
}

export interface SurfaceDistances extends SurfaceMeasure {
  /** The nearest triangle of each point (the smallest index among equally near ones). */
  triangles: Uint32Array;
  /** The closest surface point of each point, interleaved x,y,z. */
  closest: Float64Array;
}

/**
 * A point cloud as a mesh of one-point triangles (i, i, i): the distance to it is the nearest-point distance.
 * The positions are kept as they are, float32 or double.
 */
export function pointsAsMesh<P extends Float32Array | Float64Array>(positions: P): { positions: P; triangles: Uint32Array } {
  const n = positions.length / 3;
  const triangles = new Uint32Array(3 * n);
  for (let i = 0; i < n; i++) triangles[3 * i] = triangles[3 * i + 1] = triangles[3 * i + 2] = i;
  return { positions, triangles };
}

/** Each point's distance, nearest triangle and closest surface point. */
export async function pointSurfaceDistances(points: Coordinates, mesh: TriangleMesh, options: SurfaceOptions = {}): Promise<SurfaceDistances> {
  const n = points.length / 3;
  const triangles = new Uint32Array(n);
  const closest = new Float64Array(3 * n);
  return { ...(await measure(points, mesh, options, triangles, closest)), triangles, closest };
}

/** Each point's distance alone: a third of the memory, and on the GPU a fifth of the download. */
export function pointSurfaceDistancesOnly(points: Coordinates, mesh: TriangleMesh, options: SurfaceOptions = {}): Promise<SurfaceMeasure> {
  return measure(points, mesh, options, null, null);
}

async function measure(points: Coordinates, mesh: TriangleMesh, options: SurfaceOptions, triangles: Uint32Array | null,
  closest: Float64Array | null): Promise<SurfaceMeasure> {
  expectPoints(points, 'points');
  expectPoints(mesh.positions, 'mesh positions');
  if (!(mesh.triangles instanceof Uint32Array) || mesh.triangles.length === 0 || mesh.triangles.length % 3 !== 0) {
    throw new UsageError('Expected mesh triangles to be a non-empty Uint32Array of vertex-index triples');
  }
  const method = expectOneOf(options.method ?? 'grid', SURFACE_METHODS, 'method');
  // The brute reference runs on the CPU, as the brute Hausdorff method does.
  const { backend, threads, device } = resolveRun(options, method === 'brute' ? 'brute' : 'grid');
  const distances = new Float64Array(points.length / 3);
  const raw = {} as RawSurfaceResult;
  await callNative(backend, backend.pointSurfaceDistance, [
    pointsArg(points),
    meshArg(mesh.positions, mesh.triangles),
    { method: SURFACE_METHOD_CODES[method], threads, device, reserved: 0 },
    distances,
    triangles,
    closest,
    raw,
  ], { onProgress: options.onProgress, signal: options.signal, refusal: 'the surface distance cannot be measured' });
  const onGpu = backend.name !== 'cpu';
  return {
    distances,
    buildMs: raw.build_ms,
    queryMs: raw.query_ms,
    uploadMs: raw.upload_ms,
    downloadMs: raw.download_ms,
    triangleTests: Number(raw.triangle_tests),
    peakDeviceBytes: Number(raw.peak_device_bytes),
    backend: backend.name,
    threads: onGpu ? 0 : threads,
    device: onGpu ? cudaDevice(device) : null,
    origin: [raw.origin[0], raw.origin[1], raw.origin[2]],
  };
}
