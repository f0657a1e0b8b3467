// The segmentation metrics' math against references written here from the definitions: NSD and F-score at τ
// (counts and area weights), DeepMind's area-weighted percentile (sort, running share), the dataset
// statistics (NumPy's mean, population std, linear quantiles), the surfel area of every block pattern whose
// surface is planar (worked out by hand: a corner, an edge, a face), connected components at 6, 18 and 26
// connectivity, the dilation, and the --labels syntax.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { toleranceKey, toleranceValues, uniformToleranceValues } from '../src/metrics/surface-tolerance.js';
import { weightedMean, weightedPercentile } from '../src/metrics/surfel-weighted.js';
import { summaryStats } from '../src/metrics/summary-stats.js';
import { blockAreaVectors, surfelAreaTable } from '../src/metrics/surfel-area-table.js';
import { connectedComponents, dilate18 } from '../src/io/connected-components.js';
import { distinctLabels, labelSlots } from '../src/io/label-slots.js';
import { slotSurfaces } from '../src/io/label-surfaces.js';
import { slotSurfels } from '../src/io/surfels.js';
import { parseLabelSelection } from '../src/jobs/label-selection.js';
import { ValueSyntaxError } from '../src/core/errors.js';

/** Deterministic numbers in [0, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('NSD and F-score at a tolerance', () => {
  it('counts the points within τ on each side (voxel variant), the weights with areas (surfel variant)', () => {
    const ab = Float64Array.of(0, 0.5, 1, 2, 3), ba = Float64Array.of(0.2, 1.5, 4);
    const v = toleranceValues(1, ab, ba);
    // A: 3 of 5 within 1 (1 itself counts: ≤ τ), B: 1 of 3.
    assert.equal(v.precision, 3 / 5);
    assert.equal(v.recall, 1 / 3);
    assert.equal(v.nsd, (3 + 1) / (5 + 3));
    assert.equal(v.fscore, (2 * (3 / 5) * (1 / 3)) / (3 / 5 + 1 / 3));
    const wa = Float64Array.of(1, 2, 3, 4, 5), wb = Float64Array.of(0.5, 0.25, 0.25);
    const w = toleranceValues(1, ab, ba, wa, wb);
    assert.equal(w.precision, 6 / 15);
    assert.equal(w.recall, 0.5 / 1);
    assert.equal(w.nsd, (6 + 0.5) / (15 + 1));
  });

  it('gives F = 0 when nothing is within τ, 1 when everything is', () => {
    assert.equal(toleranceValues(0.1, Float64Array.of(1), Float64Array.of(2)).fscore, 0);
    const all = toleranceValues(5, Float64Array.of(1, 2), Float64Array.of(3));
    assert.deepEqual([all.nsd, all.precision, all.recall, all.fscore], [1, 1, 1, 1]);
  });

  it('turns an empty input\'s value into 1, 0 or NaN, and names keys like the percentile\'s', () => {
    assert.equal(uniformToleranceValues(2, 0).nsd, 1);
    assert.equal(uniformToleranceValues(2, 374).fscore, 0);
    assert.ok(Number.isNaN(uniformToleranceValues(2, NaN).nsd));
    assert.equal(uniformToleranceValues(2, Infinity).nsd, 0);
    assert.equal(toleranceKey('nsd', 1), 'nsd_1');
    assert.equal(toleranceKey('fscore', 2.5), 'fscore_2_5');
  });
});

describe('area-weighted distances (DeepMind)', () => {
  /** compute_robust_hausdorff's rule: sort by distance, the first whose running share of the area reaches p. */
  function reference(p: number, d: number[], w: number[]): number {
    const order = d.map((_, i) => i).sort((x, y) => d[x] - d[y]);
    const total = w.reduce((s, x) => s + x, 0);
    let running = 0;
    for (const i of order) {
      running += w[i];
      if (running / total >= p / 100) return d[i];
    }
    return d[order[order.length - 1]];
  }

  it('matches the sort-and-accumulate definition on random data, ties included', () => {
    const random = lcg(7);
    for (let trial = 0; trial < 40; trial++) {
      const n = 1 + Math.floor(random() * 60);
      const d = Array.from({ length: n }, () => Math.floor(random() * 10) / 2); // many ties
      const w = Array.from({ length: n }, () => 0.1 + random());
      for (const p of [0, 5, 50, 95, 99, 100]) {
        assert.equal(weightedPercentile(p, Float64Array.from(d), Float64Array.from(w)), reference(p, d, w), `trial ${trial} p ${p}`);
      }
    }
  });

  it('weights the mean by area', () => {
    assert.equal(weightedMean(Float64Array.of(1, 3), Float64Array.of(3, 1)), (1 * 3 + 3 * 1) / 4);
    assert.ok(Number.isNaN(weightedPercentile(95, new Float64Array(0), new Float64Array(0))));
  });
});

