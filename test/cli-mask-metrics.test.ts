// `xhd compare` on synthetic NIfTI masks, checked against a double-precision reference computed here:
// surface voxels, HD, HD95 and ASSD (both variants of each), balls of known radii and offsets,
// anisotropic spacing, permuted and rotated affines, --voxel-space and --region all.
//
// The reference. A mask's points are the centres of its foreground (nonzero) voxels; with the default
// region only those with a 6-connected background neighbour, a neighbour outside the volume counting as
// background. Centres go through the affine the file stores (the sform, else pixdim; NIfTI-1 stores both
// as float32, NIfTI-2 as float64), or are the indices (i, j, k) with --voxel-space. Every point's nearest
// distance to the other set is found by brute force in double; HD is the largest, HD95 NumPy's 'linear'
// percentile (rank (n − 1)·0.95) of each direction, then the larger (max-of-directed, MONAI) or of both
// directions pooled (medpy), ASSD the mean of the two directed means (or the mean of all distances).
//
// Tolerance. xhd keeps every centre in double (the affine applied in double) and its distances are exact
// over those doubles, so each value is compared with the exact-double reference to 1e-12 relative: only
// the order of double operations (the affine's sum, the statistics' sums) may differ, a few ulps. Each test
// also records the largest displacement float32 rounding would give its centres (δA + δB, the "slack"):
// where it is nonzero the test would fail if centres were rounded to float32 anywhere on the way.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';

import { runXhd, scratchDir } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';

type Vec3 = [number, number, number];

/** A mask file as the tests write it: voxel values (i fastest) and how the header places them. */
interface Mask {
  dims: Vec3;
  values: Uint8Array | Int16Array;
  /** pixdim: x = i·sx, y = j·sy, z = k·sz (no sform, no qform); sform: the 3×4 rows, row-major. */
  geometry: { kind: 'pixdim'; spacing: Vec3 } | { kind: 'sform'; rows: number[] };
  version?: 1 | 2;
  gzip?: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Building masks

/** The 3×4 affine (row-major) as a reader of the file sees it: NIfTI-1 keeps pixdim and srow_* in float32. */
function storedAffine(mask: Mask): number[] {
  const stored = (v: number) => (mask.version === 2 ? v : Math.fround(v));
  if (mask.geometry.kind === 'pixdim') {
    const [sx, sy, sz] = mask.geometry.spacing.map(stored);
    return [sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, sz, 0];
  }
  return mask.geometry.rows.map(stored);
}

function mapAffine(m: number[], i: number, j: number, k: number): Vec3 {
  return [m[0] * i + m[1] * j + m[2] * k + m[3], m[4] * i + m[5] * j + m[6] * k + m[7], m[8] * i + m[9] * j + m[10] * k + m[11]];
}

/** Writes the mask; the file name ends in .nii.gz when it is gzipped. */
function writeMask(name: string, mask: Mask): string {
  const file = join(dir, `${name}.nii${mask.gzip ? '.gz' : ''}`);
  const g = mask.geometry;
  writeNifti(file, {
    dims: [...mask.dims],
    values: mask.values,
    datatype: mask.values instanceof Int16Array ? 'int16' : 'uint8',
    version: mask.version ?? 1,
    gzip: mask.gzip,
    spacing: g.kind === 'pixdim' ? [...g.spacing] : [0, 1, 2].map((c) => Math.hypot(g.rows[c], g.rows[4 + c], g.rows[8 + c])),
    sform: g.kind === 'sform' ? { rows: g.rows } : undefined,
  });
  return file;
}

/** 1 where the voxel's centre (through the affine the file will store) satisfies `inside`. */
function drawMask(dims: Vec3, geometry: Mask['geometry'], inside: (p: Vec3) => boolean, version: 1 | 2 = 1): Mask {
  const mask: Mask = { dims, values: new Uint8Array(dims[0] * dims[1] * dims[2]), geometry, version };
  const m = storedAffine(mask);
  let n = 0;
  for (let k = 0; k < dims[2]; k++) for (let j = 0; j < dims[1]; j++) for (let i = 0; i < dims[0]; i++, n++) {
    if (inside(mapAffine(m, i, j, k))) mask.values[n] = 1;
  }
  return mask;
}

const inBall = (c: Vec3, r: number) => (p: Vec3) => Math.hypot(p[0] - c[0], p[1] - c[1], p[2] - c[2]) <= r;

/** Deterministic pseudo-random numbers in [0, 1) (a 32-bit LCG), so the masks are the same on every run. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * An irregular mask in index space: a few balls (the first centred on the i = 0 face, so the volume's border
 * cuts it) and some scattered single voxels, with foreground values among 1, 2 and 7 (every nonzero counts).
 */
function blobValues(dims: Vec3, seed: number, into: Uint8Array | Int16Array): void {
  const random = lcg(seed);
  const [nx, ny, nz] = dims;
  const balls: [Vec3, number][] = [[[0, ny / 2, nz / 2], 4]];
  for (let b = 0; b < 3; b++) balls.push([[random() * nx, random() * ny, random() * nz], 2 + 3 * random()]);
  const labels = [1, 2, 7];
  let n = 0;
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, n++) {
    if (balls.some(([c, r]) => Math.hypot(i - c[0], j - c[1], k - c[2]) <= r)) into[n] = labels[n % 3];
  }
  for (let s = 0; s < 25; s++) into[Math.floor(random() * into.length)] = labels[s % 3];
}

