// Surface-to-surface comparison for `xhd compare` when an input has faces: sample each mesh, measure
// every sample's exact distance to the other input's surface (a point cloud counts as its points), and
// reduce the distances to the statistics users ask for: HD, min, mean, RMS and the squared-distance sum E.
// The per-sample distances stay in the outcome for the pictures (heatmap, histogram).
//
// All of it is one native call (xhd_surface_compare, kernels/geometry/surface_compare.cpp): the sampling, both
// directions' searches, the reduction and the witnesses, with the rules this file used to orchestrate over
// several calls (the directions side by side on the CPU, wall times that fit in the total, one thread meaning
// one). Here the job is described, and what comes back is copied out of the library's memory and freed.
import koffi from '../native/koffi.js';

import { expectInteger, expectOneOf } from '../core/arguments.js';
import { UsageError } from '../core/errors.js';
import { cudaDevice, type BackendChoice, type DeviceInfo } from './backends.js';
import { resolveRun } from './run-settings.js';
import type { Coordinates, Geometry } from '../io/geometry.js';
import { SAMPLING_MODES, type SamplingMode } from '../sampling/sample-mesh.js';
import { SURFACE_METHODS, type SurfaceMethod } from './surface-distance.js';
import {
  DIRECTION_AB,
  DIRECTION_BA,
  QUERIES_NO_AREA,
  QUERIES_SAMPLES,
  SAMPLING_CODES,
  SURFACE_METHOD_CODES,
  type RawSurfaceCompareResult,
  type RawSurfaceDirection,
} from '../native/abi.js';
import { callNative } from '../native/call.js';
import type { BackendName } from '../native/library.js';

/** The point the library's float filters ran relative to (surface_frame.h); 0 for float32 inputs. */
export type Origin = [number, number, number];

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

function point(values: ArrayLike<number>, dims: 2 | 3): number[] {
  const p = [values[0], values[1], values[2]];
  return dims === 2 ? p.slice(0, 2) : p;
}

/** An input as the library takes it: a mesh, or a point cloud as no triangles at all. */
function inputArg(g: Geometry) {
  const floats = g.positions instanceof Float32Array;
  const faces = hasFaces(g);
  return {
    xyz: floats ? g.positions : null,
    vertex_count: g.positions.length / 3,
    triangles: faces ? g.triangles! : null,
    triangle_count: faces ? g.triangles!.length / 3 : 0,
    xyz64: floats ? null : g.positions,
  };
}

/** n values of the library's array at pointer, copied into memory of our own (the library's is freed next). */
function copyOut<T extends Float32Array | Float64Array>(pointer: unknown, n: number, Type: { new(b: ArrayBuffer): T; BYTES_PER_ELEMENT: number }): T {
  return new Type(koffi.view(pointer, n * Type.BYTES_PER_ELEMENT)).slice() as T;
}

/** A direction's query points: its samples (copied out), or the input's own points, the array itself. */
function queriesOf(d: RawSurfaceDirection, g: Geometry): Coordinates {
  if (d.queries_from !== QUERIES_SAMPLES) return g.positions;
  const n = 3 * Number(d.samples);
  return d.queries ? copyOut(d.queries, n, Float32Array) : copyOut(d.queries64, n, Float64Array);
}

function statsOf(d: RawSurfaceDirection, dims: 2 | 3): DirectionStats {
  return {
    hd: d.hd,
    min: d.min,
    mean: d.mean,
    rms: d.rms,
    e: d.e,
    samples: Number(d.samples),
    fromIndex: Number(d.from_index),
    fromPoint: point(d.from_point, dims),
    toIndex: Number(d.to_index),
    toPoint: point(d.to_point, dims),
  };
}

function checkedOptions(o: SurfaceCompareOptions) {
  if (o.samples !== undefined && o.density !== undefined) throw new UsageError('give --samples or --density, not both');
  if (o.samples !== undefined) expectInteger(o.samples, 'samples', 1, 2 ** 32 - 2);
  if (o.density !== undefined && !(o.density > 0 && Number.isFinite(o.density))) {
    throw new UsageError(`Expected density to be a finite number > 0, got ${o.density}`);
  }
  return {
    method: expectOneOf(o.method, SURFACE_METHODS, 'method'),
    sampling: expectOneOf(o.sampling, SAMPLING_MODES, 'sampling'),
    seed: expectInteger(o.seed, 'seed', 0, Number.MAX_SAFE_INTEGER),
  };
}

export async function compareSurfaces(a: Geometry, b: Geometry, o: SurfaceCompareOptions): Promise<SurfaceOutcome> {
  const { method, sampling, seed } = checkedOptions(o);
  const { backend, threads, device } = resolveRun(o, method);
  const options = {
    method: SURFACE_METHOD_CODES[method],
    directions: o.directed ? DIRECTION_AB : DIRECTION_AB | DIRECTION_BA,
    sampling: SAMPLING_CODES[sampling],
    threads,
    device,
    reserved: 0,
    samples: o.samples ?? 0,
    density: o.density ?? 0,
    seed,
  };
  // The result lives in memory of its own so that the same struct, pointers and all, goes back to be freed.
  const slot = koffi.alloc('xhd_surface_compare_result', 1);
  try {
    await callNative(backend, backend.surfaceCompare, [inputArg(a), inputArg(b), options, slot],
      { onProgress: o.onProgress, signal: o.signal, refusal: 'the surfaces cannot be compared' });
    // From here the library owns the samples and distances until they are freed, below.
    try {
      return outcomeOf(koffi.decode(slot, 'xhd_surface_compare_result') as RawSurfaceCompareResult, a, b, o, backend.name, device);
    } finally {
      backend.surfaceCompareFree(slot);
    }
  } finally {
    koffi.free(slot);
  }
}

function outcomeOf(raw: RawSurfaceCompareResult, a: Geometry, b: Geometry, o: SurfaceCompareOptions, backend: BackendName,
  device: number): SurfaceOutcome {
  const ab = statsOf(raw.ab, a.dims);
  const ba = o.directed ? null : statsOf(raw.ba, a.dims);
  const notes: string[] = [];
  for (const [name, d] of [['A', raw.ab], ['B', raw.ba]] as const) {
    if (d.queries_from === QUERIES_NO_AREA) notes.push(`${name} has no area (every triangle is degenerate): its vertices are used as samples`);
  }
  return {
    ab,
    ba,
    queriesA: queriesOf(raw.ab, a),
    queriesB: ba ? queriesOf(raw.ba, b) : new Float64Array(0),
    origin: [raw.origin[0], raw.origin[1], raw.origin[2]],
    distancesAb: copyOut(raw.ab.distances, ab.samples, Float64Array),
    distancesBa: ba ? copyOut(raw.ba.distances, ba.samples, Float64Array) : null,
    es: ba ? Math.max(ab.e, ba.e) : null,
    sampling: o.sampling,
    samplesA: ab.samples,
    samplesB: ba ? ba.samples : 0,
    // Wall times, as the library measured them: they never add up to more than the call's own.
    sampleMs: raw.sample_ms,
    buildMs: raw.build_ms,
    queryMs: raw.query_ms,
    uploadMs: raw.upload_ms,
    downloadMs: raw.download_ms,
    peakDeviceBytes: Number(raw.peak_device_bytes),
    backend,
    threads: raw.threads, // side by side, the directions shared them; 0 on a GPU
    device: backend !== 'cpu' ? cudaDevice(device) : null,
    notes,
  };
}
