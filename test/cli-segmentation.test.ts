// `xhd compare` and `xhd batch` on generated label masks, against references written here from the
// definitions: NSD and F-score at τ (voxel variant: surface voxel centres, MONAI's compute_surface_dice;
// surfel variant: block-centre surface elements weighted by area, DeepMind's surface-distance) on balls and
// shifted boxes with anisotropic voxels, the surfel areas of boxes against their closed form, every label of
// a 20-label volume against 20 single-label runs, lesion-wise metrics on a volume with known lesions, the
// batch summary against statistics computed here, and the refusals (τ ≤ 0, bad label lists, labels in
// neither mask).
//
// References. A mask's voxel (i, j, k) has its centre at (i·sx, j·sy, k·sz) (pixdim, stored as float32). Its
// surface voxels are those with a face neighbour outside the mask (outside the grid counts). Its surfels, for
// a box, sit at every block corner (i − ½, j − ½, k − ½) whose 2×2×2 block holds 1, 2 or 4 of the box's
// voxels: a corner cut off (area ⅛·√(sx²sy² + sy²sz² + sx²sz²)), an edge (s_a · ½·hypot of the other two), a
// face (the product of the two spacings across it). Distances are brute force in double.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { hasStackTrace, runXhd, scratchDir } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';
import { probeBackend } from '../src/ops/backends.js';
import { suiteUnless } from './skippable-suite.js';

const cuda = probeBackend('cuda');
const noGpu = cuda.available ? false : `no usable CUDA GPU (${(cuda.reason ?? '').split('\n')[0]})`;

type Vec3 = [number, number, number];
const dir = scratchDir();

interface Volume { dims: Vec3; spacing: Vec3; values: Int16Array }

function volume(dims: Vec3, spacing: Vec3, label: (i: number, j: number, k: number) => number): Volume {
  const values = new Int16Array(dims[0] * dims[1] * dims[2]);
  let n = 0;
  for (let k = 0; k < dims[2]; k++) for (let j = 0; j < dims[1]; j++) for (let i = 0; i < dims[0]; i++, n++) values[n] = label(i, j, k);
  return { dims, spacing, values };
}

function write(name: string, v: Volume): string {
  const file = join(dir, `${name}.nii`);
  writeNifti(file, { dims: [...v.dims], values: v.values, datatype: 'int16', spacing: [...v.spacing] });
  return file;
}

const inBox = (lo: Vec3, hi: Vec3) => (i: number, j: number, k: number) => i >= lo[0] && i <= hi[0] && j >= lo[1] && j <= hi[1] && k >= lo[2] && k <= hi[2];

/** The float32 spacing the file stores. */
const stored = (v: Volume): Vec3 => v.spacing.map(Math.fround) as Vec3;

function surfacePoints(v: Volume, label: number): Float64Array {
  const [nx, ny, nz] = v.dims, [sx, sy, sz] = stored(v);
  const is = (i: number, j: number, k: number) => i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz && v.values[i + nx * (j + ny * k)] === label;
  const out: number[] = [];
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
    if (!is(i, j, k)) continue;
    if (is(i - 1, j, k) && is(i + 1, j, k) && is(i, j - 1, k) && is(i, j + 1, k) && is(i, j, k - 1) && is(i, j, k + 1)) continue;
    out.push(i * sx, j * sy, k * sz);
  }
  return Float64Array.from(out);
}

/** A box's surfels (see the header): positions and areas, from the closed form of each block's pattern. */
function boxSurfels(v: Volume, label: number): { points: Float64Array; areas: Float64Array } {
  const [nx, ny, nz] = v.dims, s = stored(v);
  const is = (i: number, j: number, k: number) => i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz && v.values[i + nx * (j + ny * k)] === label;
  const points: number[] = [], areas: number[] = [];
  for (let k = 0; k <= nz; k++) for (let j = 0; j <= ny; j++) for (let i = 0; i <= nx; i++) {
    const inside: Vec3[] = [];
    for (let c = 0; c < 8; c++) {
      const p: Vec3 = [i - 1 + (c & 1), j - 1 + ((c >> 1) & 1), k - 1 + ((c >> 2) & 1)];
      if (is(...p)) inside.push(p);
    }
    if (inside.length === 0 || inside.length === 8) continue;
    let area: number;
    if (inside.length === 1) area = Math.sqrt(s[0] ** 2 * s[1] ** 2 + s[1] ** 2 * s[2] ** 2 + s[0] ** 2 * s[2] ** 2) / 8;
    else if (inside.length === 2) {
      const axis = [0, 1, 2].find((a) => inside[0][a] !== inside[1][a])!;
      const [b, c] = [0, 1, 2].filter((a) => a !== axis);
      area = s[axis] * Math.hypot(s[b], s[c]) / 2;
    } else if (inside.length === 4) {
      const axis = [0, 1, 2].find((a) => inside.every((p) => p[a] === inside[0][a]))!;
      const [b, c] = [0, 1, 2].filter((a) => a !== axis);
      area = s[b] * s[c];
    } else throw new Error(`a box has no block with ${inside.length} voxels inside`);
    points.push((i - 0.5) * s[0], (j - 0.5) * s[1], (k - 0.5) * s[2]);
    areas.push(area);
  }
  return { points: Float64Array.from(points), areas: Float64Array.from(areas) };
}

