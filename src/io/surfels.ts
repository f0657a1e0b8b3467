// Every asked label's surface elements ("surfels", DeepMind's surface-distance) in one pass over a slot
// volume: each 2×2×2 block of voxels (every block that touches the volume, voxels outside it counting as
// background) whose voxels are not all in one label, or all outside it, holds a surfel of that label at the
// block's centre, the corner the eight voxels share (voxel (i, j, k) − ½ on each axis), weighted by the
// area marching cubes gives that block's pattern (metrics/surfel-area-table.ts).
import { surfelAreaTable } from '../metrics/surfel-area-table.js';

export interface Surfels {
  /** Block centres, x, y, z interleaved, in millimetres through the affine (or voxel indices). */
  positions: Float64Array;
  /** Each surfel's area in mm² (voxel units with --voxel-space). */
  areas: Float64Array;
}

const VOXEL_INDEX_AFFINE = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];

/**
 * Per slot (index 0 is slot 1) its surfels, blocks in increasing order of their highest voxel (i fastest).
 * Block (i, j, k), for i in 0…nx and so on, holds voxels i−1…i, j−1…j, k−1…k; its pattern's bit
 * b = x + 2y + 4z is voxel (i−1+x, j−1+y, k−1+z).
 */
export function slotSurfels(slots: Uint16Array, dims: readonly [number, number, number], slotCount: number,
                            affine: ArrayLike<number>, voxelSpace = false): Surfels[] {
  const m = voxelSpace ? VOXEL_INDEX_AFFINE : affine;
  const areas = surfelAreaTable(m);
  const [nx, ny, nz] = dims;
  const slice = nx * ny;
  const at = (i: number, j: number, k: number) => (i < 0 || j < 0 || k < 0 || i >= nx || j >= ny || k >= nz ? 0 : slots[i + nx * j + slice * k]);
  const counts = new Int32Array(slotCount + 1);
  const corner = new Uint16Array(8);
  let out: Surfels[] = [];
  let filled = new Int32Array(0);
  for (let pass = 0; pass < 2; pass++) {
    if (pass === 1) {
      out = Array.from({ length: slotCount }, (_, s) => ({ positions: new Float64Array(3 * counts[s + 1]), areas: new Float64Array(counts[s + 1]) }));
      filled = new Int32Array(slotCount + 1);
    }
    for (let k = 0; k <= nz; k++) {
      for (let j = 0; j <= ny; j++) {
        const inside = k > 0 && j > 0 && k < nz && j < ny;
        for (let i = 0; i <= nx; i++) {
          if (inside && i > 0 && i < nx) {
            // The common case, away from the volume's faces: read the eight voxels directly.
            const n = i + nx * j + slice * k;
            corner[0] = slots[n - 1 - nx - slice]; corner[1] = slots[n - nx - slice];
            corner[2] = slots[n - 1 - slice]; corner[3] = slots[n - slice];
            corner[4] = slots[n - 1 - nx]; corner[5] = slots[n - nx];
            corner[6] = slots[n - 1]; corner[7] = slots[n];
          } else {
            for (let b = 0; b < 8; b++) corner[b] = at(i - 1 + (b & 1), j - 1 + ((b >> 1) & 1), k - 1 + ((b >> 2) & 1));
          }
          const first = corner[0];
          if (first === corner[1] && first === corner[2] && first === corner[3] && first === corner[4]
            && first === corner[5] && first === corner[6] && first === corner[7]) continue; // inside one label, or none
          for (let b = 0; b < 8; b++) {
            const s = corner[b];
            if (s === 0) continue;
            let seenBefore = false;
            for (let c = 0; c < b; c++) if (corner[c] === s) { seenBefore = true; break; }
            if (seenBefore) continue; // each slot once per block
            if (pass === 0) {
              counts[s]++;
              continue;
            }
            let code = 0;
            for (let c = b; c < 8; c++) if (corner[c] === s) code |= 1 << c;
            const target = out[s - 1], p = filled[s]++;
            const x = i - 0.5, y = j - 0.5, z = k - 0.5;
            target.positions[3 * p] = (m[0] * x + (m[1] * y + m[2] * z)) + m[3];
            target.positions[3 * p + 1] = (m[4] * x + (m[5] * y + m[6] * z)) + m[7];
            target.positions[3 * p + 2] = (m[8] * x + (m[9] * y + m[10] * z)) + m[11];
            target.areas[p] = areas[code];
          }
        }
      }
    }
  }
  return out;
}
