// Connected components of a binary voxel mask (6-, 18- or 26-connectivity: voxels sharing a face, a face or
// an edge, or any corner) by one scan with union-find over the neighbours already visited, and the binary
// dilation the BraTS lesion-wise evaluation applies before matching.

export const CONNECTIVITIES = [6, 18, 26] as const;
export type Connectivity = (typeof CONNECTIVITIES)[number];

/** The neighbour offsets visited before a voxel in scan order (i fastest), for this connectivity. */
function backwardOffsets(connectivity: Connectivity): [number, number, number][] {
  const offsets: [number, number, number][] = [];
  for (let dk = -1; dk <= 0; dk++) {
    for (let dj = -1; dj <= 1; dj++) {
      for (let di = -1; di <= 1; di++) {
        const earlier = dk < 0 || (dk === 0 && (dj < 0 || (dj === 0 && di < 0)));
        if (!earlier) continue;
        const order = Math.abs(di) + Math.abs(dj) + Math.abs(dk);
        if (order === 1 || (order === 2 && connectivity >= 18) || (order === 3 && connectivity === 26)) offsets.push([di, dj, dk]);
      }
    }
  }
  return offsets;
}

function find(parent: Int32Array, x: number): number {
  while (parent[x] !== x) {
    parent[x] = parent[parent[x]]; // path halving
    x = parent[x];
  }
  return x;
}

/**
 * Component number per voxel (0 outside the mask, 1… numbered in the order of each component's first voxel
 * in scan order) and the number of components.
 */
export function connectedComponents(mask: Uint8Array, dims: readonly [number, number, number], connectivity: Connectivity): { labels: Int32Array; count: number } {
  const [nx, ny, nz] = dims;
  const offsets = backwardOffsets(connectivity);
  const labels = new Int32Array(mask.length);
  let parent = new Int32Array(1024);
  let next = 1;
  let n = 0;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++, n++) {
        if (!mask[n]) continue;
        let root = 0;
        for (const [di, dj, dk] of offsets) {
          const a = i + di, b = j + dj, c = k + dk;
          if (a < 0 || b < 0 || c < 0 || a >= nx || b >= ny) continue;
          const m = labels[a + nx * (b + ny * c)];
          if (m === 0) continue;
          const r = find(parent, m);
          if (root === 0) root = r;
          else if (r !== root) {
            // Keep the smaller root, so that a component's number is that of its first voxel.
            if (r < root) { parent[root] = r; root = r; } else parent[r] = root;
          }
        }
        if (root === 0) {
          if (next === parent.length) {
            const grown = new Int32Array(parent.length * 2);
            grown.set(parent);
            parent = grown;
          }
          parent[next] = next;
          root = next++;
        }
        labels[n] = root;
      }
    }
  }
  // Roots numbered 1… in order of first appearance; every provisional label mapped to its root's number.
  const number = new Int32Array(next);
  let count = 0;
  for (let p = 1; p < next; p++) {
    const r = find(parent, p);
    if (r === p) number[p] = ++count;
  }
  for (let p = 1; p < next; p++) number[p] = number[find(parent, p)];
  for (let v = 0; v < labels.length; v++) if (labels[v] !== 0) labels[v] = number[labels[v]];
  return { labels, count };
}

/**
 * Binary dilation by the 3×3×3 structure of 18-connectivity (a voxel and its face and edge neighbours),
 * `iterations` times, outside the volume counting as background: scipy.ndimage.binary_dilation with
 * generate_binary_structure(3, 2), as the BraTS 2023 lesion-wise evaluation calls it.
 */
export function dilate18(mask: Uint8Array, dims: readonly [number, number, number], iterations: number): Uint8Array {
  const [nx, ny, nz] = dims;
  const offsets: [number, number, number][] = [];
  for (let dk = -1; dk <= 1; dk++) for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) {
    const order = Math.abs(di) + Math.abs(dj) + Math.abs(dk);
    if (order >= 1 && order <= 2) offsets.push([di, dj, dk]);
  }
  let current = mask;
  for (let t = 0; t < iterations; t++) {
    const grown = Uint8Array.from(current);
    let n = 0;
    for (let k = 0; k < nz; k++) {
      for (let j = 0; j < ny; j++) {
        for (let i = 0; i < nx; i++, n++) {
          if (!current[n]) continue;
          for (const [di, dj, dk] of offsets) {
            const a = i + di, b = j + dj, c = k + dk;
            if (a < 0 || b < 0 || c < 0 || a >= nx || b >= ny || c >= nz) continue;
            grown[a + nx * (b + ny * c)] = 1;
          }
        }
      }
    }
    current = grown;
  }
  return current;
}