function nearest(from: Float64Array, to: Float64Array): Float64Array {
  const out = new Float64Array(from.length / 3);
  for (let p = 0; p < out.length; p++) {
    let best = Infinity;
    for (let q = 0; q < to.length; q += 3) {
      const dx = from[3 * p] - to[q], dy = from[3 * p + 1] - to[q + 1], dz = from[3 * p + 2] - to[q + 2];
      best = Math.min(best, dx * dx + dy * dy + dz * dz);
    }
    out[p] = Math.sqrt(best);
  }
  return out;
}

/** NSD, precision, recall, F at τ by their definitions (weights default 1). */
function tolerance(tau: number, ab: Float64Array, ba: Float64Array, wa?: Float64Array, wb?: Float64Array) {
  let nearA = 0, totalA = 0, nearB = 0, totalB = 0;
  ab.forEach((d, i) => { const w = wa ? wa[i] : 1; totalA += w; if (d <= tau) nearA += w; });
  ba.forEach((d, i) => { const w = wb ? wb[i] : 1; totalB += w; if (d <= tau) nearB += w; });
  const precision = nearA / totalA, recall = nearB / totalB;
  return { nsd: (nearA + nearB) / (totalA + totalB), precision, recall, fscore: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0 };
}

function close(actual: number, expected: number, what: string, rel = 1e-12): void {
  assert.ok(Math.abs(actual - expected) <= rel * Math.max(1, Math.abs(expected)), `${what}: ${actual} against ${expected}`);
}