// ---------------------------------------------------------------------------------------------------
// The reference

/** The points xhd should compare, in double: exact centres, or rounded to float32 as xhd stores them. */
function referencePoints(mask: Mask, options: { region?: 'surface' | 'all'; voxelSpace?: boolean; float32: boolean; outsideIsForeground?: boolean }): Float64Array {
  const [nx, ny, nz] = mask.dims;
  const m = options.voxelSpace ? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0] : storedAffine(mask);
  // outsideIsForeground: the other possible border rule, only to show that the masks tell the two apart.
  const foreground = (i: number, j: number, k: number) => (i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz
    ? mask.values[i + nx * (j + ny * k)] !== 0
    : options.outsideIsForeground === true);
  const out: number[] = [];
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
    if (!foreground(i, j, k)) continue;
    const interior = foreground(i - 1, j, k) && foreground(i + 1, j, k) && foreground(i, j - 1, k)
      && foreground(i, j + 1, k) && foreground(i, j, k - 1) && foreground(i, j, k + 1);
    if (interior && options.region !== 'all') continue;
    const p = mapAffine(m, i, j, k);
    out.push(...(options.float32 ? p.map(Math.fround) : p));
  }
  return Float64Array.from(out);
}

/** Largest Euclidean distance between corresponding points of two equally long sets. */
function largestDisplacement(p: Float64Array, q: Float64Array): number {
  let largest = 0;
  for (let n = 0; n < p.length; n += 3) largest = Math.max(largest, Math.hypot(p[n] - q[n], p[n + 1] - q[n + 1], p[n + 2] - q[n + 2]));
  return largest;
}

/** For every point of `from`, the distance to its nearest point of `to`, by brute force in double. */
function nearestDistances(from: Float64Array, to: Float64Array): Float64Array {
  const out = new Float64Array(from.length / 3);
  for (let a = 0; a < from.length; a += 3) {
    const x = from[a], y = from[a + 1], z = from[a + 2];
    let best = Infinity;
    for (let b = 0; b < to.length; b += 3) {
      const dx = x - to[b], dy = y - to[b + 1], dz = z - to[b + 2];
      const d2 = dx * dx + dy * dy + dz * dz;
      if (d2 < best) best = d2;
    }
    out[a / 3] = Math.sqrt(best);
  }
  return out;
}

/** NumPy's default ('linear') percentile: sort, rank h = (n − 1)·p/100, interpolate between ⌊h⌋ and ⌊h⌋ + 1. */
function percentileLinear(values: ArrayLike<number>, p: number): number {
  const sorted = Float64Array.from(values).sort();
  const h = ((sorted.length - 1) * p) / 100, low = Math.floor(h);
  if (low + 1 >= sorted.length) return sorted[sorted.length - 1];
  return sorted[low] + (h - low) * (sorted[low + 1] - sorted[low]);
}

