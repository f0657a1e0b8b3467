// Assertions and scenes shared by the mesh-distance tests: one pair equal to another to the bit, and meshes
// placed at survey coordinates as doubles, with near-ties that float32 copies cannot tell apart.
import assert from 'node:assert/strict';

import type { DistanceMesh, DistancePair, Pose } from '../src/ops/mesh-distance.js';

export function assertSamePair(got: DistancePair | null, want: DistancePair | null, label: string): void {
  assert.ok(got && want, `${label}: both computed`);
  assert.equal(got.distance, want.distance, `${label}: distance`);
  assert.equal(got.triangleA, want.triangleA, `${label}: triangle of A`);
  assert.equal(got.triangleB, want.triangleB, `${label}: triangle of B`);
  assert.deepEqual(got.pointA, want.pointA, `${label}: point on A`);
  assert.deepEqual(got.pointB, want.pointB, `${label}: point on B`);
  assert.equal(got.intersecting, want.intersecting, `${label}: intersecting`);
}

/** Survey coordinates: x ≈ 500 km east, y ≈ 4,200 km north, z = 100 m. */
export const SURVEY: [number, number, number] = [5e5, 4.2e6, 100];

/** The mesh's vertices as doubles moved by d (rounded where the sum needs it). */
export function shiftedBy(mesh: DistanceMesh, d: readonly number[]): { positions: Float64Array; triangles: Uint32Array } {
  return { positions: Float64Array.from(mesh.positions, (v, i) => v + d[i % 3]), triangles: mesh.triangles };
}

/**
 * The mesh's vertices as doubles on a grid of 2^-30 (a double's step at y ≈ 4.2e6, the coarsest of the
 * survey coordinates), so shifting it there is exact: the shifted mesh is the same shape to the bit. Float32
 * holds only 24 bits: near the origin such vertices are not floats.
 */
export function onDyadicGrid(mesh: DistanceMesh): { positions: Float64Array; triangles: Uint32Array } {
  const step = 2 ** -30;
  return { positions: Float64Array.from(mesh.positions, (v) => Math.round(v / step) * step), triangles: mesh.triangles };
}

/** B's vertices posed as the library poses a double B: ((m0 x + m1 y) + m2 z) + t per row, in double. */
export function preposed64(mesh: DistanceMesh, m: Pose): { positions: Float64Array; triangles: Uint32Array } {
  const p = mesh.positions, out = new Float64Array(p.length);
  for (let v = 0; v < p.length; v += 3)
    for (let r = 0; r < 3; r++) out[v + r] = ((m[4 * r] * p[v] + m[4 * r + 1] * p[v + 1]) + m[4 * r + 2] * p[v + 2]) + m[4 * r + 3];
  return { positions: out, triangles: mesh.triangles };
}

/** A rotation by deg about the z axis through `centre`, then a move by t: [R | centre - R centre + t]. */
export function turnAbout(centre: readonly number[], deg: number, t: readonly number[] = [0, 0, 0]): Pose {
  const c = Math.cos((deg * Math.PI) / 180), s = Math.sin((deg * Math.PI) / 180);
  const r = [c, -s, 0, s, c, 0, 0, 0, 1];
  const pose = new Float64Array(12);
  for (let row = 0; row < 3; row++) {
    for (let k = 0; k < 3; k++) pose[4 * row + k] = r[3 * row + k];
    pose[4 * row + 3] = centre[row] - (r[3 * row] * centre[0] + r[3 * row + 1] * centre[1] + r[3 * row + 2] * centre[2]) + t[row];
  }
  return pose;
}

/**
 * Two parallel square grids of n×n cells of side 0.25 (two triangles each, unshared vertices), 1 apart along
 * `axis`, centred on `at`: A at -0.5 and B at +0.5 along the axis. Every facing pair of triangles is exactly 1
 * apart. Two of B's triangles are lifted away from A by lift (1e-8 m, far below the float32 step of a copy
 * about the scene's centre, 6e-8 m there, and ten times a double's step at 4.2e6):
 *  - triangle 0 (over A's triangle 0): it ties with its neighbours in float32, so float32 picks it for the
 *    minimum with the smallest indices; the truth does not, it is 1 + lift away;
 *  - the last triangle, at B's corner farthest from A's first corner: truly the farthest by a hair, while in
 *    float32 it ties with the triangle before it, which float32 then picks for the maximum.
 */
export function liftedGrids(n: number, axis: 0 | 1 | 2, at: readonly number[], lift = 1e-8) {
  const h = 0.25, half = (n * h) / 2;
  const place = (u: number, v: number, w: number) => {
    const p = [0, 0, 0];
    p[axis] = u;
    p[(axis + 1) % 3] = v;
    p[(axis + 2) % 3] = w;
    return p.map((x, k) => at[k] + x);
  };
  const grid = (u: number, lifted: (t: number) => boolean) => {
    const positions: number[] = [];
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        const [v0, v1, w0, w1] = [i * h - half, (i + 1) * h - half, j * h - half, (j + 1) * h - half];
        const cells = [[[v0, w0], [v1, w0], [v1, w1]], [[v0, w0], [v1, w1], [v0, w1]]];
        for (const corners of cells) {
          const t = positions.length / 9;
          for (const [v, w] of corners) positions.push(...place(u + (lifted(t) ? lift : 0), v, w));
        }
      }
    return { positions: Float64Array.from(positions), triangles: Uint32Array.from({ length: positions.length / 3 }, (_, k) => k) };
  };
  const last = 2 * n * n - 1;
  return { a: grid(-0.5, () => false), b: grid(0.5, (t) => t === 0 || t === last), trapMin: 0, trapMax: last };
}

/**
 * Near-ties everywhere: A is n points (one-point triangles) at radius r·(1 + e) about `centre`, each e random
 * in [0, 2^-21) (8 float32 steps of r: a float32 copy of A about its centre cannot order them), B the one
 * point `centre`. The minimum is A's point with the smallest e, the maximum the one with the largest.
 */
export function nearTieShell(n: number, r: number, centre: readonly number[], random: () => number) {
  const positions = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const z = 2 * random() - 1, phi = 2 * Math.PI * random(), s = Math.sqrt(1 - z * z);
    const radius = r * (1 + random() * 2 ** -21);
    const d = [s * Math.cos(phi), s * Math.sin(phi), z];
    for (let k = 0; k < 3; k++) positions[3 * i + k] = centre[k] + radius * d[k];
  }
  const point = { positions: Float64Array.from(centre), triangles: Uint32Array.of(0, 0, 0) };
  return { a: { positions, triangles: Uint32Array.from({ length: 3 * n }, (_, k) => Math.floor(k / 3)) }, b: point };
}
