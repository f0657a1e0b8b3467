// The join benchmark's collections, rebuilt as 3DPipe's simulator builds its NV dataset from its two published
// shapes: vessels (32,146 faces) replicated on a grid and shifted apart so that no two boxes overlap; nuclei
// (296 faces) replicated and spread uniformly over the vessels' space. Plus a CAD-like set: an assembly of
// plates, blocks and bolts on a jittered grid, where neighbours touch, cross or lie a hair apart.
import { readGeometry } from '../../src/io/read.js';
import type { JoinObjects } from '../../src/ops/join.js';
import { rng } from '../../test/random-points.js';

export interface Shape {
  positions: Float64Array;
  triangles: Uint32Array;
  min: number[];
  max: number[];
}

export function readShape(path: string): Shape {
  const g = readGeometry(path);
  if (!g.triangles) throw new Error(`${path} has no faces`);
  return { positions: Float64Array.from(g.positions), triangles: g.triangles, min: [...g.bounds.min], max: [...g.bounds.max] };
}


/** Copies of shapes, each moved by its offset, as one collection (object i = copy i). */
function collection(copies: { shape: Shape; offset: number[]; scale?: number[] }[]): JoinObjects {
  const vertices = copies.reduce((n, c) => n + c.shape.positions.length / 3, 0);
  const triangles = copies.reduce((n, c) => n + c.shape.triangles.length / 3, 0);
  const positions = new Float64Array(3 * vertices);
  const tri = new Uint32Array(3 * triangles);
  const objectFaces = new BigUint64Array(copies.length + 1);
  let v = 0, t = 0;
  copies.forEach((c, i) => {
    const p = c.shape.positions;
    const s = c.scale ?? [1, 1, 1];
    for (let k = 0; k < p.length; k++) positions[3 * v + k] = p[k] * s[k % 3] + c.offset[k % 3];
    for (let k = 0; k < c.shape.triangles.length; k++) tri[3 * t + k] = c.shape.triangles[k] + v;
    v += p.length / 3;
    t += c.shape.triangles.length / 3;
    objectFaces[i + 1] = BigInt(t);
  });
  return { positions, triangles: tri, objectFaces };
}

/** Vessels on a grid of cells 5% larger than the vessel's box (no two boxes overlap); returns the space they fill. */
export function vessels(vessel: Shape, count: number): { objects: JoinObjects; min: number[]; max: number[] } {
  const side = Math.ceil(Math.cbrt(count));
  const step = vessel.max.map((hi, k) => (hi - vessel.min[k]) * 1.05);
  const copies = [];
  for (let i = 0; i < count; i++) {
    const cell = [i % side, Math.floor(i / side) % side, Math.floor(i / (side * side))];
    copies.push({ shape: vessel, offset: cell.map((c, k) => c * step[k]) });
  }
  const used = [Math.min(count, side), Math.min(Math.ceil(count / side), side), Math.ceil(count / (side * side))];
  return { objects: collection(copies), min: vessel.min, max: vessel.min.map((lo, k) => lo + used[k] * step[k]) };
}

/** Nuclei spread uniformly over [min, max] (their boxes' corners), seeded. */
export function nuclei(nucleus: Shape, count: number, min: number[], max: number[], seed: number): JoinObjects {
  const random = rng(seed); // mulberry32: the same collections on every machine
  const size = nucleus.max.map((hi, k) => hi - nucleus.min[k]);
  const copies = [];
  for (let i = 0; i < count; i++) {
    copies.push({ shape: nucleus, offset: [0, 1, 2].map((k) => min[k] - nucleus.min[k] + random() * Math.max(0, max[k] - min[k] - size[k])) });
  }
  return collection(copies);
}

/** A box [0,1]^3 split into 12 triangles, subdivided `n` times along each face (2 n^2 triangles a face). */
function box(n: number): Shape {
  const positions: number[] = [];
  const triangles: number[] = [];
  const faces = [[0, 1, 2], [1, 2, 0], [2, 0, 1]];
  for (const [u, w, axis] of faces) {
    for (const level of [0, 1]) {
      const base = positions.length / 3;
      for (let i = 0; i <= n; i++) {
        for (let j = 0; j <= n; j++) {
          const p = [0, 0, 0];
          p[u] = i / n;
          p[w] = j / n;
          p[axis] = level;
          positions.push(...p);
        }
      }
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const a = base + i * (n + 1) + j, b = a + 1, c = a + n + 1, d = c + 1;
          triangles.push(a, b, d, a, d, c);
        }
      }
    }
  }
  return { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles), min: [0, 0, 0], max: [1, 1, 1] };
}

/** The CAD-like assembly: count parts on a jittered grid of pitch 10; plates, blocks and bolts of random size. */
export function cadParts(count: number, seed: number): JoinObjects {
  const random = rng(seed); // mulberry32: the same collections on every machine
  const side = Math.ceil(Math.cbrt(count));
  const shapes = [box(8), box(4), box(2)];
  const copies = [];
  for (let i = 0; i < count; i++) {
    const cell = [i % side, Math.floor(i / side) % side, Math.floor(i / (side * side))];
    const kind = i % 3;
    // Plates are wide and thin, blocks chunky, bolts long and narrow: reaching 4.5 to 6 from the cell's centre,
    // so about half the neighbours (pitch 10) touch or cross.
    const scale = kind === 0 ? [9 + 3 * random(), 9 + 3 * random(), 1] : kind === 1 ? [5 + 4 * random(), 5 + 4 * random(), 5 + 4 * random()] : [1, 1, 10 + 3 * random()];
    const offset = cell.map((c, k) => 10 * c - scale[k] / 2 + (random() - 0.5));
    copies.push({ shape: shapes[kind], offset, scale });
  }
  return collection(copies);
}

export function objectCount(c: JoinObjects): number {
  return c.objectFaces.length - 1;
}

export function triangleCount(c: JoinObjects): number {
  return c.triangles.length / 3;
}
