// The slice view of a mask compare report: two masks on one grid, each surface voxel at its (i, j, k) with its
// distance to the other mask, for the page to draw three orthogonal slices (both contours, coloured by
// distance). The points a mask compare measures are its surface voxels' centres through the grid's affine, so
// each voxel is found again by inverting the affine and rounding: the centres are exact images of integers,
// far nearer to them than the half voxel rounding allows.
import type { PerPointDistances, VoxelGrid } from '../../jobs/per-point.js';
import { packPlanes, quantizeDistances } from './pack-points.js';
import type { SliceData } from './page-data.js';

/** The affine's inverse linear part (3x3, row-major), or null when it is singular. */
function inverseLinear(a: Float64Array): number[] | null {
  const [m00, m01, m02, m10, m11, m12, m20, m21, m22] = [a[0], a[1], a[2], a[4], a[5], a[6], a[8], a[9], a[10]];
  const c00 = m11 * m22 - m12 * m21, c01 = m02 * m21 - m01 * m22, c02 = m01 * m12 - m02 * m11;
  const det = m00 * c00 + m10 * c01 + m20 * c02;
  if (!(Math.abs(det) > 0)) return null;
  return [c00, c01, c02, m12 * m20 - m10 * m22, m00 * m22 - m02 * m20, m02 * m10 - m00 * m12,
    m10 * m21 - m11 * m20, m01 * m20 - m00 * m21, m00 * m11 - m01 * m10].map((v) => v / det);
}

/** Each point's voxel as a linear index (i + nx·(j + ny·k)), in the points' order; null if one is off the grid. */
export function voxelIndices(points: ArrayLike<number>, grid: VoxelGrid): Uint32Array | null {
  const inv = inverseLinear(grid.affine);
  if (!inv) return null;
  const [nx, ny, nz] = grid.dims;
  const t = [grid.affine[3], grid.affine[7], grid.affine[11]];
  const n = points.length / 3;
  const out = new Uint32Array(n);
  for (let p = 0; p < n; p++) {
    const d = [points[3 * p] - t[0], points[3 * p + 1] - t[1], points[3 * p + 2] - t[2]];
    const i = Math.round(inv[0] * d[0] + inv[1] * d[1] + inv[2] * d[2]);
    const j = Math.round(inv[3] * d[0] + inv[4] * d[1] + inv[5] * d[2]);
    const k = Math.round(inv[6] * d[0] + inv[7] * d[1] + inv[8] * d[2]);
    if (i < 0 || j < 0 || k < 0 || i >= nx || j >= ny || k >= nz) return null;
    out[p] = i + nx * (j + ny * k);
  }
  return out;
}

const sameGrid = (a: VoxelGrid, b: VoxelGrid) => a.dims.every((d, k) => d === b.dims[k]) && a.affine.every((v, k) => v === b.affine[k]);

/**
 * The slice view's data, or null with the reason when there is none to draw: not two masks, masks on different
 * grids (the slices are of one grid), or no distances in both directions.
 */
export function maskSlices(per: PerPointDistances): { slices: SliceData | null; note?: string } {
  if (!per.grids) return { slices: null };
  if (!sameGrid(per.grids.a, per.grids.b)) return { slices: null, note: 'the masks lie on different grids: no slice view (its slices are of one grid)' };
  if (!per.ba) return { slices: null, note: 'a directed run: no slice view (it draws both masks\' distances)' };
  const grid = per.grids.a;
  const planes: Array<Uint16Array | Uint32Array> = [];
  const sets: SliceData['sets'] = [];
  let worst = { distance: -Infinity, voxel: 0 };
  for (const [name, direction] of [['A', per.ab], ['B', per.ba]] as const) {
    const voxels = voxelIndices(direction.points, grid);
    if (!voxels) return { slices: null, note: 'a mask point lies off its grid: no slice view' };
    const steps = new Uint32Array(voxels.length);
    for (let p = 0; p < voxels.length; p++) steps[p] = voxels[p] - (p > 0 ? voxels[p - 1] : 0);
    let scale = 0;
    direction.distances.forEach((d, p) => {
      if (d > scale) scale = d;
      if (d > worst.distance) worst = { distance: d, voxel: voxels[p] };
    });
    const all = Uint32Array.from({ length: voxels.length }, (_, p) => p);
    planes.push(steps, quantizeDistances(direction.distances, all, scale));
    sets.push({ name, count: voxels.length, distanceScale: scale });
  }
  const a = grid.affine;
  const spacing = [0, 1, 2].map((c) => Math.hypot(a[c], a[4 + c], a[8 + c])) as [number, number, number];
  const [nx, ny] = grid.dims;
  const start: [number, number, number] = [worst.voxel % nx, Math.floor(worst.voxel / nx) % ny, Math.floor(worst.voxel / (nx * ny))];
  return { slices: { dims: grid.dims, spacing, sets, packed: packPlanes(planes), start } };
}