const sum = (values: Float64Array) => values.reduce((s, v) => s + v, 0);
const sumSquares = (values: Float64Array) => values.reduce((s, v) => s + v * v, 0);

interface Reference {
  nA: number;
  nB: number;
  hd: number;
  hd_ab: number;
  hd_ba: number;
  hd95: number;
  hd95_ab: number;
  hd95_ba: number;
  hd95_pooled: number;
  mean_ab: number;
  mean_ba: number;
  assd: number;
  assd_pooled: number;
  rms: number;
  /** Every nearest distance, A → B then B → A, for the analytic checks. */
  dAb: Float64Array;
  dBa: Float64Array;
}

function reference(a: Float64Array, b: Float64Array): Reference {
  const dAb = nearestDistances(a, b), dBa = nearestDistances(b, a);
  const hd_ab = Math.max(...dAb), hd_ba = Math.max(...dBa);
  const hd95_ab = percentileLinear(dAb, 95), hd95_ba = percentileLinear(dBa, 95);
  const mean_ab = sum(dAb) / dAb.length, mean_ba = sum(dBa) / dBa.length;
  const n = dAb.length + dBa.length;
  return {
    nA: dAb.length,
    nB: dBa.length,
    hd: Math.max(hd_ab, hd_ba),
    hd_ab,
    hd_ba,
    hd95: Math.max(hd95_ab, hd95_ba),
    hd95_ab,
    hd95_ba,
    hd95_pooled: percentileLinear([...dAb, ...dBa], 95),
    mean_ab,
    mean_ba,
    assd: (mean_ab + mean_ba) / 2,
    assd_pooled: (sum(dAb) + sum(dBa)) / n,
    rms: Math.sqrt((sumSquares(dAb) + sumSquares(dBa)) / n),
    dAb,
    dBa,
  };
}

// ---------------------------------------------------------------------------------------------------
// Running xhd and comparing

const dir = scratchDir();

/** xhd's parsed --json output. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

function xhd(a: string, b: string, ...extra: string[]): Json {
  const r = runXhd(['compare', a, b, '--json', '--percentile', '95', '--stats', '-q', '--backend', 'cpu', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

interface Checked {
  json: Json;
  pooled: Json;
  ref: Reference;
  /** δA + δB: how far float32 rounding would move the distances (see the top of the file). */
  slack: number;
  /** The largest relative deviation from the exact-double reference seen over the checked values. */
  worst: number;
}

/**
 * Writes both masks, runs xhd with the default variants and with the pooled ones, and checks every
 * distance value against both references; returns the exact-double reference for further checks.
 */
