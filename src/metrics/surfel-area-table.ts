// The area of the surface element ("surfel") that marching cubes puts in a 2×2×2 block of voxels, for each
// of the 256 ways the block's eight voxels can be inside or outside a mask: DeepMind's surface-distance
// definition (Nikolov et al. 2021, github.com/google-deepmind/surface-distance, compute_surface_distances),
// in which every surface point is weighted by that area. The table here is built from the definition, not
// copied: the surface crosses every block edge whose two voxels differ at its midpoint; on each block face
// those crossings are joined into segments (a face with two like voxels on a diagonal keeps the minority's
// apart: the inside voxels when at most four are inside, else the outside ones, the complement symmetry of
// the classic marching-cubes cases); the segments close into loops, and each loop is cut into a fan of
// triangles from its crossing on the lowest-numbered edge. Planar loops (every block with one, two or four
// coplanar inside voxels, all of a box's surface) have one area however they are cut; on non-planar loops
// marching-cubes tables differ in the cut, and so does DeepMind's (README, "Surface elements"). A triangle's area vector (half the cross product of two edges,
// in voxel units) is kept, so that any voxel spacing or affine gives the areas in mm² through its cofactor
// matrix, as DeepMind scales its normals by the spacing.

/** Corner b of the block is voxel (b & 1, b >> 1 & 1, b >> 2 & 1) relative to the block's lowest voxel. */
export type BlockCode = number;

type Vec3 = [number, number, number];

const corner = (b: number): Vec3 => [b & 1, (b >> 1) & 1, (b >> 2) & 1];

/** An edge's crossing, keyed by its two corners (low corner · 8 + high corner). */
const edgeKey = (p: number, q: number) => (p < q ? p * 8 + q : q * 8 + p);
const midpoint = (key: number): Vec3 => {
  const p = corner(Math.floor(key / 8)), q = corner(key % 8);
  return [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2];
};

/** The six faces, each as its four corners in cyclic order around it. */
const FACES: number[][] = (() => {
  const faces: number[][] = [];
  for (let axis = 0; axis < 3; axis++) {
    const u = 1 << ((axis + 1) % 3), v = 1 << ((axis + 2) % 3);
    for (const side of [0, 1 << axis]) faces.push([side, side | u, side | u | v, side | v]);
  }
  return faces;
})();

/** The crossings on one face joined in pairs (on an ambiguous face the `separated` kind's corners are cut off one by one). */
function faceSegments(code: BlockCode, face: number[], separated: 0 | 1): [number, number][] {
  const inside = face.map((b) => (code >> b) & 1);
  const crossings: number[] = []; // edge k joins face[k] and face[k + 1]
  for (let k = 0; k < 4; k++) if (inside[k] !== inside[(k + 1) % 4]) crossings.push(k);
  const key = (k: number) => edgeKey(face[k], face[(k + 1) % 4]);
  if (crossings.length === 2) return [[key(crossings[0]), key(crossings[1])]];
  if (crossings.length === 4) {
    // Like corners on both diagonals: each corner of the separated kind is cut off by the segment joining its two edges.
    const segments: [number, number][] = [];
    for (let k = 0; k < 4; k++) if (inside[k] === separated) segments.push([key((k + 3) % 4), key(k)]);
    return segments;
  }
  return [];
}

/** The closed loops of crossings the block's surface consists of. */
function loops(code: BlockCode): number[][] {
  const partners = new Map<number, number[]>();
  let insideCount = 0;
  for (let b = 0; b < 8; b++) insideCount += (code >> b) & 1;
  const separated = insideCount <= 4 ? 1 : 0;
  for (const face of FACES) {
    for (const [p, q] of faceSegments(code, face, separated)) {
      partners.set(p, [...(partners.get(p) ?? []), q]);
      partners.set(q, [...(partners.get(q) ?? []), p]);
    }
  }
  const seen = new Set<number>();
  const result: number[][] = [];
  for (const start of [...partners.keys()].sort((x, y) => x - y)) {
    if (seen.has(start)) continue;
    const loop = [start];
    seen.add(start);
    let previous = start, current = partners.get(start)![0];
    while (current !== start) {
      loop.push(current);
      seen.add(current);
      const [a, b] = partners.get(current)!;
      const next = a === previous ? b : a;
      previous = current;
      current = next;
    }
    result.push(loop);
  }
  return result;
}

/** Every triangle's area vector (in voxel units) of the surface in a block with this code. */
export function blockAreaVectors(code: BlockCode): Vec3[] {
  const vectors: Vec3[] = [];
  for (const loop of loops(code)) {
    const o = midpoint(loop[0]);
    for (let n = 1; n + 1 < loop.length; n++) {
      const p = midpoint(loop[n]), q = midpoint(loop[n + 1]);
      const e = [p[0] - o[0], p[1] - o[1], p[2] - o[2]], f = [q[0] - o[0], q[1] - o[1], q[2] - o[2]];
      vectors.push([(e[1] * f[2] - e[2] * f[1]) / 2, (e[2] * f[0] - e[0] * f[2]) / 2, (e[0] * f[1] - e[1] * f[0]) / 2]);
    }
  }
  return vectors;
}

/**
 * The cofactor matrix of the affine's 3×3 part (row-major 3×4 input): it maps an area vector in voxel units
 * to the area vector in mm² (for a diagonal affine, the components scale by sy·sz, sx·sz, sx·sy).
 */
function cofactor(affine: ArrayLike<number>): number[] {
  const m = (r: number, c: number) => affine[4 * r + c];
  const cof = (r: number, c: number) => {
    const rows = [0, 1, 2].filter((x) => x !== r), cols = [0, 1, 2].filter((x) => x !== c);
    const minor = m(rows[0], cols[0]) * m(rows[1], cols[1]) - m(rows[0], cols[1]) * m(rows[1], cols[0]);
    return (r + c) % 2 === 0 ? minor : -minor;
  };
  return [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => cof(r, c)));
}

/** The surfel area (mm²) of each of the 256 block codes under this affine (row-major 3×4, voxel → mm). */
export function surfelAreaTable(affine: ArrayLike<number>): Float64Array {
  const c = cofactor(affine);
  const table = new Float64Array(256);
  for (let code = 1; code < 255; code++) {
    let area = 0;
    for (const [x, y, z] of blockAreaVectors(code)) {
      area += Math.hypot(c[0] * x + c[1] * y + c[2] * z, c[3] * x + c[4] * y + c[5] * z, c[6] * x + c[7] * y + c[8] * z);
    }
    table[code] = area;
  }
  return table;
}
