// Pieces every reader shares: growable output buffers, the coordinate check, and the final assembly
// of a Geometry (bounds, triangle notes).
import { formatCount } from '../core/counts.js';
import { InputError, type FileLocation } from '../core/errors.js';
import { countDegenerateTrianglesNatively, NATIVE_DEGENERATE_TRIANGLES } from './degenerate-native.js';
import { boundsAreFinite, computeBounds, markFinite, type Bounds, type Coordinates, type FileFormat, type Geometry } from './geometry.js';
import { nativeReader } from './native-reader.js';

/**
 * Largest coordinate magnitude a reader accepts. Up to 1e15 a double still resolves 1/8, so coordinates
 * and the distances between them keep a useful, exact precision; beyond it they would not, and such
 * values are almost always a unit or parsing mistake.
 */
export const MAX_COORDINATE = 1e15;

/** True when `value` is finite and |value| ≤ 1e15 (NaN fails both comparisons). */
export function isExactCoordinate(value: number): boolean {
  return value <= MAX_COORDINATE && value >= -MAX_COORDINATE;
}

/** The error for a coordinate that isExactCoordinate rejected. */
export function badCoordinate(file: string, where: FileLocation, value: number, vertex: number): InputError {
  const detail = Number.isFinite(value)
    ? `coordinate ${value} of vertex ${vertex} is beyond ±1e15 (too large for exact distances)`
    : `non-finite coordinate (${value}) in vertex ${vertex}`;
  return new InputError(file, where, detail);
}

/** True when bounds (and so every coordinate they bound) pass isExactCoordinate; an empty set's do not. */
export function boundsAreExact(bounds: Bounds): boolean {
  return bounds.min.every(isExactCoordinate) && bounds.max.every(isExactCoordinate);
}

/** Index (into `positions`, not a point number) of the first coordinate isExactCoordinate rejects, or -1. */
export function firstInexactCoordinate(positions: Coordinates): number {
  for (let i = 0; i < positions.length; i++) {
    if (!isExactCoordinate(positions[i])) return i;
  }
  return -1;
}

