// Meshes the surface and distance tests build: spheres with a known tessellation error, a torus, a cube, random triangle soups
// with every kind of degenerate triangle, and writers for OFF files.
import { writeFileSync } from 'node:fs';

import type { TriangleMesh } from '../src/ops/surface-distance.js';

/** A UV sphere of radius r centred at the origin: vertices on the sphere, so the mesh lies inside it. */
export function uvSphere(r: number, rings: number, segments: number): TriangleMesh {
  const positions: number[] = [0, 0, r];
  for (let i = 1; i < rings; i++) {
    const theta = (Math.PI * i) / rings;
    for (let j = 0; j < segments; j++) {
      const phi = (2 * Math.PI * j) / segments;
      positions.push(r * Math.sin(theta) * Math.cos(phi), r * Math.sin(theta) * Math.sin(phi), r * Math.cos(theta));
    }
  }
  positions.push(0, 0, -r);
  const south = positions.length / 3 - 1;
  const at = (i: number, j: number) => 1 + (i - 1) * segments + (j % segments);
  const triangles: number[] = [];
  for (let j = 0; j < segments; j++) {
    triangles.push(0, at(1, j), at(1, j + 1));
    triangles.push(south, at(rings - 1, j + 1), at(rings - 1, j));
    for (let i = 1; i < rings - 1; i++) {
      triangles.push(at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1));
    }
  }
  return { positions: new Float32Array(positions), triangles: new Uint32Array(triangles) };
}

/** A torus about the z axis: ring radius R, tube radius r, `along` cells around the ring, `around` around the tube. */
export function torus(R: number, r: number, along: number, around: number): TriangleMesh {
  const positions: number[] = [];
  for (let i = 0; i < along; i++) {
    const phi = (2 * Math.PI * i) / along;
    for (let j = 0; j < around; j++) {
      const theta = (2 * Math.PI * j) / around, ring = R + r * Math.cos(theta);
      positions.push(ring * Math.cos(phi), ring * Math.sin(phi), r * Math.sin(theta));
    }
  }
  const at = (i: number, j: number) => (i % along) * around + (j % around);
  const triangles: number[] = [];
  for (let i = 0; i < along; i++)
    for (let j = 0; j < around; j++) triangles.push(at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1));
  return { positions: new Float32Array(positions), triangles: new Uint32Array(triangles) };
}

/**
 * How far inside its sphere a triangle of the mesh can dip: the largest sagitta r - sqrt(r² - R²) over the
 * triangles' circumradii R (each triangle's plane cuts the sphere in a circle through its corners).
 */
export function sphereSagitta(mesh: TriangleMesh, r: number): number {
  let worst = 0;
  const p = mesh.positions, t = mesh.triangles;
  for (let k = 0; k < t.length; k += 3) {
    const v = [0, 1, 2].map((c) => [p[3 * t[k + c]], p[3 * t[k + c] + 1], p[3 * t[k + c] + 2]]);
    const len = (u: number[], w: number[]) => Math.hypot(u[0] - w[0], u[1] - w[1], u[2] - w[2]);
    const a = len(v[1], v[2]), b = len(v[0], v[2]), c = len(v[0], v[1]);
    const s = (a + b + c) / 2;
    const area = Math.sqrt(Math.max(s * (s - a) * (s - b) * (s - c), 0));
    if (area === 0) continue;
    const R = (a * b * c) / (4 * area);
    worst = Math.max(worst, r - Math.sqrt(Math.max(r * r - R * R, 0)));
  }
  return worst;
}

/** The cube [-h, h]³ as 12 triangles. */
export function cube(h: number): TriangleMesh {
  const positions: number[] = [];
  for (let i = 0; i < 8; i++) positions.push(i & 1 ? h : -h, i & 2 ? h : -h, i & 4 ? h : -h);
  const quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
  const triangles = quads.flatMap(([a, b, c, d]) => [a, b, c, a, c, d]);
  return { positions: new Float32Array(positions), triangles: new Uint32Array(triangles) };
}

/** An n × n grid of squares, two triangles each, corner (i, j) placed at place(i, j). */
export function gridSheet(n: number, place: (i: number, j: number) => [number, number, number]): TriangleMesh {
  const positions: number[] = [], triangles: number[] = [];
  for (let i = 0; i <= n; i++) for (let j = 0; j <= n; j++) positions.push(...place(i, j));
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      const v = i * (n + 1) + j;
      triangles.push(v, v + 1, v + n + 1, v + 1, v + n + 2, v + n + 1);
    }
  return { positions: new Float32Array(positions), triangles: new Uint32Array(triangles) };
}

/**
 * Random triangles in the unit cube, with degenerate ones mixed in: repeated vertices, collinear
 * corners (zero area), needles and single points.
 */
export function triangleSoup(count: number, random: () => number): TriangleMesh {
  const positions: number[] = [];
  const triangles: number[] = [];
  const vertex = (x: number, y: number, z: number) => (positions.push(x, y, z), positions.length / 3 - 1);
  for (let k = 0; k < count; k++) {
    const a = [random(), random(), random()];
    const d = [random() - 0.5, random() - 0.5, random() - 0.5].map((x) => x * 0.2);
    const e = [random() - 0.5, random() - 0.5, random() - 0.5].map((x) => x * 0.2);
    const ia = vertex(a[0], a[1], a[2]);
    switch (k % 6) {
      case 0: // a single point
        triangles.push(ia, ia, ia);
        break;
      case 1: // a segment: one vertex repeated
        triangles.push(ia, vertex(a[0] + d[0], a[1] + d[1], a[2] + d[2]), ia);
        break;
      case 2: // collinear corners: zero area, three distinct vertices
        triangles.push(ia, vertex(a[0] + d[0], a[1] + d[1], a[2] + d[2]), vertex(a[0] + 2 * d[0], a[1] + 2 * d[1], a[2] + 2 * d[2]));
        break;
      case 3: // a needle: long and extremely thin
        triangles.push(ia, vertex(a[0] + d[0], a[1] + d[1], a[2] + d[2]), vertex(a[0] + d[0] + 1e-6 * e[0], a[1] + d[1], a[2] + d[2] + 1e-6));
        break;
      default:
        triangles.push(ia, vertex(a[0] + d[0], a[1] + d[1], a[2] + d[2]), vertex(a[0] + e[0], a[1] + e[1], a[2] + e[2]));
    }
  }
  return { positions: new Float32Array(positions), triangles: new Uint32Array(triangles) };
}

/** An OFF file of the mesh, every coordinate written so that it reads back as the same number. */
export function writeOff(path: string, mesh: { positions: Float32Array | Float64Array; triangles: Uint32Array }): void {
  const n = mesh.positions.length / 3, m = mesh.triangles.length / 3;
  const lines = [`OFF`, `${n} ${m} 0`];
  for (let i = 0; i < n; i++) lines.push(`${mesh.positions[3 * i]} ${mesh.positions[3 * i + 1]} ${mesh.positions[3 * i + 2]}`);
  for (let k = 0; k < m; k++) lines.push(`3 ${mesh.triangles[3 * k]} ${mesh.triangles[3 * k + 1]} ${mesh.triangles[3 * k + 2]}`);
  writeFileSync(path, lines.join('\n') + '\n');
}
