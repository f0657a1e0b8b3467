// The mask pairs of scripts/bench-masks: a seeded synthetic "ground truth" A and "prediction" B on a
// BraTS-sized grid (240×240×155 at scale 1), each about 1.5M foreground voxels, written as gzipped NIfTI-1.
//
// A is the union of a body and two lobes (rotated ellipsoids) plus a small lobe that B misses; its boundary
// is moved by a smooth field of a few long waves. B is A's ellipsoids shifted by about 1.6 voxels and grown
// by 2 %, with A's boundary field plus a weaker one of its own, and one small false-positive island about
// 20 voxels outside A. So most of the surfaces lie a few voxels apart (HD95 of a few mm) and the two
// outliers set the HD, as in a real prediction / ground-truth pair.
import { writeNifti } from '../../test/nifti-writer.js';
import { Rng } from '../datasets.js';

export const MASK_CASES = ['iso', 'aniso'] as const;
export type MaskCaseName = (typeof MASK_CASES)[number];

/** The grid of scale 1, BraTS's. */
export const BRATS_DIMS: readonly [number, number, number] = [240, 240, 155];

/** Voxel sizes (mm) and the sform of each case; the masks are the same voxels in both. */
const SPACING: Record<MaskCaseName, [number, number, number]> = {
  iso: [1, 1, 1],
  // In-plane 0.9375 = 15/16 and 1.5 mm slices: every voxel centre is exact in float32.
  aniso: [0.9375, 0.9375, 1.5],
};

export const CASE_NOTES: Record<MaskCaseName, string> = {
  iso: '1 × 1 × 1 mm voxels; sform diag(−1, −1, 1) with origin (0, ny − 1, 0), as BraTS files have (x and y flipped)',
  aniso: 'the same voxel masks with 0.9375 × 0.9375 × 1.5 mm voxels (sform diag(0.9375, 0.9375, 1.5), origin (−112.5, −112.5, −115.5) at scale 1: voxel (⌊nx/2⌋, ⌊ny/2⌋, ⌊nz/2⌋) at 0)',
};

export interface MaskPair {
  dims: [number, number, number];
  a: Uint8Array;
  b: Uint8Array;
  foregroundA: number;
  foregroundB: number;
}

export interface MaskCaseFiles {
  name: MaskCaseName;
  dims: [number, number, number];
  spacing: [number, number, number];
  foregroundA: number;
  foregroundB: number;
  fileA: string;
  fileB: string;
}

interface Ellipsoid {
  centre: [number, number, number];
  axes: [number, number, number];
  /** Rotations about x, y, z (radians), applied in that order. */
  angles: [number, number, number];
}

interface Wave {
  /** Wave vector (radians per voxel). */
  k: [number, number, number];
  phase: number;
  amplitude: number;
}

/** Maps a point p to the ellipsoid's unit-ball frame: q = M (p − c), inside when |q| < 1. */
interface Frame {
  m: Float64Array;
  c: [number, number, number];
}

// Shapes in voxels at scale 1 (the grid is 240 × 240 × 155); the seed jitters them.
const BODY: Ellipsoid[] = [
  { centre: [120, 120, 78], axes: [73, 87, 55], angles: [0.1, -0.05, 0.2] },
  { centre: [156, 88, 94], axes: [43, 37, 32], angles: [0.4, 0.3, -0.2] },
  { centre: [86, 156, 62], axes: [39, 34, 34], angles: [-0.3, 0.2, 0.5] },
];
/** A's lobe that B misses (a false negative): it sticks out of the body by about 8 voxels. */
const MISSED_LOBE: Ellipsoid = { centre: [104, 30, 60], axes: [11, 13, 9], angles: [0.2, 0, 0.3] };
/** B's island (a false positive), about 20 voxels from A's surface. */
const ISLAND: Ellipsoid = { centre: [212, 168, 96], axes: [4.5, 4, 4], angles: [0, 0, 0] };
/** B against A: a shift (voxels) and a growth of every body ellipsoid. */
const B_SHIFT: [number, number, number] = [1.2, -0.9, 0.7];
const B_GROWTH = 1.02;

const WAVES = 10;
/** Wave amplitudes, as fractions of the ellipsoid's radius: A's field, and B's extra field. */
const A_AMPLITUDE = 0.012;
const B_AMPLITUDE = 0.006;

function rotation([ax, ay, az]: [number, number, number]): number[][] {
  const [cx, sx, cy, sy, cz, sz] = [Math.cos(ax), Math.sin(ax), Math.cos(ay), Math.sin(ay), Math.cos(az), Math.sin(az)];
  const rx = [[1, 0, 0], [0, cx, -sx], [0, sx, cx]];
  const ry = [[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]];
  const rz = [[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]];
  const mul = (p: number[][], q: number[][]) => p.map((row) => [0, 1, 2].map((c) => row[0] * q[0][c] + row[1] * q[1][c] + row[2] * q[2][c]));
  return mul(rz, mul(ry, rx));
}

/** The ellipsoid's frame; its rotation R maps body axes to the grid, so M = diag(1/axes) · Rᵀ. */
function frameOf(e: Ellipsoid): Frame {
  const r = rotation(e.angles);
  const m = new Float64Array(9);
  for (let row = 0; row < 3; row++) for (let col = 0; col < 3; col++) m[3 * row + col] = r[col][row] / e.axes[row];
  return { m, c: e.centre };
}