describe('dataset statistics', () => {
  it('gives NumPy\'s mean, std (ddof 0), median and quartiles (linear), min and max, NaN left out', () => {
    const random = lcg(3);
    for (let trial = 0; trial < 20; trial++) {
      const n = 1 + Math.floor(random() * 30);
      const x = Array.from({ length: n }, () => random() * 100 - 20);
      const withNan = [...x, NaN, NaN];
      const s = summaryStats(withNan);
      const mean = x.reduce((a, b) => a + b, 0) / n;
      const std = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
      const sorted = [...x].sort((a, b) => a - b);
      const quantile = (q: number) => {
        const h = (n - 1) * q, k = Math.floor(h);
        return k + 1 < n ? sorted[k] + (h - k) * (sorted[k + 1] - sorted[k]) : sorted[k];
      };
      assert.equal(s.n, n);
      assert.equal(s.nNan, 2);
      assert.ok(Math.abs(s.mean - mean) <= 1e-12 * Math.max(1, Math.abs(mean)));
      assert.ok(Math.abs(s.std - std) <= 1e-12 * Math.max(1, std));
      assert.equal(s.median, quantile(0.5));
      assert.equal(s.q1, quantile(0.25));
      assert.equal(s.q3, quantile(0.75));
      assert.equal(s.min, sorted[0]);
      assert.equal(s.max, sorted[n - 1]);
    }
    const none = summaryStats([NaN]);
    assert.equal(none.n, 0);
    assert.ok(Number.isNaN(none.mean));
  });
});

describe('surfel areas of the block patterns', () => {
  const sx = 0.7, sy = 1.3, sz = 2.9;
  const table = surfelAreaTable([sx, 0, 0, 5, 0, sy, 0, -2, 0, 0, sz, 1]);
  const corner = (b: number) => [b & 1, (b >> 1) & 1, (b >> 2) & 1];
  const bits = (corners: number[]) => corners.reduce((code, b) => code | (1 << b), 0);

  it('is 0 for an empty or a full block', () => {
    assert.equal(table[0], 0);
    assert.equal(table[255], 0);
  });

  it('gives a single corner (or all but one) the triangle cutting it off: ⅛·√(sx²sy² + sy²sz² + sx²sz²)', () => {
    const expected = Math.sqrt(sx * sx * sy * sy + sy * sy * sz * sz + sx * sx * sz * sz) / 8;
    for (let b = 0; b < 8; b++) {
      assert.ok(Math.abs(table[1 << b] - expected) < 1e-12, `corner ${b}`);
      assert.ok(Math.abs(table[255 ^ (1 << b)] - expected) < 1e-12, `all but corner ${b}`);
    }
  });

  it('gives two corners along an edge the rectangle s_edge · ½·hypot(other two spacings), and a face s·s', () => {
    const s = [sx, sy, sz];
    for (let b = 0; b < 8; b++) {
      for (let axis = 0; axis < 3; axis++) {
        if ((b >> axis) & 1) continue;
        const other = [0, 1, 2].filter((a) => a !== axis);
        const edge = s[axis] * Math.hypot(s[other[0]], s[other[1]]) / 2;
        assert.ok(Math.abs(table[bits([b, b | (1 << axis)])] - edge) < 1e-12, `edge ${b}-${axis}`);
        // The face of the block perpendicular to `axis` on b's side: four corners, a rectangle across the block.
        const face = [0, 1, 2, 3, 4, 5, 6, 7].filter((c) => corner(c)[axis] === corner(b)[axis]);
        assert.ok(Math.abs(table[bits(face)] - s[other[0]] * s[other[1]]) < 1e-12, `face ${axis}`);
      }
    }
  });

  it('scales under a rotated affine by the cofactor: a rotation keeps the voxel-space areas times the spacing products', () => {
    const c = Math.cos(0.3), sn = Math.sin(0.3);
    // Rotation about z of diag(sx, sy, sz): the area of any pattern is that of the unrotated one.
    const rotated = surfelAreaTable([c * sx, -sn * sy, 0, 0, sn * sx, c * sy, 0, 0, 0, 0, sz, 0]);
    for (let code = 0; code < 256; code++) assert.ok(Math.abs(rotated[code] - table[code]) < 1e-12, `code ${code}`);
    assert.ok(blockAreaVectors(0b1111_0000).length > 0);
  });
});

