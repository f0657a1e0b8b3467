// Closed meshes for the penetration benchmark: boxes and polyhedral balls (an octahedron's faces split into four,
// `levels` times, every vertex pushed out to the sphere: convex), wound counterclockwise seen from outside.
import type { TriangleMesh } from '../../src/ops/surface-distance.js';

/** The box [lo, hi]: 8 vertices, 12 triangles. */
export function box(lo: number[], hi: number[]): TriangleMesh {
  const positions = new Float32Array(24);
  for (let i = 0; i < 8; i++) positions.set([i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]], 3 * i);
  const quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
  return { positions, triangles: Uint32Array.from(quads.flatMap(([a, b, c, d]) => [a, b, c, a, c, d])) };
}

/** A polyhedral ball about the origin: 8 · 4^levels triangles. */
export function ball(levels: number, radius: number): TriangleMesh {
  const unit: number[] = [1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1];
  let faces = [0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5];
  for (let level = 0; level < levels; level++) {
    const middle = new Map<number, number>();
    const mid = (a: number, b: number) => {
      const key = Math.min(a, b) * 2 ** 26 + Math.max(a, b);
      let at = middle.get(key);
      if (at === undefined) {
        const p = [0, 1, 2].map((k) => unit[3 * a + k] + unit[3 * b + k]), length = Math.hypot(p[0], p[1], p[2]);
        unit.push(p[0] / length, p[1] / length, p[2] / length);
        at = unit.length / 3 - 1;
        middle.set(key, at);
      }
      return at;
    };
    const next: number[] = [];
    for (let f = 0; f < faces.length; f += 3) {
      const [a, b, c] = [faces[f], faces[f + 1], faces[f + 2]], ab = mid(a, b), bc = mid(b, c), ca = mid(c, a);
      next.push(a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca);
    }
    faces = next;
  }
  return { positions: Float32Array.from(unit, (x) => radius * x), triangles: Uint32Array.from(faces) };
}