function jittered(rng: Rng, e: Ellipsoid, scale: number): Ellipsoid {
  const u = () => 2 * rng.uniform() - 1;
  return {
    centre: e.centre.map((v) => (v + 2 * u()) * scale) as [number, number, number],
    axes: e.axes.map((v) => v * (1 + 0.04 * u()) * scale) as [number, number, number],
    angles: e.angles.map((v) => v + 0.1 * u()) as [number, number, number],
  };
}

function wavesOf(rng: Rng, amplitude: number, scale: number): Wave[] {
  const waves: Wave[] = [];
  for (let n = 0; n < WAVES; n++) {
    // A direction uniform on the sphere, a wavelength of 24 to 64 voxels (at scale 1).
    const z = 2 * rng.uniform() - 1, t = 2 * Math.PI * rng.uniform(), s = Math.sqrt(1 - z * z);
    const length = (24 + 40 * rng.uniform()) * scale;
    const w = (2 * Math.PI) / length;
    waves.push({ k: [w * s * Math.cos(t), w * s * Math.sin(t), w * z], phase: 2 * Math.PI * rng.uniform(), amplitude });
  }
  return waves;
}

const fieldAt = (waves: Wave[], x: number, y: number, z: number) => {
  let f = 0;
  for (const w of waves) f += w.amplitude * Math.sin(w.k[0] * x + w.k[1] * y + w.k[2] * z + w.phase);
  return f;
};

/**
 * 1 where the smallest normalized radius of the ellipsoids is below 1 + field(p): each ellipsoid's boundary
 * moved outward by field(p) of its radius. The field is only evaluated in the shell where it can matter.
 */
function voxelize(dims: [number, number, number], ellipsoids: Ellipsoid[], waves: Wave[]): { mask: Uint8Array; foreground: number } {
  const [nx, ny, nz] = dims;
  const frames = ellipsoids.map(frameOf);
  const reach = waves.reduce((s, w) => s + Math.abs(w.amplitude), 0);
  const innerSq = (1 - reach) ** 2, outerSq = (1 + reach) ** 2;
  const mask = new Uint8Array(nx * ny * nz);
  const q0 = new Float64Array(3 * frames.length);
  let foreground = 0, index = 0;
  for (let k = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      frames.forEach((f, e) => {
        const dx = -f.c[0], dy = j - f.c[1], dz = k - f.c[2];
        for (let r = 0; r < 3; r++) q0[3 * e + r] = f.m[3 * r] * dx + f.m[3 * r + 1] * dy + f.m[3 * r + 2] * dz;
      });
      for (let i = 0; i < nx; i++, index++) {
        let rhoSq = Infinity;
        for (let e = 0; e < frames.length; e++) {
          const m = frames[e].m;
          const qx = q0[3 * e] + m[0] * i, qy = q0[3 * e + 1] + m[3] * i, qz = q0[3 * e + 2] + m[6] * i;
          const d = qx * qx + qy * qy + qz * qz;
          if (d < rhoSq) rhoSq = d;
        }
        if (rhoSq >= outerSq) continue;
        if (rhoSq > innerSq && Math.sqrt(rhoSq) >= 1 + fieldAt(waves, i, j, k)) continue;
        mask[index] = 1;
        foreground++;
      }
    }
  }
  return { mask, foreground };
}

/** The pair of one seed and scale (grid dims round(scale · 240, 240, 155)). */
export function makeMaskPair(seed: number, scale: number): MaskPair {
  const dims = BRATS_DIMS.map((n) => Math.max(8, Math.round(n * scale))) as [number, number, number];
  const rng = new Rng(seed);
  const body = BODY.map((e) => jittered(rng, e, scale));
  const missed = jittered(rng, MISSED_LOBE, scale);
  const island = jittered(rng, ISLAND, scale);
  const wavesA = wavesOf(rng, A_AMPLITUDE, scale);
  const wavesB = [...wavesA, ...wavesOf(rng, B_AMPLITUDE, scale)];
  const bodyB = body.map((e) => ({
    centre: e.centre.map((v, axis) => v + B_SHIFT[axis] * scale) as [number, number, number],
    axes: e.axes.map((v) => v * B_GROWTH) as [number, number, number],
    angles: e.angles,
  }));
  const a = voxelize(dims, [...body, missed], wavesA);
  const b = voxelize(dims, [...bodyB, island], wavesB);
  return { dims, a: a.mask, b: b.mask, foregroundA: a.foreground, foregroundB: b.foreground };
}

/** Row-major 3×4 sform of a case on a grid of these dims. */
export function sformOf(name: MaskCaseName, dims: [number, number, number]): number[] {
  const [sx, sy, sz] = SPACING[name];
  if (name === 'iso') return [-sx, 0, 0, 0, 0, -sy, 0, dims[1] - 1, 0, 0, sz, 0];
  // Voxel (⌊nx/2⌋, ⌊ny/2⌋, ⌊nz/2⌋) at the origin: multiples of 1/16 mm, so every centre is exact in float32.
  const origin = dims.map((n, axis) => -Math.floor(n / 2) * SPACING[name][axis]);
  return [sx, 0, 0, origin[0], 0, sy, 0, origin[1], 0, 0, sz, origin[2]];
}

/** Writes one mask as a gzipped uint8 NIfTI-1 file with the case's sform (code 1) and pixdim. */
export function writeMask(path: string, name: MaskCaseName, dims: [number, number, number], mask: Uint8Array): void {
  writeNifti(path, { dims, values: mask, datatype: 'uint8', spacing: SPACING[name], sform: { rows: sformOf(name, dims) }, gzip: true });
}

export function spacingOf(name: MaskCaseName): [number, number, number] {
  return SPACING[name];
}
