// Turns a voxel mask into points (its surface voxels or all of them), and compares the physical space
// two volumes occupy, so that masks on different grids are not silently compared.
import type { Bounds } from '../core/coordinates.js';
import { UsageError } from '../core/errors.js';
import { nativeMaskPoints, nativeMaskPointsAsync, type NativeMaskPoints, type NativeMaskRequest } from '../native/mask-points.js';
import { loadBackend } from '../native/library.js';
import { nativeReader } from './native-reader.js';
import type { VoxelVolume } from './nifti.js';
import { readerThreads } from './reader-threads.js';

export interface MaskOptions {
  /** Foreground is the voxels equal to this value; without it, every nonzero voxel. */
  label?: number;
  /** 'surface': foreground voxels with a 6-connected background neighbour (outside the volume counts as background). */
  region: 'surface' | 'all';
  /** Points as voxel indices (i, j, k) instead of millimetres. */
  voxelSpace?: boolean;
  /** Threads the library uses (the run's --threads); default every core this process may use. */
  threads?: number;
  /** A GPU ordinal: the points selected there by the CUDA library (maskToPointsAsync only), the same points. */
  device?: number;
}

export interface MaskPoints {
  /**
   * x, y, z interleaved, in increasing linear voxel index (i fastest): millimetres computed through the
   * affine in double (see voxelToPhysical, whose order of operations they share bit for bit), or voxel indices.
   */
  positions: Float64Array;
  count: number;
  /** Foreground voxels in the whole volume, surface or not. */
  foregroundVoxels: number;
  /** computeBounds(positions), when the library that made the points folded them already. */
  bounds?: Bounds;
}

const VOXEL_INDEX_AFFINE = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0);

/**
 * The centres of the mask's foreground voxels (or of its surface voxels), in millimetres or voxel indices: by
 * the CPU library on every core where it is loaded (XHD_NATIVE_READ=0 turns it off), else by maskToPointsInTs;
 * the same doubles in the same order either way.
 */
export function maskToPoints(volume: VoxelVolume, options: MaskOptions): MaskPoints {
  checkMaskOptions(options);
  const native = nativeReader();
  if (!native) return maskToPointsInTs(volume, options);
  return maskPointsOf(nativeMaskPoints(native, nativeRequest(volume, options)));
}

/** maskToPoints with the library's work on the thread pool, off the main thread: the same points, or the same error. */
export async function maskToPointsAsync(volume: VoxelVolume, options: MaskOptions): Promise<MaskPoints> {
  checkMaskOptions(options);
  if (options.device !== undefined && process.env.XHD_NATIVE_READ !== '0') {  // =0: the TypeScript pass, as below
    return maskPointsOf(await nativeMaskPointsAsync(loadBackend('cuda'), { ...nativeRequest(volume, options), device: options.device }));
  }
  const native = nativeReader();
  if (!native) return maskToPointsInTs(volume, options);
  return maskPointsOf(await nativeMaskPointsAsync(native, nativeRequest(volume, options)));
}

function nativeRequest(volume: VoxelVolume, options: MaskOptions): NativeMaskRequest {
  return {
    values: volume.values,
    dims: volume.dims,
    label: options.label,
    affine: options.voxelSpace ? VOXEL_INDEX_AFFINE : volume.affine,
    surface: options.region === 'surface',
    threads: readerThreads(options.threads),
  };
}

function maskPointsOf(points: NativeMaskPoints): MaskPoints {
  return { positions: points.positions, count: points.count, foregroundVoxels: points.foregroundVoxels, bounds: points.bounds };
}

function checkMaskOptions(options: MaskOptions): void {
  if (options.region !== 'surface' && options.region !== 'all') {
    throw new UsageError(`unknown mask region '${String(options.region)}' (expected surface or all)`);
  }
  if (options.label !== undefined && !Number.isFinite(options.label)) {
    throw new UsageError(`mask label must be a finite number, got ${options.label}`);
  }
}

/** maskToPoints in TypeScript alone: the reference the native libraries are tested against, bit for bit. */
export function maskToPointsInTs(volume: VoxelVolume, options: MaskOptions): MaskPoints {
  checkMaskOptions(options);
  const { mask, foreground } = foregroundMask(volume, options.label);
  const [nx, ny, nz] = volume.dims;
  const m = options.voxelSpace ? VOXEL_INDEX_AFFINE : volume.affine;
  const surfaceOnly = options.region === 'surface';
  const rowStride = nx, sliceStride = nx * ny;
  const positions = new Float64Array(3 * foreground);
  let index = 0, out = 0;
  for (let k = 0; k < nz; k++) {
    const kInside = k > 0 && k < nz - 1;
    for (let j = 0; j < ny; j++) {
      const rowInside = kInside && j > 0 && j < ny - 1;
      // The affine's i-independent linear part, once per row; the translation is added last (see voxelToPhysical).
      const x0 = m[1] * j + m[2] * k, y0 = m[5] * j + m[6] * k, z0 = m[9] * j + m[10] * k;
      const tx = m[3], ty = m[7], tz = m[11];
      for (let i = 0; i < nx; i++, index++) {
        if (mask[index] === 0) continue;
        if (surfaceOnly && rowInside && i > 0 && i < nx - 1
          && (mask[index - 1] & mask[index + 1]
            & mask[index - rowStride] & mask[index + rowStride]
            & mask[index - sliceStride] & mask[index + sliceStride])) continue; // all six neighbours are foreground
        positions[out++] = (m[0] * i + x0) + tx;
        positions[out++] = (m[4] * i + y0) + ty;
        positions[out++] = (m[8] * i + z0) + tz;
      }
    }
  }
  const count = out / 3;
  return { positions: count === foreground ? positions : positions.slice(0, out), count, foregroundVoxels: foreground };
}