function json(args: string[], backend: 'cpu' | 'cuda' = 'cpu'): Record<string, any> {
  const r = runXhd([...args, '--json', '--backend', backend, '-q']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('NSD and F-score, voxel variant (surface voxel centres)', () => {
  const spacing: Vec3 = [0.8, 1.1, 1.7];
  const ball = (c: Vec3, r: number) => (i: number, j: number, k: number) => Math.hypot((i - c[0]) * 0.8, (j - c[1]) * 1.1, (k - c[2]) * 1.7) <= r ? 1 : 0;
  const a = volume([28, 24, 16], spacing, ball([13, 11, 7], 7));
  const b = volume([28, 24, 16], spacing, ball([15.5, 11, 8], 7.6));
  const fileA = write('ball-a', a), fileB = write('ball-b', b);

  it('gives the definitions\' values on two balls with anisotropic voxels', () => {
    const pa = surfacePoints(a, 1), pb = surfacePoints(b, 1);
    const ab = nearest(pa, pb), ba = nearest(pb, pa);
    const r = json(['compare', fileA, fileB, '--nsd', '1.05', '--nsd', '2.3', '--fscore', '1.6,2.3']);
    assert.equal(r.nsd_variant, 'voxel');
    for (const [key, tau] of [['nsd_1_05', 1.05], ['nsd_2_3', 2.3]] as const) close(r[key], tolerance(tau, ab, ba).nsd, key);
    for (const [key, tau] of [['fscore_1_6', 1.6], ['fscore_2_3', 2.3]] as const) {
      const t = tolerance(tau, ab, ba);
      close(r[key], t.fscore, key);
      close(r[`${key}_precision`], t.precision, `${key} precision`);
      close(r[`${key}_recall`], t.recall, `${key} recall`);
    }
    // Not a trivial case: the tolerances split the points.
    assert.ok(r.nsd_1_05 > 0.2 && r.nsd_1_05 < 0.95, `nsd_1_05 ${r.nsd_1_05}`);
  });

  it('puts the values in CSV columns and text lines', () => {
    const csv = runXhd(['compare', fileA, fileB, '--nsd', '2.3', '--fscore', '1.6', '--output', 'csv', '--csv-header', '--backend', 'cpu', '-q']);
    assert.equal(csv.code, 0, csv.stderr);
    const [header, row] = csv.stdout.trim().split('\n').map((l) => l.split(','));
    for (const key of ['nsd_variant', 'nsd_2_3', 'fscore_1_6', 'fscore_1_6_precision', 'fscore_1_6_recall']) assert.ok(header.includes(key), key);
    const pa = surfacePoints(a, 1), pb = surfacePoints(b, 1);
    close(Number(row[header.indexOf('nsd_2_3')]), tolerance(2.3, nearest(pa, pb), nearest(pb, pa)).nsd, 'csv nsd_2_3');
    const text = runXhd(['compare', fileA, fileB, '--nsd', '2.3', '--backend', 'cpu', '-q']);
    assert.match(text.stdout, /NSD @ 2\.3 +0\.\d+ +voxel variant/);
  });

  it('works on point files as on masks (points mode)', () => {
    const xyz = (name: string, p: Float64Array) => {
      const file = join(dir, `${name}.xyz`);
      const lines: string[] = [];
      for (let n = 0; n < p.length; n += 3) lines.push(`${p[n]} ${p[n + 1]} ${p[n + 2]}`);
      writeFileSync(file, lines.join('\n') + '\n');
      return file;
    };
    const pa = surfacePoints(a, 1), pb = surfacePoints(b, 1);
    const r = json(['compare', xyz('pa', pa), xyz('pb', pb), '--nsd', '1.05', '--fscore', '2.3']);
    close(r.nsd_1_05, tolerance(1.05, nearest(pa, pb), nearest(pb, pa)).nsd, 'points nsd');
    close(r.fscore_2_3, tolerance(2.3, nearest(pa, pb), nearest(pb, pa)).fscore, 'points fscore');
  });
});

describe('surfel variant (DeepMind\'s area-weighted surface elements)', () => {
  const spacing: Vec3 = [0.9, 1.2, 1.6];
  const a = volume([16, 14, 12], spacing, (i, j, k) => (inBox([3, 3, 2], [10, 9, 7])(i, j, k) ? 1 : 0));
  const b = volume([16, 14, 12], spacing, (i, j, k) => (inBox([4, 3, 4], [12, 10, 8])(i, j, k) ? 1 : 0));
  const fileA = write('box-a', a), fileB = write('box-b', b);
  const args = ['compare', fileA, fileB, '--nsd-variant', 'surfel', '--nsd', '1.3,2.2', '--fscore', '1.7', '--percentile', '95', '--percentile-variant', 'surfel', '--assd-variant', 'surfel'];

  it('gives a box the surface area of its closed form', () => {
    const r = json(args);
    const s = stored(a);
    const area = (n: Vec3) => {
      const faces = 2 * ((n[1] - 1) * (n[2] - 1) * s[1] * s[2] + (n[0] - 1) * (n[2] - 1) * s[0] * s[2] + (n[0] - 1) * (n[1] - 1) * s[0] * s[1]);
      const edges = 4 * ((n[0] - 1) * s[0] * Math.hypot(s[1], s[2]) + (n[1] - 1) * s[1] * Math.hypot(s[0], s[2]) + (n[2] - 1) * s[2] * Math.hypot(s[0], s[1])) / 2;
      const corners = Math.sqrt(s[0] ** 2 * s[1] ** 2 + s[1] ** 2 * s[2] ** 2 + s[0] ** 2 * s[2] ** 2);
      return faces + edges + corners;
    };
    close(r.surfel_area.a, area([8, 7, 6]), 'box A area', 1e-12);
    close(r.surfel_area.b, area([9, 8, 5]), 'box B area', 1e-12);
    const count = (n: Vec3) => 2 * ((n[1] - 1) * (n[2] - 1) + (n[0] - 1) * (n[2] - 1) + (n[0] - 1) * (n[1] - 1)) + 4 * (n[0] - 1 + n[1] - 1 + n[2] - 1) + 8;
    assert.deepEqual(r.surfels, { a: count([8, 7, 6]), b: count([9, 8, 5]) });
  });

  it('weighs NSD, F-score, HD95 and ASSD by area as the definitions do', () => {
    const r = json(args);
    const sa = boxSurfels(a, 1), sb = boxSurfels(b, 1);
    const ab = nearest(sa.points, sb.points), ba = nearest(sb.points, sa.points);
    for (const [key, tau] of [['nsd_1_3', 1.3], ['nsd_2_2', 2.2]] as const) close(r[key], tolerance(tau, ab, ba, sa.areas, sb.areas).nsd, key);
    const f = tolerance(1.7, ab, ba, sa.areas, sb.areas);
    close(r.fscore_1_7, f.fscore, 'fscore');
    close(r.fscore_1_7_precision, f.precision, 'precision');
    // compute_robust_hausdorff: the first distance (ascending) whose running share of the area reaches 95%.
    const robust = (d: Float64Array, w: Float64Array) => {
      const order = [...d.keys()].sort((x, y) => d[x] - d[y]);
      const total = w.reduce((s, x) => s + x, 0);
      let run = 0;
      for (const i of order) if ((run += w[i]) / total >= 0.95) return d[i];
      return d[order[order.length - 1]];
    };
    assert.equal(r.percentile_variant, 'surfel');
    close(r.hd95, Math.max(robust(ab, sa.areas), robust(ba, sb.areas)), 'hd95 surfel');
    const mean = (d: Float64Array, w: Float64Array) => d.reduce((s, x, i) => s + x * w[i], 0) / w.reduce((s, x) => s + x, 0);
    assert.equal(r.assd_variant, 'surfel');
    close(r.assd, (mean(ab, sa.areas) + mean(ba, sb.areas)) / 2, 'assd surfel', 1e-11);
    // The voxel variant gives other values on the same masks: the two are told apart.
    const voxel = json(['compare', fileA, fileB, '--nsd', '1.3']);
    assert.notEqual(voxel.nsd_1_3, r.nsd_1_3);
  });

  it('refuses the surfel variants for point files and with --directed', () => {
    const xyz = join(dir, 'two.xyz');
    writeFileSync(xyz, '0 0 0\n1 0 0\n');
    for (const extra of [['--nsd-variant', 'surfel', '--nsd', '1'], ['--percentile', '95', '--percentile-variant', 'surfel']]) {
      const r = runXhd(['compare', xyz, xyz, ...extra, '-q']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /surfel variants .*voxel masks/);
    }
    const directed = runXhd(['compare', fileA, fileB, '--nsd', '1', '--directed', '-q']);
    assert.equal(directed.code, 2);
    assert.match(directed.stderr, /--directed/);
  });
});

describe('--labels: every label in one run', () => {
  const dims: Vec3 = [30, 26, 18], spacing: Vec3 = [1.1, 0.9, 1.4];
  // 20 labels: a grid of small boxes, B's shifted and grown differently per label; label 20 touches the border.
  const place = (l: number, grow: number) => {
    const x = 1 + (l % 5) * 6, y = 1 + Math.floor(l / 5) * 6;
    return { lo: [x - (l === 19 ? 1 : 0), y, 2] as Vec3, hi: [x + 3 + grow, y + 3, 6 + (l % 4)] as Vec3 };
  };
  const labelled = (shift: boolean) => (i: number, j: number, k: number) => {
    for (let l = 0; l < 20; l++) {
      const { lo, hi } = place(l, shift ? l % 2 : 0);
      const dk = shift ? l % 3 : 0;
      if (inBox([lo[0], lo[1], lo[2] + dk], [hi[0], hi[1], hi[2] + dk])(i, j, k)) return l + 1;
    }
    return 0;
  };
  const a = volume(dims, spacing, labelled(false)), b = volume(dims, spacing, labelled(true));
  const fileA = write('labels-a', a), fileB = write('labels-b', b);
  const options = ['--percentile', '95', '--nsd', '1.5', '--fscore', '2'];

  it('gives each of 20 labels exactly what a single-label run gives', () => {
    const all = json(['compare', fileA, fileB, '--labels', 'all', ...options]);
    assert.deepEqual(Object.keys(all.labels), Array.from({ length: 20 }, (_, l) => String(l + 1)));
    for (let l = 1; l <= 20; l++) {
      const single = json(['compare', fileA, fileB, '--label', String(l), ...options]);
      const got = all.labels[String(l)];
      for (const key of ['hd', 'hd_ab', 'hd_ba', 'hd95', 'hd95_ab', 'hd95_ba', 'mean_ab', 'mean_ba', 'assd', 'rms', 'nsd_1_5', 'fscore_2', 'fscore_2_precision', 'fscore_2_recall']) {
        assert.equal(got[key], single[key], `label ${l} ${key}`);
      }
      assert.deepEqual(got.points, { a: single.a.points, b: single.b.points }, `label ${l} points`);
    }
  });

  it('gives the surfel variants per label as a single-label run does, and a text line per label', () => {
    const surfel = ['--percentile', '95', '--percentile-variant', 'surfel', '--assd-variant', 'surfel', '--nsd', '1.5', '--nsd-variant', 'surfel'];
    const all = json(['compare', fileA, fileB, '--labels', '4,20', ...surfel]);
    for (const l of ['4', '20']) {
      const single = json(['compare', fileA, fileB, '--label', l, ...surfel]);
      for (const key of ['hd95', 'assd', 'surfel_mean_ab', 'surfel_mean_ba', 'nsd_1_5']) assert.equal(all.labels[l][key], single[key], `label ${l} ${key}`);
      assert.deepEqual(all.labels[l].surfel_area, single.surfel_area);
    }
    const text = runXhd(['compare', fileA, fileB, '--labels', '1-3', '--nsd', '1.5', '--backend', 'cpu', '-q']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^3 labels compared$/m);
    for (const l of [1, 2, 3]) assert.match(text.stdout, new RegExp(`label ${l} +hd [0-9.]+ .*nsd_1_5 [0-9.]+`));
  });

  it('takes ranges and lists, and writes one CSV row per label', () => {
    assert.deepEqual(Object.keys(json(['compare', fileA, fileB, '--labels', '3-5,17']).labels), ['3', '4', '5', '17']);
    const csv = runXhd(['compare', fileA, fileB, '--labels', '1-20', '--nsd', '1.5', '--output', 'csv', '--csv-header', '--backend', 'cpu', '-q']);
    assert.equal(csv.code, 0, csv.stderr);
    const lines = csv.stdout.trim().split('\n');
    assert.equal(lines.length, 21);
    const header = lines[0].split(',');
    assert.deepEqual(lines.slice(1).map((line) => line.split(',')[header.indexOf('label')]), Array.from({ length: 20 }, (_, l) => String(l + 1)));
  });

  it('follows --empty for a label missing on one side, and refuses a label in neither mask', () => {
    const missing = write('labels-missing', volume(dims, spacing, (i, j, k) => { const l = labelled(false)(i, j, k); return l === 7 ? 0 : l; }));
    const r = json(['compare', missing, fileB, '--labels', '6-8', '--nsd', '1']);
    assert.deepEqual(r.labels['7'].empty, { a: true, b: false, policy: 'zero-or-diagonal' });
    const diagonal = Math.hypot(29 * Math.fround(1.1), 25 * Math.fround(0.9), 17 * Math.fround(1.4));
    close(r.labels['7'].hd, diagonal, 'one side empty: the volume diagonal');
    assert.equal(r.labels['7'].nsd_1, 0);
    assert.equal(r.labels['6'].empty.policy, null);
    const nan = json(['compare', missing, fileB, '--labels', '7', '--empty', 'nan']);
    assert.equal(nan.labels['7'].hd, null);
    const neither = runXhd(['compare', fileA, fileB, '--labels', '3,42', '-q']);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /label 42 is in neither mask/);
    assert.ok(!hasStackTrace(neither.stderr));
    const forced = json(['compare', fileA, fileB, '--labels', '42', '--empty', 'zero-or-diagonal']);
    assert.equal(forced.labels['42'].hd, 0);
  });
});

describe('--components: lesion-wise metrics (BraTS 2023 rule)', () => {
  const dims: Vec3 = [30, 28, 16], spacing: Vec3 = [1, 1, 1];
  const L1: [Vec3, Vec3] = [[2, 2, 2], [6, 6, 6]], L2: [Vec3, Vec3] = [[12, 2, 2], [15, 5, 5]], L3: [Vec3, Vec3] = [[22, 2, 2], [23, 3, 3]];
  const L1p: [Vec3, Vec3] = [[3, 2, 2], [7, 6, 6]], FP: [Vec3, Vec3] = [[2, 20, 10], [4, 22, 12]];
  const of = (boxes: [Vec3, Vec3][]) => (i: number, j: number, k: number) => (boxes.some(([lo, hi]) => inBox(lo, hi)(i, j, k)) ? 1 : 0);
  const b = volume(dims, spacing, of([L1, L2, L3])), a = volume(dims, spacing, of([L1p, L2, FP]));
  const fileA = write('lesions-a', a), fileB = write('lesions-b', b);
  const diagonal = Math.hypot(29, 27, 15);
  const hdOf = (boxA: [Vec3, Vec3], boxB: [Vec3, Vec3]) => {
    const pa = surfacePoints(volume(dims, spacing, of([boxA])), 1), pb = surfacePoints(volume(dims, spacing, of([boxB])), 1);
    return Math.max(...nearest(pa, pb), ...nearest(pb, pa));
  };

  it('finds the true positives, the missed lesion and the false positive, each measured on its own', () => {
    const r = json(['compare', fileA, fileB, '--components', '--percentile', '95']);
    const l = r.labels.foreground.lesions;
    assert.deepEqual(l.counts, { lesions: 3, true_positives: 2, false_negatives: 1, false_positives: 1, left_out: 0 });
    assert.deepEqual(l.lesions.map((x: any) => x.matched), [[1], [2], []]);
    assert.deepEqual(l.lesions.map((x: any) => x.voxels), [125, 64, 8]);
    const hd1 = hdOf(L1p, L1);
    close(l.lesions[0].hd, hd1, 'lesion 1 hd');
    assert.equal(l.lesions[1].hd, 0);
    close(l.lesions[2].hd, diagonal, 'missed lesion: the volume diagonal');
    close(l.false_positives[0].hd, diagonal, 'false positive: the volume diagonal');
    assert.equal(l.lesions[0].dice, (2 * 100) / 250);
    assert.equal(l.lesions[1].dice, 1);
    close(l.lesion_wise.hd, (hd1 + 0 + 2 * diagonal) / 4, 'lesion-wise hd');
    close(l.lesion_wise.dice, (0.8 + 1) / 4, 'lesion-wise dice');
  });

  it('leaves out small lesions, merges lesions by dilation, and follows the connectivity', () => {
    const small = json(['compare', fileA, fileB, '--components', '--lesion-min-volume', '8']).labels.foreground.lesions;
    assert.equal(small.counts.left_out, 1);
    close(small.lesion_wise.hd, (hdOf(L1p, L1) + diagonal) / 3, 'without the small lesion');
    // Two reference boxes one voxel apart: two lesions, or one after a dilation by 1.
    const pair = write('lesion-pair', volume(dims, spacing, of([[[2, 2, 2], [4, 4, 4]], [[6, 2, 2], [8, 4, 4]]])));
    assert.equal(json(['compare', pair, pair, '--components']).labels.foreground.lesions.counts.lesions, 2);
    const merged = json(['compare', pair, pair, '--components', '--lesion-dilation', '1']).labels.foreground.lesions;
    assert.equal(merged.counts.lesions, 1);
    assert.deepEqual(merged.lesions[0].matched, [1, 2]);
    assert.equal(merged.lesion_wise.hd, 0);
    // Two voxels sharing an edge: two lesions at 6-connectivity, one at 26.
    const edge = write('lesion-edge', volume(dims, spacing, (i, j, k) => ((i === 5 && j === 5 && k === 5) || (i === 6 && j === 6 && k === 5) ? 1 : 0)));
    assert.equal(json(['compare', edge, edge, '--components', '--connectivity', '6']).labels.foreground.lesions.counts.lesions, 2);
    assert.equal(json(['compare', edge, edge, '--components']).labels.foreground.lesions.counts.lesions, 1);
  });
});

describe('xhd batch --summary', () => {
  const dims: Vec3 = [20, 18, 12], spacing: Vec3 = [1, 1.25, 2];
  const masks = [0, 1, 2, 3].map((n) => write(`batch-${n}`, volume(dims, spacing, (i, j, k) => {
    if (inBox([2 + n, 2, 2], [8 + n, 9, 7 + (n % 2)])(i, j, k)) return 1;
    if (n !== 2 && inBox([12, 3 + n, 3], [17, 12, 8])(i, j, k)) return 2; // mask 2 lacks label 2
    return 0;
  })));
  const reference = write('batch-ref', volume(dims, spacing, (i, j, k) => (inBox([3, 2, 2], [8, 9, 7])(i, j, k) ? 1 : inBox([12, 4, 3], [17, 11, 8])(i, j, k) ? 2 : 0)));
  const manifest = join(dir, 'pairs.csv');
  writeFileSync(manifest, 'a,b\n' + masks.map((m) => `${m},${reference}`).join('\n') + '\n');

  it('gives per label and metric the statistics of the pairs\' values, empty cases counted', () => {
    const summaryCsv = join(dir, 'summary.csv');
    const r = runXhd(['batch', manifest, '--labels', '1,2', '--percentile', '95', '--nsd', '1', '--summary', '--summary-csv', summaryCsv, '--backend', 'cpu', '-q']);
    assert.equal(r.code, 0, r.stderr);
    const records = r.stdout.trim().split('\n').map((line) => JSON.parse(line));
    assert.equal(records.length, 4 + 2);
    const statistics = records[5].statistics;
    assert.ok(records[4].summary, 'the batch summary comes before the statistics');
    for (const label of ['1', '2']) {
      for (const metric of ['hd', 'hd95', 'assd', 'nsd_1']) {
        const values = records.slice(0, 4).map((p) => p.labels[label][metric] as number);
        const n = values.length, mean = values.reduce((s, v) => s + v, 0) / n;
        const sorted = [...values].sort((x, y) => x - y);
        const q = (p: number) => { const h = (n - 1) * p, k = Math.floor(h); return k + 1 < n ? sorted[k] + (h - k) * (sorted[k + 1] - sorted[k]) : sorted[k]; };
        const got = statistics.labels[label][metric];
        assert.equal(got.n, 4);
        assert.equal(got.n_empty, label === '2' ? 1 : 0, `${label} ${metric} n_empty`);
        close(got.mean, mean, `${label} ${metric} mean`);
        close(got.std, Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / n), `${label} ${metric} std`);
        assert.equal(got.median, q(0.5));
        assert.equal(got.q1, q(0.25));
        assert.equal(got.q3, q(0.75));
        assert.equal(got.min, sorted[0]);
        assert.equal(got.max, sorted[n - 1]);
      }
    }
    const csv = readFileSync(summaryCsv, 'utf8').trim().split('\n');
    assert.equal(csv[0], 'label,metric,n,n_empty,n_nan,mean,std,median,q1,q3,min,max');
    const row = csv.find((line) => line.startsWith('2,hd,'))!.split(',');
    assert.equal(Number(row[5]), statistics.labels['2'].hd.mean);
    assert.equal(row[3], '1');
  });

  it('summarises a batch without --labels under the mask\'s name, NaN cases left out and counted', () => {
    const r = runXhd(['batch', manifest, '--label', '2', '--empty', 'nan', '--summary', '--backend', 'cpu', '-q']);
    assert.equal(r.code, 0, r.stderr);
    const records = r.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const hd = records[records.length - 1].statistics.labels['2'].hd;
    assert.deepEqual([hd.n, hd.n_empty, hd.n_nan], [3, 1, 1]);
  });
});

