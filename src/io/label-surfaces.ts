// Every asked label's surface voxels in one pass over a slot volume (label-slots.ts): a voxel of slot s is on
// its label's surface when one of its six face neighbours is not in slot s or lies outside the volume, the
// same rule as voxel-mask.ts applies to one label, so each label's points are those a single-label run gives.

export interface SlotSurfaces {
  /** Per slot (index 0 is slot 1): its surface voxels' linear indices (i fastest), ascending. */
  surface: Int32Array[];
  /** Per slot: its voxels in the volume, surface or not. */
  voxels: Float64Array;
}

function isSurface(slots: Uint16Array, n: number, s: number, i: number, j: number, k: number, dims: readonly number[]): boolean {
  const [nx, ny, nz] = dims;
  if (i === 0 || j === 0 || k === 0 || i === nx - 1 || j === ny - 1 || k === nz - 1) return true;
  const row = nx, slice = nx * ny;
  return slots[n - 1] !== s || slots[n + 1] !== s || slots[n - row] !== s || slots[n + row] !== s
    || slots[n - slice] !== s || slots[n + slice] !== s;
}

/** One counting pass, one filling pass: each slot's surface voxels, and its voxel count. */
export function slotSurfaces(slots: Uint16Array, dims: readonly [number, number, number], slotCount: number, region: 'surface' | 'all' = 'surface'): SlotSurfaces {
  const [nx, ny, nz] = dims;
  const counts = new Int32Array(slotCount + 1);
  const voxels = new Float64Array(slotCount);
  const all = region === 'all';
  for (let pass = 0; pass < 2; pass++) {
    const filled = pass === 1 ? new Int32Array(slotCount + 1) : null;
    const surface = pass === 1 ? Array.from({ length: slotCount }, (_, s) => new Int32Array(counts[s + 1])) : [];
    let n = 0;
    for (let k = 0; k < nz; k++) {
      for (let j = 0; j < ny; j++) {
        for (let i = 0; i < nx; i++, n++) {
          const s = slots[n];
          if (s === 0) continue;
          if (pass === 0) voxels[s - 1]++;
          if (!all && !isSurface(slots, n, s, i, j, k, dims)) continue;
          if (pass === 0) counts[s]++;
          else surface[s - 1][filled![s]++] = n;
        }
      }
    }
    if (pass === 1) return { surface, voxels };
  }
  throw new Error('unreachable');
}

/**
 * The voxel centres of linear indices through a row-major 3×4 affine, in double, with the operations in
 * voxelToPhysical's (and maskToPoints') order so that the same voxel gives the same doubles.
 */
export function voxelCentres(indices: Int32Array, dims: readonly [number, number, number], m: ArrayLike<number>): Float64Array {
  const [nx, ny] = dims;
  const out = new Float64Array(3 * indices.length);
  for (let p = 0; p < indices.length; p++) {
    const n = indices[p];
    const i = n % nx, j = Math.floor(n / nx) % ny, k = Math.floor(n / (nx * ny));
    out[3 * p] = (m[0] * i + (m[1] * j + m[2] * k)) + m[3];
    out[3 * p + 1] = (m[4] * i + (m[5] * j + m[6] * k)) + m[7];
    out[3 * p + 2] = (m[8] * i + (m[9] * j + m[10] * k)) + m[11];
  }
  return out;
}