function checkAgainstReference(t: TestContext, name: string, a: Mask, b: Mask,
                               options: { region?: 'surface' | 'all'; voxelSpace?: boolean } = {}): Checked {
  const fileA = writeMask(`${name}-a`, a), fileB = writeMask(`${name}-b`, b);
  const pointsA = referencePoints(a, { ...options, float32: false }), pointsA32 = referencePoints(a, { ...options, float32: true });
  const pointsB = referencePoints(b, { ...options, float32: false }), pointsB32 = referencePoints(b, { ...options, float32: true });
  const ref = reference(pointsA, pointsB);
  const slack = largestDisplacement(pointsA, pointsA32) + largestDisplacement(pointsB, pointsB32);
  // Rounding to float32 moves a point by at most √3·|largest coordinate|·2⁻²⁴; anything more is a bug here.
  const largestCoordinate = Math.max(...pointsA.map(Math.abs), ...pointsB.map(Math.abs));
  assert.ok(slack <= 2 * Math.sqrt(3) * largestCoordinate * 2 ** -24, `${name}: float32 slack ${slack}`);

  const flags = [...(options.region ? ['--region', options.region] : []), ...(options.voxelSpace ? ['--voxel-space'] : [])];
  const json = xhd(fileA, fileB, ...flags);
  const pooled = xhd(fileA, fileB, ...flags, '--percentile-variant', 'pooled', '--assd-variant', 'pooled');

  let worst = 0;
  const close = (actual: unknown, exact: number, what: string) => {
    assert.equal(typeof actual, 'number', `${name} ${what}: ${String(actual)}`);
    const value = actual as number;
    const deviation = Math.abs(value - exact);
    assert.ok(deviation <= 1e-12 * Math.max(1, Math.abs(exact)),
      `${name} ${what}: xhd ${value}, exact reference ${exact} (difference ${deviation}, float32 slack ${slack})`);
    if (exact !== 0) worst = Math.max(worst, deviation / Math.abs(exact));
    else assert.equal(value, 0, `${name} ${what}: exact reference 0`);
  };

  for (const [j, variant] of [[json, 'max-of-directed'], [pooled, 'pooled']] as const) {
    assert.equal(j.a.format, 'nifti');
    assert.equal(j.a.points, ref.nA, `${name}: A's point count`);
    assert.equal(j.b.points, ref.nB, `${name}: B's point count`);
    assert.deepEqual(j.distances_measured, { a: ref.nA, b: ref.nB });
    assert.equal(j.percentile, 95);
    assert.equal(j.percentile_variant, variant);
    assert.equal(j.assd_variant, variant === 'pooled' ? 'pooled' : 'mean-of-means');
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'mean_ab', 'mean_ba', 'rms'] as const) close(j[key], ref[key], `${key} (${variant})`);
  }
  for (const key of ['hd95', 'hd95_ab', 'hd95_ba', 'assd'] as const) close(json[key], ref[key], key);
  close(pooled.hd95, ref.hd95_pooled, 'hd95 (pooled)');
  close(pooled.assd, ref.assd_pooled, 'assd (pooled)');
  assert.ok(!('hd95_ab' in pooled) && !('hd95_ba' in pooled), 'the pooled variant has no per-direction HD95');
  // A percentile of the distances (either variant) can never exceed their maximum, HD.
  assert.ok(json.hd95 <= json.hd && pooled.hd95 <= json.hd, `${name}: hd95 above hd`);

  t.diagnostic(`${name}: ${ref.nA} and ${ref.nB} points; hd ${ref.hd.toPrecision(8)}, hd95 ${ref.hd95.toPrecision(8)} `
    + `(pooled ${ref.hd95_pooled.toPrecision(8)}), assd ${ref.assd.toPrecision(8)}; largest relative deviation from `
    + `the exact-double reference ${worst.toExponential(2)}, float32 rounding would move them by δA + δB ${slack.toExponential(2)}`);
  return { json, pooled, ref, slack, worst };
}

const noWarning = (j: Json) => !j.notes.some((n: string) => n.startsWith('warning'));
const warning = (j: Json): string => j.notes.find((n: string) => n.startsWith('warning')) ?? '';

/** Length of a voxel's main diagonal: no point lies farther than half of it from the nearest voxel centre. */
const diagonal = (s: Vec3) => Math.hypot(...s);

// ---------------------------------------------------------------------------------------------------
// The cases

// A 40³ grid of 1 mm voxels centred on the origin (centres at −19.5 … 19.5, exact in float32).
const CUBE40: Vec3 = [40, 40, 40];
const centred1mm: Mask['geometry'] = { kind: 'sform', rows: [1, 0, 0, -19.5, 0, 1, 0, -19.5, 0, 0, 1, -19.5] };