describe('connected components', () => {
  const dims: [number, number, number] = [4, 4, 4];
  const at = (i: number, j: number, k: number) => i + 4 * (j + 4 * k);
  const mask = (voxels: [number, number, number][]) => {
    const m = new Uint8Array(64);
    for (const [i, j, k] of voxels) m[at(i, j, k)] = 1;
    return m;
  };

  it('joins voxels across a face at 6, an edge at 18, a corner only at 26', () => {
    const face = mask([[0, 0, 0], [1, 0, 0]]), edge = mask([[0, 0, 0], [1, 1, 0]]), cornerOnly = mask([[0, 0, 0], [1, 1, 1]]);
    assert.equal(connectedComponents(face, dims, 6).count, 1);
    assert.equal(connectedComponents(edge, dims, 6).count, 2);
    assert.equal(connectedComponents(edge, dims, 18).count, 1);
    assert.equal(connectedComponents(cornerOnly, dims, 18).count, 2);
    assert.equal(connectedComponents(cornerOnly, dims, 26).count, 1);
  });

  it('numbers components in scan order of their first voxel, through U-shapes that merge late', () => {
    // A U: its two arms start as two provisional components and meet at j = 2; a lone voxel comes after.
    const m = mask([[0, 0, 0], [2, 0, 0], [3, 1, 2], [0, 1, 0], [2, 1, 0], [0, 2, 0], [1, 2, 0], [2, 2, 0]]);
    const { labels, count } = connectedComponents(m, dims, 6);
    assert.equal(count, 2);
    assert.equal(labels[at(0, 0, 0)], 1);
    assert.equal(labels[at(2, 0, 0)], 1);
    assert.equal(labels[at(3, 1, 2)], 2);
  });

  it('dilates by the 18-connected structure, outside the volume counting as background', () => {
    const grown = dilate18(mask([[0, 0, 0]]), dims, 1);
    const expected = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1]];
    assert.equal(grown.reduce((s, v) => s + v, 0), expected.length);
    for (const [i, j, k] of expected) assert.equal(grown[at(i, j, k)], 1);
    assert.equal(grown[at(1, 1, 1)], 0); // the corner neighbour is not in the 18 structure
    assert.equal(dilate18(mask([[0, 0, 0]]), dims, 2)[at(1, 1, 1)], 1);
  });
});

describe('every label in one pass', () => {
  it('finds each label\'s surface voxels and surfels as one-label passes do', () => {
    const dims: [number, number, number] = [9, 8, 7];
    const random = lcg(11);
    const values = new Uint8Array(9 * 8 * 7).map(() => (random() < 0.5 ? Math.floor(random() * 5) : 0));
    const labels = distinctLabels(values);
    assert.deepEqual(labels, [1, 2, 3, 4]);
    const all = slotSurfaces(labelSlots(values, labels), dims, labels.length);
    const affine = [1.5, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0];
    const surfels = slotSurfels(labelSlots(values, labels), dims, labels.length, affine);
    labels.forEach((label, s) => {
      const alone = slotSurfaces(labelSlots(values, [label]), dims, 1);
      assert.deepEqual(all.surface[s], alone.surface[0], `label ${label} surface voxels`);
      assert.equal(all.voxels[s], values.filter((v) => v === label).length);
      const one = slotSurfels(labelSlots(values, [label]), dims, 1, affine)[0];
      assert.deepEqual(surfels[s], one, `label ${label} surfels`);
    });
  });
});

describe('--labels syntax', () => {
  it('reads all, lists, ranges and mixes', () => {
    assert.equal(parseLabelSelection('all'), 'all');
    assert.deepEqual(parseLabelSelection('3,1,2'), [1, 2, 3]);
    assert.deepEqual(parseLabelSelection('1-5'), [1, 2, 3, 4, 5]);
    assert.deepEqual(parseLabelSelection('7, 1-3, 2'), [1, 2, 3, 7]);
  });

  it('refuses what is not a label list', () => {
    for (const bad of ['', '1-', '5-2', 'a', '1,,2', '0', '1.5', '1-100000', 'all,1']) {
      assert.throws(() => parseLabelSelection(bad), ValueSyntaxError, `'${bad}'`);
    }
  });
});