/** 1 for foreground, 0 for background, one byte per voxel so that neighbour tests are cheap. */
function foregroundMask(volume: VoxelVolume, label: number | undefined): { mask: Uint8Array; foreground: number } {
  const values = volume.values;
  const mask = new Uint8Array(values.length);
  let foreground = 0;
  if (label === undefined) {
    for (let n = 0; n < values.length; n++) if (values[n] !== 0) { mask[n] = 1; foreground++; }
  } else {
    for (let n = 0; n < values.length; n++) if (values[n] === label) { mask[n] = 1; foreground++; }
  }
  return { mask, foreground };
}

/**
 * Voxel centre (i, j, k) mapped through a row-major 3×4 affine, in double. The linear part is summed first
 * and the translation added last, so a large origin (e.g. survey coordinates) costs one rounding only;
 * maskToPoints computes every point with this same order of operations, so both give the same doubles.
 */
export function voxelToPhysical(affine: Float64Array, i: number, j: number, k: number): [number, number, number] {
  const a = affine;
  return [
    (a[0] * i + (a[1] * j + a[2] * k)) + a[3],
    (a[4] * i + (a[5] * j + a[6] * k)) + a[7],
    (a[8] * i + (a[9] * j + a[10] * k)) + a[11],
  ];
}

/**
 * Physical size of the volume: the largest distance between the mapped centres of its 8 corner voxels
 * (0 for a single voxel). For an affine image of a box that is the longest of the 4 main diagonals, which
 * with a sheared affine need not be the one from (0, 0, 0) to (nx-1, ny-1, nz-1).
 */
export function volumeDiagonal(volume: Pick<VoxelVolume, 'dims' | 'affine'>): number {
  const a = volume.affine;
  // Edge vectors of the parallelepiped of corner centres: the affine's columns times (n - 1).
  const edges = [0, 1, 2].map((c) => {
    const n = volume.dims[c] - 1;
    return [a[c] * n, a[4 + c] * n, a[8 + c] * n];
  });
  let longest = 0;
  for (const [sj, sk] of [[1, 1], [1, -1], [-1, 1], [-1, -1]]) {
    const d = [0, 1, 2].map((r) => edges[0][r] + sj * edges[1][r] + sk * edges[2][r]);
    longest = Math.max(longest, Math.hypot(d[0], d[1], d[2]));
  }
  return longest;
}

/** Smallest tolerance for two affines to count as equal: float32 headers carry about 1e-5 mm of noise. */
const SAME_SPACE_MM = 1e-4;
/** Relative difference beyond which voxel sizes are reported as different rather than as float32 noise. */
const SAME_SPACING = 1e-5;

/**
 * null when the two volumes occupy the same physical space (same grid, and no voxel centre moves by more
 * than 1e-4 mm, or a millionth of the volume's diagonal for large volumes), else a short phrase naming the
 * difference, e.g. "grid 240×240×155 against 256×256×160".
 */
export function spaceDifference(a: Pick<VoxelVolume, 'dims' | 'affine'>, b: Pick<VoxelVolume, 'dims' | 'affine'>): string | null {
  const sameGrid = a.dims.every((n, axis) => n === b.dims[axis]);
  if (sameGrid && largestCornerShift(a, b) <= Math.max(SAME_SPACE_MM, 1e-6 * volumeDiagonal(a))) return null;
  const differences: string[] = [];
  if (!sameGrid) differences.push(`grid ${a.dims.join('×')} against ${b.dims.join('×')}`);
  const spacing = spacingDifference(a.affine, b.affine);
  if (spacing) differences.push(spacing);
  if (differences.length === 0) {
    differences.push(`affines differ by up to ${formatNumber(largestCornerShift(a, b))} mm (origin or orientation)`);
  }
  return differences.join(', ');
}

function spacingDifference(a: Float64Array, b: Float64Array): string | undefined {
  const spacingA = columnLengths(a), spacingB = columnLengths(b);
  if (spacingA.every((s, axis) => Math.abs(s - spacingB[axis]) <= SAME_SPACING * Math.max(s, spacingB[axis]))) return undefined;
  // Four digits unless the difference is smaller than that shows.
  for (let digits = 4; ; digits += 2) {
    const textA = formatSpacing(spacingA, digits), textB = formatSpacing(spacingB, digits);
    if (textA !== textB || digits >= 16) return `spacing ${textA} against ${textB}`;
  }
}

/** How far a corner voxel's centre lies in one volume from where it lies in the other (same dims). */
function largestCornerShift(a: Pick<VoxelVolume, 'dims' | 'affine'>, b: Pick<VoxelVolume, 'dims' | 'affine'>): number {
  const [nx, ny, nz] = a.dims;
  let largest = 0;
  for (const i of [0, nx - 1]) for (const j of [0, ny - 1]) for (const k of [0, nz - 1]) {
    const p = voxelToPhysical(a.affine, i, j, k), q = voxelToPhysical(b.affine, i, j, k);
    largest = Math.max(largest, Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
  }
  return largest;
}

function columnLengths(affine: Float64Array): number[] {
  return [0, 1, 2].map((c) => Math.hypot(affine[c], affine[4 + c], affine[8 + c]));
}

function formatSpacing(lengths: number[], digits: number): string {
  return `${lengths.map((s) => formatNumber(s, digits)).join('×')} mm`;
}

/** Few significant digits, so float32 noise such as 2.1999990940093994 reads as 2.2. */
function formatNumber(value: number, digits = 4): string {
  return String(Number(value.toPrecision(digits)));
}