describe('xhd compare on NIfTI masks against a double-precision reference', () => {
  it('irregular masks touching the border, anisotropic sform, int16 labels (NIfTI-1)', (t) => {
    const dims: Vec3 = [24, 20, 16];
    const geometry: Mask['geometry'] = { kind: 'sform', rows: [0.9, 0, 0, -10.35, 0, 1.1, 0, 4.2, 0, 0, 1.7, -20.05] };
    const a: Mask = { dims, values: new Int16Array(24 * 20 * 16), geometry };
    const b: Mask = { dims, values: new Int16Array(24 * 20 * 16), geometry };
    blobValues(dims, 1, a.values);
    blobValues(dims, 2, b.values);
    const { json, ref } = checkAgainstReference(t, 'irregular', a, b);
    assert.ok(noWarning(json), 'same grid and affine: no warning');
    // The border rule matters here: the ball cut by the i = 0 face keeps its cut face as surface.
    // xhd's count matched the reference (above); the other border rule would have given fewer points.
    const otherRule = referencePoints(a, { float32: false, outsideIsForeground: true }).length / 3;
    assert.ok(otherRule < ref.nA, `${otherRule} against ${ref.nA}`);
    assert.ok(ref.hd95 < ref.hd, 'scattered voxels spread the distances, so HD95 is below HD');
  });

  it('irregular masks through a sheared float64 sform (NIfTI-2, gzipped)', (t) => {
    const dims: Vec3 = [18, 22, 14];
    const rows = [0.7, 0.1, -0.05, 3.3, 0.02, 0.95, 0.2, -7.1, -0.1, 0.05, 1.3, 12.7];
    const a: Mask = { dims, values: new Uint8Array(18 * 22 * 14), geometry: { kind: 'sform', rows }, version: 2, gzip: true };
    const b: Mask = { ...a, values: new Uint8Array(18 * 22 * 14) };
    blobValues(dims, 3, a.values);
    blobValues(dims, 4, b.values);
    const { json, ref } = checkAgainstReference(t, 'sheared', a, b);
    assert.ok(noWarning(json));
    assert.ok(ref.hd95_pooled !== ref.hd95, 'the two HD95 variants differ on these masks, so both are really checked');
  });
});

describe('balls of known radii and offsets', () => {
  it('offset balls of different radii: HD ≈ |offset| + |r2 − r1|', (t) => {
    // Ball 1: radius r1 about c1; ball 2: radius r2 about c1 + o. For spheres with |o| below both radii the
    // Hausdorff distance is |o| + |r2 − r1| (the far side of the larger one, along o).
    const c1: Vec3 = [0.3, -0.4, 0.1], o: Vec3 = [2.5, -1.5, 1], r1 = 9, r2 = 11.5;
    const c2: Vec3 = [c1[0] + o[0], c1[1] + o[1], c1[2] + o[2]];
    const a = drawMask(CUBE40, centred1mm, inBall(c1, r1)), b = drawMask(CUBE40, centred1mm, inBall(c2, r2));
    const { json, ref } = checkAgainstReference(t, 'offset-balls', a, b);
    const D = Math.hypot(...o), d = diagonal([1, 1, 1]), expected = D + (r2 - r1);
    // Lower bound, proved: the grid point nearest c2 + (r2 − d/2)·o/|o| is in ball 2 and at least
    // |o| + r2 − d from c1; the voxel of ball 2 farthest from c1 is at least as far, and lies on ball 2's
    // surface (its neighbour along its largest component away from c1 is farther still, so not in ball 2).
    // Every voxel of mask 1 lies within r1 of c1, so that surface voxel is at least |o| + r2 − r1 − d from it.
    assert.ok(json.hd_ba >= expected - d, `hd_ba ${json.hd_ba} below ${expected} − ${d}`);
    // Upper bound: digitising moves each sphere by less than about a voxel (surface voxel centres lie within
    // one spacing inside their sphere, checked below, and the sphere has no holes wider than a voxel).
    assert.ok(json.hd <= expected + d, `hd ${json.hd} above ${expected} + ${d}`);
    for (const [points, c, r] of [[referencePoints(a, { float32: false }), c1, r1], [referencePoints(b, { float32: false }), c2, r2]] as const) {
      for (let n = 0; n < points.length; n += 3) {
        const radius = Math.hypot(points[n] - c[0], points[n + 1] - c[1], points[n + 2] - c[2]);
        assert.ok(radius <= r && radius > r - 1, `a surface voxel ${radius} from the centre of a ball of radius ${r}`);
      }
    }
    assert.ok(Math.abs(ref.hd - expected) < 1, `reference ${ref.hd} against ${expected}`);
  });

  it('a ball moved by a whole number of voxels: HD between |o| − diagonal and |o|', (t) => {
    const c: Vec3 = [0.3, -0.4, 0.1], r = 10, o: Vec3 = [3, -2, 1];
    const a = drawMask(CUBE40, centred1mm, inBall(c, r));
    // B is A's voxels shifted by o, so its surface is exactly A's surface moved by o.
    const b: Mask = { ...a, values: new Uint8Array(a.values.length) };
    const [nx, ny] = CUBE40;
    a.values.forEach((v, n) => {
      if (!v) return;
      const i = n % nx, j = Math.floor(n / nx) % ny, k = Math.floor(n / (nx * ny));
      b.values[i + o[0] + nx * (j + o[1] + ny * (k + o[2]))] = 1;
    });
    const { json, pooled, ref } = checkAgainstReference(t, 'moved-ball', a, b);
    const D = Math.hypot(...o), d = diagonal([1, 1, 1]);
    assert.equal(json.a.points, json.b.points);
    // Every surface voxel of A has its image, |o| away, in B's surface (and the reverse): no distance exceeds |o|.
    for (const v of [json.hd, json.hd95, pooled.hd95, json.assd, pooled.assd]) assert.ok(v <= D + 1e-12, `${v} above |o| = ${D}`);
    // The continuous spheres are |o| apart in Hausdorff distance; the lower bound of the previous test with r1 = r2.
    assert.ok(json.hd >= D - d, `hd ${json.hd} below |o| − diagonal`);
  });

  it('concentric balls: HD, HD95 and ASSD all ≈ r2 − r1', (t) => {
    const c: Vec3 = [-0.2, 0.35, 0.15], r1 = 7, r2 = 10.5, s = 1, d = diagonal([1, 1, 1]);
    const a = drawMask(CUBE40, centred1mm, inBall(c, r1)), b = drawMask(CUBE40, centred1mm, inBall(c, r2));
    const { json, pooled, ref } = checkAgainstReference(t, 'concentric-balls', a, b);
    // Proved: mask 1 lies within r1 of c, and every surface voxel of ball 2 more than r2 − s from c (it has a
    // neighbour, s away, outside the ball); so every distance either way exceeds r2 − r1 − s.
    assert.ok(Math.min(...ref.dAb, ...ref.dBa) > r2 - r1 - s);
    // The upper bound, one voxel diagonal beyond the continuous r2 − r1, is the tolerance, not a proof.
    for (const [key, v] of Object.entries({ hd: json.hd, hd95: json.hd95, hd95_pooled: pooled.hd95, assd: json.assd, assd_pooled: pooled.assd })) {
      assert.ok(v > r2 - r1 - s && v <= r2 - r1 + d, `${key} ${v} against r2 − r1 = ${r2 - r1}`);
    }
  });
});