/** A Float64Array that grows by doubling, for text readers that cannot know their vertex count up front. */
export class GrowableFloat64 {
  data: Float64Array;
  length = 0;
  constructor(initialCapacity = 1024) {
    this.data = new Float64Array(Math.max(16, initialCapacity));
  }
  push3(x: number, y: number, z: number): void {
    if (this.length + 3 > this.data.length) this.grow(this.length + 3);
    const d = this.data, i = this.length;
    d[i] = x;
    d[i + 1] = y;
    d[i + 2] = z;
    this.length = i + 3;
  }
  grow(minimum: number): void {
    const next = new Float64Array(Math.max(minimum, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }
  /** The filled part, copied only when there is slack to drop. */
  finish(): Float64Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}

/**
 * Collects triangles; polygons arrive one corner at a time and are fan-triangulated (v0, v[i-1], v[i]),
 * counting how many polygons needed it for the reader's notes.
 */
export class TriangleCollector {
  data: Uint32Array;
  length = 0;
  polygons = 0;
  private first = 0;
  private previous = 0;
  private corners = 0;

  constructor(initialTriangles = 1024) {
    this.data = new Uint32Array(Math.max(48, initialTriangles * 3));
  }

  get triangleCount(): number {
    return this.length / 3;
  }

  addTriangle(a: number, b: number, c: number): void {
    if (this.length + 3 > this.data.length) this.grow(this.length + 3);
    const d = this.data, i = this.length;
    d[i] = a;
    d[i + 1] = b;
    d[i + 2] = c;
    this.length = i + 3;
  }

  beginPolygon(): void {
    this.corners = 0;
  }

  addCorner(vertex: number): void {
    const k = this.corners++;
    if (k === 0) this.first = vertex;
    else if (k >= 2) this.addTriangle(this.first, this.previous, vertex);
    this.previous = vertex;
  }

  /** Closes a polygon begun with beginPolygon; the caller has already checked it had ≥ 3 corners. */
  endPolygon(): void {
    if (this.corners > 3) this.polygons++;
  }

  /**
   * Room for `triangles` more triangles, as the part of data they will fill: a native reader writes them there
   * itself, and added() then counts those it wrote.
   */
  room(triangles: number): Uint32Array {
    const end = this.length + 3 * triangles;
    if (end > this.data.length) this.grow(end);
    return this.data.subarray(this.length, end);
  }

  /** Counts `triangles` written into room() (they are plain triangles: no polygon was triangulated). */
  added(triangles: number): void {
    this.length += 3 * triangles;
  }

  private grow(minimum: number): void {
    const next = new Uint32Array(Math.max(minimum, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  finish(): Uint32Array {
    return this.length === this.data.length ? this.data : this.data.slice(0, this.length);
  }
}

/** Triangles that repeat a vertex or whose corners are collinear (cross product exactly zero). */
export function countDegenerateTriangles(positions: Coordinates, triangles: Uint32Array): number {
  let degenerate = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    const a = triangles[t], b = triangles[t + 1], c = triangles[t + 2];
    if (a === b || b === c || a === c) {
      degenerate++;
      continue;
    }
    const ax = positions[3 * a], ay = positions[3 * a + 1], az = positions[3 * a + 2];
    const ux = positions[3 * b] - ax, uy = positions[3 * b + 1] - ay, uz = positions[3 * b + 2] - az;
    const vx = positions[3 * c] - ax, vy = positions[3 * c + 1] - ay, vz = positions[3 * c + 2] - az;
    if (uy * vz - uz * vy === 0 && uz * vx - ux * vz === 0 && ux * vy - uy * vx === 0) degenerate++;
  }
  return degenerate;
}

/** countDegenerateTriangles, by the native library on every core for a large mesh when the native readers are there. */
function degenerateTriangles(positions: Coordinates, triangles: Uint32Array, threads: number | undefined): number {
  const native = triangles.length >= 3 * NATIVE_DEGENERATE_TRIANGLES && triangles.length % 3 === 0 ? nativeReader() : undefined;
  return native ? countDegenerateTrianglesNatively(native, positions, triangles, threads) : countDegenerateTriangles(positions, triangles);
}

export interface GeometryParts {
  positions: Coordinates;
  dims: 2 | 3;
  /** Omit (or pass an empty array) for a point cloud. */
  triangles?: Uint32Array;
  /** How many faces had more than 3 corners and were fan-triangulated. */
  polygonsTriangulated?: number;
  format: FileFormat;
  notes?: string[];
  /** Bounds when the reader already computed them (they double as its finiteness check). */
  bounds?: Bounds;
  /** Threads for the native count of degenerate triangles (the run's --threads; unset: every core). */
  threads?: number;
}

/**
 * Assembles the Geometry: bounds, and notes about triangulation and degenerate triangles. Readers reject
 * non-finite coordinates with their location; finite bounds confirm it, and the positions are marked
 * so that later layers skip another scan.
 */
export function finishGeometry(parts: GeometryParts): Geometry {
  const notes = parts.notes ?? [];
  const positions = parts.positions;
  let triangles = parts.triangles;
  if (triangles && triangles.length === 0) triangles = undefined;
  if (triangles) {
    const polygons = parts.polygonsTriangulated ?? 0;
    if (polygons > 0) notes.push(`${plural(polygons, 'polygon')} with more than 3 vertices fan-triangulated`);
    const degenerate = degenerateTriangles(positions, triangles, parts.threads);
    if (degenerate > 0) notes.push(`${plural(degenerate, 'degenerate triangle')} (repeated vertex or zero area) kept`);
  }
  const bounds = parts.bounds ?? computeBounds(positions);
  const geometry: Geometry = {
    positions,
    count: positions.length / 3,
    dims: parts.dims,
    bounds,
    format: parts.format,
    notes,
  };
  if (triangles) geometry.triangles = triangles;
  if (boundsAreFinite(bounds)) markFinite(positions);
  return geometry;
}

export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}
