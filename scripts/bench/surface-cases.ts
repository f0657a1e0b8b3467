// The mesh pairs of scripts/bench-surface: three pairs from ../shared/data/meshes and two synthetic sphere
// pairs. Each case gives its meshes to our library and the OFF files CGAL reads (generated meshes are
// written to a temporary folder; data files are read in place).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { readGeometry } from '../../src/io/read.js';
import { Random } from '../../src/sampling/random.js';
import type { TriangleMesh } from '../../src/ops/surface-distance.js';
import { uvSphere, writeOff } from '../../test/test-meshes.js';

export const SURFACE_CASES = ['elephant', 'fandisk', 'armadillo', 'spheres-360k', 'spheres-1.2m'] as const;
export type SurfaceCaseName = (typeof SURFACE_CASES)[number];

export interface SurfaceCase {
  name: SurfaceCaseName;
  a: TriangleMesh;
  b: TriangleMesh;
  fileA: string;
  fileB: string;
}

/** What each case is, for the report's notes. */
export const CASE_NOTES: Record<SurfaceCaseName, string> = {
  elephant: 'elephant.off against refined_elephant.off (the same shape, 16× the triangles)',
  fandisk: 'fandisk.off against fandisk_large.off: the files are in different frames (fandisk spans ±0.5; ' +
    'fandisk_large is about 5× larger, at x 0…4.8, y 12.6…17.8, z −2.7…0), so the surfaces are far apart and the HD is mostly that offset',
  armadillo: 'armadillo.off against a copy whose every vertex moved along its area-weighted normal by ' +
    'u · 0.1 % of the bounding-box diagonal, u uniform in [-1, 1] (xoshiro128** seeded with --seed)',
  'spheres-360k': 'two UV spheres of radius 1, 300 rings × 600 segments (358,800 triangles each); every ' +
    "coordinate of B moved by up to ±2e-4 (the hash perturbation of the earlier ad-hoc probe .device/surf.mjs)",
  'spheres-1.2m': 'UV sphere 600 rings × 1000 segments (1,198,000 triangles) against one of 640 × 940 ' +
    '(1,201,320 triangles) with the same ±2e-4 perturbation: two tessellations of one shape',
};

/** The ad-hoc probe's perturbation, kept so its numbers and these stay comparable. */
function hashPerturbed(mesh: TriangleMesh, amplitude: number): TriangleMesh {
  const positions = mesh.positions.slice();
  for (let i = 0; i < positions.length; i++) positions[i] += ((Math.sin(i * 12.9898) * 43758.5453) % 1) * amplitude;
  return { positions, triangles: mesh.triangles };
}

function bboxDiagonal(positions: ArrayLike<number>): number {
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i++) {
    min[i % 3] = Math.min(min[i % 3], positions[i]);
    max[i % 3] = Math.max(max[i % 3], positions[i]);
  }
  return Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]);
}

/** Every vertex moved along its area-weighted normal by a seeded uniform amount in [-fraction, fraction] × diagonal. */
function normalPerturbed(mesh: TriangleMesh, fraction: number, seed: number): TriangleMesh {
  const p = mesh.positions, t = mesh.triangles;
  const normals = new Float64Array(p.length);
  for (let k = 0; k < t.length; k += 3) {
    const a = 3 * t[k], b = 3 * t[k + 1], c = 3 * t[k + 2];
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    // The unnormalized cross product weighs each face's normal by its area.
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    for (const v of [a, b, c]) normals[v] += nx, normals[v + 1] += ny, normals[v + 2] += nz;
  }
  const step = fraction * bboxDiagonal(p);
  const random = new Random(seed);
  const positions = p.slice();
  for (let v = 0; v < positions.length; v += 3) {
    const length = Math.hypot(normals[v], normals[v + 1], normals[v + 2]);
    const offset = (2 * random.nextDouble() - 1) * step;
    if (length === 0) continue; // an unused vertex has no normal
    for (let j = 0; j < 3; j++) positions[v + j] += (offset * normals[v + j]) / length;
  }
  return { positions, triangles: t };
}

function readMesh(path: string): TriangleMesh {
  const g = readGeometry(path);
  if (!g.triangles || g.triangles.length === 0) throw new Error(`${path} has no faces`);
  // The benchmark meshes lie near the origin: float32 holds them as the measuring calls take them.
  return { positions: g.positions instanceof Float32Array ? g.positions : Float32Array.from(g.positions), triangles: g.triangles };
}

/** Builds a case, or says why it is skipped (its data folder or file is missing). */
export function makeSurfaceCase(name: SurfaceCaseName, dataDir: string, tmpDir: string, seed: number): SurfaceCase | { skipped: string } {
  const dataPair = (fileA: string, fileB: string): SurfaceCase | { skipped: string } => {
    const [pathA, pathB] = [join(dataDir, fileA), join(dataDir, fileB)];
    const missing = [pathA, pathB].find((path) => !existsSync(path));
    if (missing) return { skipped: `${missing} not found` };
    return { name, a: readMesh(pathA), b: readMesh(pathB), fileA: pathA, fileB: pathB };
  };
  const generated = (a: TriangleMesh, b: TriangleMesh, writeA: boolean): SurfaceCase => {
    const fileA = join(tmpDir, `${name}-a.off`), fileB = join(tmpDir, `${name}-b.off`);
    if (writeA) writeOff(fileA, a);
    writeOff(fileB, b);
    return { name, a, b, fileA, fileB };
  };
  switch (name) {
    case 'elephant':
      return dataPair('elephant.off', 'refined_elephant.off');
    case 'fandisk':
      return dataPair('fandisk.off', 'fandisk_large.off');
    case 'armadillo': {
      const path = join(dataDir, 'armadillo.off');
      if (!existsSync(path)) return { skipped: `${path} not found` };
      const a = readMesh(path);
      const c = generated(a, normalPerturbed(a, 0.001, seed), false);
      return { ...c, fileA: path };
    }
    case 'spheres-360k':
      return generated(uvSphere(1, 300, 600), hashPerturbed(uvSphere(1, 300, 600), 2e-4), true);
    case 'spheres-1.2m':
      return generated(uvSphere(1, 600, 1000), hashPerturbed(uvSphere(1, 640, 940), 2e-4), true);
  }
}