describe('anisotropic spacing', () => {
  it('the same physical ball on 1 mm voxels and on 0.5 × 0.8 × 2 mm voxels (pixdim) is less than a coarse voxel diagonal apart', (t) => {
    const c: Vec3 = [15.3, 15.6, 15.2], r = 10, coarse: Vec3 = [0.5, 0.8, 2];
    // Fine: 32³ voxels of 1 mm through a float64 sform (NIfTI-2); coarse: 64 × 40 × 16 voxels, pixdim only
    // (NIfTI-1, so 0.8 is stored as the float32 0.800000011920929). Both grids start at the origin.
    const fine = drawMask([32, 32, 32], { kind: 'sform', rows: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0] }, inBall(c, r), 2);
    const coarseMask = drawMask([64, 40, 16], { kind: 'pixdim', spacing: coarse }, inBall(c, r));
    const { json, ref } = checkAgainstReference(t, 'anisotropic', fine, coarseMask);
    assert.match(warning(json), /grid 32×32×32 against 64×40×16, spacing 1×1×1 mm against 0\.5×0\.8×2 mm/);
    assert.ok(ref.hd <= diagonal(coarse), `hd ${ref.hd} above the coarse voxel diagonal ${diagonal(coarse)}`);
    assert.ok(json.hd > 0);
    // A loose sanity bound (not proved): both surfaces hug the same sphere, so the average distance is well
    // below the coarse grid's largest spacing, 2 mm (it is about 0.58 mm).
    assert.ok(json.assd < 2, `assd ${json.assd}`);
  });
});

