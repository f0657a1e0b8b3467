// Every asked label's surface voxels in one pass over a slot volume (label-slots.ts): a voxel of slot s is on
// its label's surface when one of its six face neighbours is not in slot s or lies outside the volume, the
// same rule as voxel-mask.ts applies to one label, so each label's points are those a single-label run gives.

export interface SlotSurfaces {
  /** Per slot (index 0 is slot 1): its surface voxels' linear indices (i fastest), ascending. */
  surface: Int32Array[];
  /** Per slot: its voxels in the volume, surface or not. */
  voxels: Float64Array;
}

/**
 * One pass over the volume collects every surface voxel (in scan order) with its slot; a counting sort by slot
 * then gives each slot its voxels, still ascending. The pass reads six neighbours only for foreground voxels
 * away from the volume's faces (those on a face are surface voxels by the rule).
 */
export function slotSurfaces(slots: Uint16Array, dims: readonly [number, number, number], slotCount: number, region: 'surface' | 'all' = 'surface'): SlotSurfaces {
  const [nx, ny, nz] = dims;
  const row = nx, slice = nx * ny;
  const voxels = new Float64Array(slotCount);
  const all = region === 'all';
  let found = new Int32Array(1 << 16), count = 0;
  let n = 0;
  for (let k = 0; k < nz; k++) {
    const kInside = k > 0 && k < nz - 1;
    for (let j = 0; j < ny; j++) {
      const rowInside = kInside && j > 0 && j < ny - 1;
      for (let i = 0; i < nx; i++, n++) {
        const s = slots[n];
        if (s === 0) continue;
        voxels[s - 1]++;
        if (!all && rowInside && i > 0 && i < nx - 1 && slots[n - 1] === s && slots[n + 1] === s && slots[n - row] === s
          && slots[n + row] === s && slots[n - slice] === s && slots[n + slice] === s) continue; // all six neighbours in the label
        if (count === found.length) {
          const grown = new Int32Array(found.length * 2);
          grown.set(found);
          found = grown;
        }
        found[count++] = n;
      }
    }
  }
  const starts = new Int32Array(slotCount + 1);
  for (let p = 0; p < count; p++) starts[slots[found[p]]]++;
  const surface = Array.from({ length: slotCount }, (_, s) => new Int32Array(starts[s + 1]));
  const filled = new Int32Array(slotCount + 1);
  for (let p = 0; p < count; p++) {
    const v = found[p], s = slots[v];
    surface[s - 1][filled[s]++] = v;
  }
  return { surface, voxels };
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