describe('bad input', () => {
  const mask = write('bad-mask', volume([6, 6, 6], [1, 1, 1], (i, j, k) => (inBox([1, 1, 1], [3, 3, 3])(i, j, k) ? 1 : 0)));

  it('refuses τ ≤ 0 and tolerances that are not numbers, exit 2', () => {
    for (const bad of [['--nsd', '0'], ['--nsd', '-1'], ['--fscore', '1,abc'], ['--fscore', ''], ['--nsd', '1,,2'], ['--nsd', 'inf']]) {
      const r = runXhd(['compare', mask, mask, ...bad, '-q']);
      assert.equal(r.code, 2, `${bad.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /tolerances τ > 0/);
      assert.ok(!hasStackTrace(r.stderr));
    }
  });

  it('refuses bad label lists, exit 2', () => {
    for (const bad of ['5-2', 'abc', '0', '1-', '2.5']) {
      const r = runXhd(['compare', mask, mask, '--labels', bad, '-q']);
      assert.equal(r.code, 2, `--labels ${bad}: ${r.stderr}`);
      assert.match(r.stderr, /--labels/);
      assert.ok(!hasStackTrace(r.stderr));
    }
  });

  it('refuses what measures one pair with --labels or --components, and lesions across two grids', () => {
    for (const extra of [['--labels', '1', '--fail-above', '2'], ['--labels', 'all', '--export', join(dir, 'x.csv')], ['--components', '--report', join(dir, 'x.html')]]) {
      const r = runXhd(['compare', mask, mask, ...extra, '-q']);
      assert.equal(r.code, 2, `${extra.join(' ')}: ${r.stderr}`);
      assert.ok(!hasStackTrace(r.stderr));
    }
    const other = write('bad-other-grid', volume([7, 6, 6], [1, 1, 1], (i, j, k) => (inBox([1, 1, 1], [3, 3, 3])(i, j, k) ? 1 : 0)));
    const grids = runXhd(['compare', mask, other, '--components', '-q']);
    assert.equal(grids.code, 2);
    assert.match(grids.stderr, /share one grid/);
    const manifest = join(dir, 'bad-pairs.csv');
    writeFileSync(manifest, `a,b,threshold\n${mask},${mask},1\n`);
    const batch = runXhd(['batch', manifest, '--labels', 'all', '-q']);
    assert.equal(batch.code, 2);
    assert.match(batch.stderr, /thresholds/);
  });

  it('names the file and label that --empty error finds empty', () => {
    const empty = write('bad-empty', volume([6, 6, 6], [1, 1, 1], () => 0));
    const r = runXhd(['compare', empty, mask, '--labels', '1', '--empty', 'error', '-q']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /bad-empty\.nii: label 1 has no voxels/);
  });

  it('refuses --labels on files that are not label volumes, and with --label', () => {
    const xyz = join(dir, 'points.xyz');
    writeFileSync(xyz, '0 0 0\n');
    const r = runXhd(['compare', xyz, mask, '--labels', 'all', '-q']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /points\.xyz is XYZ/);
    const both = runXhd(['compare', mask, mask, '--labels', '1', '--label', '1', '-q']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--label and --labels/);
  });
});

suiteUnless(noGpu, 'every segmentation metric on the CUDA backend equals the CPU backend', () => {
  // Every value of every label (and lesion) from the GPU's per-point search, bit for bit the CPU's: the one
  // native search (xhd_points_compare) is exact on both backends, and the reductions run on the same values.
  const dims: Vec3 = [40, 36, 24], spacing: Vec3 = [0.9, 1.1, 1.6];
  const blob = (shift: number) => (i: number, j: number, k: number) => {
    if (Math.hypot((i - 12 - shift) * 0.9, (j - 14) * 1.1, (k - 10) * 1.6) <= 8) return 1;
    if (inBox([26 + shift, 4, 3], [34, 12 + shift, 14])(i, j, k)) return 2;
    if (Math.hypot(i - 30, j - 28, k - 16 - shift) <= 4 || (shift === 0 && inBox([3, 30, 2], [5, 33, 4])(i, j, k))) return 3;
    return 0;
  };
  const fileA = write('gpu-a', volume(dims, spacing, blob(0))), fileB = write('gpu-b', volume(dims, spacing, blob(1)));
  const strip = (r: Record<string, any>) => {
    const { backend: _b, threads: _t, device: _d, timings_ms: _m, notes: _n, ...rest } = r;
    return rest;
  };

  it('--labels all with the voxel variants', () => {
    const args = ['compare', fileA, fileB, '--labels', 'all', '--percentile', '95', '--nsd', '1,2', '--fscore', '1.5'];
    const gpu = json(args, 'cuda');
    assert.equal(gpu.backend, 'cuda');
    assert.deepEqual(strip(gpu), strip(json(args, 'cpu')));
  });

  it('the surfel variants', () => {
    const args = ['compare', fileA, fileB, '--labels', '1,2', '--percentile', '95', '--percentile-variant', 'surfel',
      '--assd-variant', 'surfel', '--nsd', '1', '--nsd-variant', 'surfel'];
    assert.deepEqual(strip(json(args, 'cuda')), strip(json(args, 'cpu')));
  });

  it('--components', () => {
    const args = ['compare', fileA, fileB, '--components', '--percentile', '95', '--nsd', '1'];
    const gpu = json(args, 'cuda');
    assert.ok(gpu.labels.foreground.lesions.counts.false_positives >= 1, 'the case has a false positive');
    assert.deepEqual(strip(gpu), strip(json(args, 'cpu')));
  });

  it('points mode NSD', () => {
    const args = ['compare', fileA, fileB, '--label', '1', '--nsd', '1,2', '--fscore', '1'];
    const gpu = json(args, 'cuda');
    const cpu = json(args, 'cpu');
    for (const key of ['hd', 'nsd_1', 'nsd_2', 'fscore_1', 'fscore_1_precision', 'fscore_1_recall']) assert.equal(gpu[key], cpu[key], key);
  });
});