describe('rotated and permuted affines', () => {
  it('the same voxels under an axis-permuting, flipping affine are exactly 0 apart', (t) => {
    // A: 12 × 9 × 7 voxels of 1.5 × 1 × 2 mm. B holds the same voxels turned 90° about z and flipped in z:
    // B(i', j', k') = A(11 − j', i', 6 − k'), with an sform that puts every centre where A has it:
    // x = 1.5·i + 10 = −1.5·j' + 26.5, y = j − 5 = i' − 5, z = 2·k + 3 = −2·k' + 15.
    const dimsA: Vec3 = [12, 9, 7], dimsB: Vec3 = [9, 12, 7];
    const a: Mask = { dims: dimsA, values: new Uint8Array(12 * 9 * 7), geometry: { kind: 'sform', rows: [1.5, 0, 0, 10, 0, 1, 0, -5, 0, 0, 2, 3] } };
    blobValues(dimsA, 5, a.values);
    const b: Mask = { dims: dimsB, values: new Uint8Array(9 * 12 * 7), geometry: { kind: 'sform', rows: [0, -1.5, 0, 26.5, 1, 0, 0, -5, 0, 0, -2, 15] } };
    for (let k2 = 0; k2 < 7; k2++) for (let j2 = 0; j2 < 12; j2++) for (let i2 = 0; i2 < 9; i2++) {
      b.values[i2 + 9 * (j2 + 12 * k2)] = a.values[(11 - j2) + 12 * (i2 + 9 * (6 - k2))];
    }
    // The reference sees the same point sets.
    const sortedPoints = (m: Mask) => {
      const p = referencePoints(m, { float32: false });
      return Array.from({ length: p.length / 3 }, (_, n) => `${p[3 * n]},${p[3 * n + 1]},${p[3 * n + 2]}`).sort();
    };
    assert.deepEqual(sortedPoints(b), sortedPoints(a));
    for (const region of ['surface', 'all'] as const) {
      const { json, pooled } = checkAgainstReference(t, `permuted-${region}`, a, b, { region });
      assert.equal(json.a.points, json.b.points);
      for (const key of ['hd', 'hd_ab', 'hd_ba', 'hd95', 'hd95_ab', 'hd95_ba', 'assd', 'mean_ab', 'mean_ba']) assert.equal(json[key], 0, key);
      assert.equal(pooled.hd95, 0);
      assert.equal(pooled.assd, 0);
      assert.match(warning(json), /grid 12×9×7 against 9×12×7/);
    }
  });

  it('a ball on a grid rotated 30° about z (float32 sform) and about an oblique axis (float64 sform)', (t) => {
    const c: Vec3 = [0.2, -0.3, 0.4], r = 9, n = 32;
    const a = drawMask([n, n, n], { kind: 'sform', rows: [1, 0, 0, c[0] - 15.5, 0, 1, 0, c[1] - 15.5, 0, 0, 1, c[2] - 15.5] }, inBall(c, r));
    /** The sform of an n³ grid with these voxel sizes, rotated by R, whose middle lies on c. */
    const rotatedGrid = (R: number[][], spacing: Vec3): Mask['geometry'] => {
      const rows: number[] = [];
      for (let row = 0; row < 3; row++) {
        const m = [0, 1, 2].map((col) => R[row][col] * spacing[col]);
        rows.push(...m, c[row] - ((n - 1) / 2) * (m[0] + m[1] + m[2]));
      }
      return { kind: 'sform', rows };
    };
    const cos = Math.cos(Math.PI / 6), sin = Math.sin(Math.PI / 6);
    const aboutZ = [[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]];
    // Rodrigues' formula about the unit axis k = (1, 2, 2)/3.
    const k = [1 / 3, 2 / 3, 2 / 3];
    const oblique = [0, 1, 2].map((i) => [0, 1, 2].map((j) => {
      const cross = [[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]][i][j];
      return (i === j ? cos : 0) + sin * cross + (1 - cos) * k[i] * k[j];
    }));
    const b = drawMask([n, n, n], rotatedGrid(aboutZ, [1, 1, 1]), inBall(c, r));
    const bOblique = drawMask([n, n, n], rotatedGrid(oblique, [1, 1.2, 0.9]), inBall(c, r), 2);
    const z = checkAgainstReference(t, 'rotated-z', a, b);
    assert.match(warning(z.json), /affines differ by up to/);
    const oblique30 = checkAgainstReference(t, 'rotated-oblique', a, bOblique);
    assert.match(warning(oblique30.json), /spacing 1×1×1 mm against 1×1\.2×0\.9 mm/);
    // The same physical sphere on either grid: surface voxels within a voxel of it, on both sides.
    assert.ok(z.ref.hd <= diagonal([1, 1, 1]), `hd ${z.ref.hd}`);
    assert.ok(oblique30.ref.hd <= diagonal([1, 1.2, 0.9]), `hd ${oblique30.ref.hd}`);
    assert.ok(z.slack > 0 && oblique30.slack > 0, 'rotated centres are not exact in float32: the doubles are exercised');
  });
});

describe('--voxel-space and --region all', () => {
  it('--voxel-space compares voxel indices, whatever the affines', (t) => {
    // A: a ball of radius 5 voxels on 2 mm voxels (pixdim); B: radius 6 voxels, 2 voxels further along i,
    // on 1.5 mm voxels rotated 30° about x. In index space they are two offset digital balls.
    const cos = Math.cos(Math.PI / 6), sin = Math.sin(Math.PI / 6);
    const a: Mask = { dims: [20, 20, 20], values: new Uint8Array(8000), geometry: { kind: 'pixdim', spacing: [2, 2, 2] } };
    const b: Mask = { dims: [20, 20, 20], values: new Uint8Array(8000), geometry: { kind: 'sform', rows: [1.5, 0, 0, -4, 0, 1.5 * cos, -1.5 * sin, 7, 0, 1.5 * sin, 1.5 * cos, 1] } };
    let n = 0;
    for (let k = 0; k < 20; k++) for (let j = 0; j < 20; j++) for (let i = 0; i < 20; i++, n++) {
      a.values[n] = Math.hypot(i - 9.5, j - 9.2, k - 9.7) <= 5 ? 1 : 0;
      b.values[n] = Math.hypot(i - 11.5, j - 9.2, k - 9.7) <= 6 ? 1 : 0;
    }
    const voxels = checkAgainstReference(t, 'voxel-space', a, b, { voxelSpace: true });
    assert.equal(voxels.slack, 0, 'indices are exact');
    assert.ok(voxels.json.notes.some((note: string) => note.includes('in voxel indices')), JSON.stringify(voxels.json.notes));
    // In index units the continuous answer is 2 + (6 − 5) = 3 voxels; the proved lower bound is 3 − √3.
    assert.ok(voxels.json.hd >= 3 - Math.sqrt(3) && voxels.json.hd <= 3 + Math.sqrt(3), `${voxels.json.hd}`);
    // In millimetres the same files are far apart (different spacings and a rotation): not the same answer.
    const mm = xhd(join(dir, 'voxel-space-a.nii'), join(dir, 'voxel-space-b.nii'));
    assert.ok(Math.abs(mm.hd - voxels.json.hd) > 1, `mm ${mm.hd} against voxels ${voxels.json.hd}`);
  });

  it('--region all compares every foreground voxel', (t) => {
    const dims: Vec3 = [24, 20, 16];
    const geometry: Mask['geometry'] = { kind: 'sform', rows: [0.9, 0, 0, -10.35, 0, 1.1, 0, 4.2, 0, 0, 1.7, -20.05] };
    const a: Mask = { dims, values: new Int16Array(24 * 20 * 16), geometry };
    const b: Mask = { dims, values: new Int16Array(24 * 20 * 16), geometry };
    blobValues(dims, 6, a.values);
    blobValues(dims, 7, b.values);
    const all = checkAgainstReference(t, 'region-all', a, b, { region: 'all' });
    const foreground = (m: Mask) => {
      let count = 0;
      for (let n = 0; n < m.values.length; n++) if (m.values[n] !== 0) count++;
      return count;
    };
    assert.equal(all.json.a.points, foreground(a));
    assert.equal(all.json.b.points, foreground(b));
    const surface = referencePoints(a, { float32: false }).length / 3;
    assert.ok(surface < foreground(a), 'the masks have interior voxels, so region all differs from the surface');
    assert.ok(all.json.notes.some((note: string) => note.includes('all of them compared')), JSON.stringify(all.json.notes));
  });
});
