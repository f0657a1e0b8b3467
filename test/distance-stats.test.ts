// Percentile Hausdorff distances and average distances: the selection-based percentile against a sort,
// the definitions against hand-worked values, the native per-point distances against the brute
// reference, and `xhd compare --percentile` against a straightforward double-precision reference.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { distanceStats, legacyPercentileKey, percentileKey } from '../src/metrics/distance-stats.js';
import { percentile } from '../src/metrics/order-statistics.js';
import { nearestDistances } from '../src/ops/nearest.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { clustered, rng, uniform, withDuplicates } from './random-points.js';

/** NumPy's default percentile, by sorting. */
function sortedPercentile(p: number, values: number[]): number {
  const x = [...values].sort((u, v) => u - v);
  const h = ((x.length - 1) * p) / 100, k = Math.floor(h);
  return k + 1 < x.length ? x[k] + (h - k) * (x[k + 1] - x[k]) : x[k];
}

/** Each point's nearest distance in double, by brute force. */
function bruteNearest(from: Float32Array, to: Float32Array): Float64Array {
  const out = new Float64Array(from.length / 3);
  for (let i = 0; i < out.length; i++) {
    let best = Infinity;
    for (let j = 0; j < to.length; j += 3) {
      const dx = from[3 * i] - to[j], dy = from[3 * i + 1] - to[j + 1], dz = from[3 * i + 2] - to[j + 2];
      best = Math.min(best, dx * dx + dy * dy + dz * dz);
    }
    out[i] = Math.sqrt(best);
  }
  return out;
}

describe('percentiles', () => {
  it('equal a sort-based reference, with ties, on every size from 1 to 60 and many percentiles', () => {
    const random = rng(3);
    for (let n = 1; n <= 60; n++) {
      // Few distinct values: many ties, the case a partition most easily gets wrong.
      const values = Array.from({ length: n }, () => Math.floor(random() * (n < 10 ? 3 : 12)) / 4);
      for (const p of [0, 1, 5, 33.3, 50, 90, 95, 99, 99.9, 100]) {
        assert.equal(percentile(p, Float64Array.from(values)), sortedPercentile(p, values), `n ${n}, p ${p}`);
      }
    }
  });

  it('interpolate linearly between closest ranks, as NumPy does', () => {
    assert.equal(percentile(50, Float64Array.of(4, 1, 3, 2)), 2.5);
    assert.equal(percentile(95, Float64Array.from({ length: 101 }, (_, i) => 100 - i)), 95);
    assert.equal(percentile(95, Float64Array.from({ length: 100 }, (_, i) => i + 1)), 95.05);
    assert.equal(percentile(40, Float64Array.of(1, 2), Float64Array.of(3, 4, 5)), 2.6); // pooled over both arrays
    assert.ok(Number.isNaN(percentile(50, new Float64Array(0))));
  });

  it('leave the distances in point order', () => {
    const d = Float64Array.of(5, 1, 4, 2, 3);
    percentile(50, d);
    assert.deepEqual([...d], [5, 1, 4, 2, 3]);
  });
});

describe('distance statistics', () => {
  const ab = Float64Array.of(0, 1, 2, 3, 4), ba = Float64Array.of(10, 20);

  it('name and compute each definition', () => {
    const s = distanceStats(ab, ba, { percentile: 50 });
    assert.deepEqual(s.percentile, { p: 50, variant: 'max-of-directed', value: 15 }); // max(2, 15)
    assert.equal(s.ab.mean, 2);
    assert.equal(s.ba!.mean, 15);
    assert.equal(s.assd, 8.5); // (2 + 15) / 2
    assert.equal(s.assdVariant, 'mean-of-means');
    assert.equal(s.rms, Math.sqrt((0 + 1 + 4 + 9 + 16 + 100 + 400) / 7));
    assert.equal(s.chamferSqSum, 530);
    assert.equal(s.chamferSqMean, 30 / 5 + 500 / 2);
    assert.equal(s.ab.max, 4);
  });

  it('offer the pooled variants', () => {
    const s = distanceStats(ab, ba, { percentile: 50, percentileVariant: 'pooled', assdVariant: 'pooled' });
    assert.deepEqual(s.percentile, { p: 50, variant: 'pooled', value: 3 }); // median of 0 1 2 3 4 10 20
    assert.equal(s.assd, 40 / 7);
  });

  it('use one direction when directed', () => {
    const s = distanceStats(ab, null, { percentile: 95 });
    assert.equal(s.percentile!.value, 3.8);
    assert.equal(s.assd, 2);
    assert.equal(s.ba, null);
    assert.equal(s.chamferSqMean, 6);
  });

  it('key percentiles as hd95 or hd_p<P>, a decimal point as an underscore (jq .hd_p99_5)', () => {
    assert.equal(percentileKey(95), 'hd95');
    assert.equal(percentileKey(99), 'hd_p99');
    assert.equal(percentileKey(99.5), 'hd_p99_5');
    assert.equal(legacyPercentileKey(99.5), 'hd_p99.5');
    assert.equal(legacyPercentileKey(99), null);
  });
});

/** A 6 × 6 × 6 lattice of unit spacing, shifted by dx along x. */
function lattice(dx: number): Float32Array {
  const out: number[] = [];
  for (let k = 0; k < 6; k++) for (let j = 0; j < 6; j++) for (let i = 0; i < 6; i++) out.push(i + dx, j, k);
  return Float32Array.from(out);
}

describe('per-point nearest distances (native)', () => {
  it('the grid equals the double-precision reference within 1e-6 relative, with duplicates and clusters', async () => {
    const random = rng(11);
    const cases: [string, Float32Array, Float32Array][] = [
      ['uniform', uniform(3000, 3, random), uniform(2000, 3, random, 0.3)],
      ['clustered with duplicates', withDuplicates(clustered(1500, 3, random), 3, random), clustered(2500, 3, random)],
      ['far apart', uniform(500, 3, random), uniform(700, 3, random, 50, 0.01)],
      // Points of A that are also points of B: distance 0, which the X-HD pruning would settle without a
      // nearest point (a crash before the fix).
      ['sharing points', lattice(0), lattice(1)],
    ];
    for (const [name, a, b] of cases) {
      const want = bruteNearest(a, b);
      const grid = await nearestDistances(a, b, { indices: true, threads: 2 });
      const brute = await nearestDistances(a, b, { method: 'brute', indices: true, threads: 2 });
      for (let i = 0; i < want.length; i++) {
        assert.ok(Math.abs(grid.distances[i] - want[i]) <= 1e-6 * want[i] + 1e-12, `${name}: point ${i}: ${grid.distances[i]} vs ${want[i]}`);
        assert.equal(brute.distances[i], want[i], `${name}: brute, point ${i}`);
        // The index names a point at that distance.
        const j = Number(grid.nearest![i]);
        const dx = a[3 * i] - b[3 * j], dy = a[3 * i + 1] - b[3 * j + 1], dz = a[3 * i + 2] - b[3 * j + 2];
        assert.equal(Math.sqrt(dx * dx + dy * dy + dz * dz), grid.distances[i], `${name}: index of point ${i}`);
      }
    }
  });
});

describe('xhd compare --percentile', () => {
  it('reports HD95 (both variants), ASSD, RMS and Chamfer equal to a reference on the same floats', () => {
    const random = rng(21);
    const a = uniform(1200, 3, random), b = uniform(900, 3, random, 0.2);
    const dir = scratchDir();
    writeXyz(join(dir, 'a.xyz'), a);
    writeXyz(join(dir, 'b.xyz'), b);
    const dab = bruteNearest(a, b), dba = bruteNearest(b, a);
    const close = (got: number, want: number, what: string) => assert.ok(Math.abs(got - want) <= 1e-9 * Math.abs(want), `${what}: ${got} vs ${want}`);
    for (const variant of ['max-of-directed', 'pooled']) {
      const r = runXhd(['compare', join(dir, 'a.xyz'), join(dir, 'b.xyz'), '--percentile', '95', '--percentile-variant', variant, '--json', '--backend', 'cpu']);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      const want = variant === 'pooled'
        ? sortedPercentile(95, [...dab, ...dba])
        : Math.max(sortedPercentile(95, [...dab]), sortedPercentile(95, [...dba]));
      close(j.hd95, want, `hd95 (${variant})`);
      assert.equal(j.percentile_variant, variant);
      const meanAb = dab.reduce((s, d) => s + d, 0) / dab.length, meanBa = dba.reduce((s, d) => s + d, 0) / dba.length;
      close(j.assd, (meanAb + meanBa) / 2, 'assd');
      assert.equal(j.assd_variant, 'mean-of-means');
      const sq = (x: Float64Array) => x.reduce((s, d) => s + d * d, 0);
      close(j.rms, Math.sqrt((sq(dab) + sq(dba)) / (dab.length + dba.length)), 'rms');
      close(j.chamfer_sq_mean, sq(dab) / dab.length + sq(dba) / dba.length, 'chamfer_sq_mean');
      close(j.hd, Math.max(...dab, ...dba), 'hd');
    }
    const text = runXhd(['compare', join(dir, 'a.xyz'), join(dir, 'b.xyz'), '--percentile', '95', '--quiet', '--backend', 'cpu']);
    assert.match(text.stdout, /HD95\s+\S+.*max-of-directed, linear interpolation/);
    assert.match(text.stdout, /ASSD\s+\S+\s+mean-of-means/);
  });

  it('refuses a percentile outside 0…100 with a usage error', () => {
    const r = runXhd(['compare', 'a.xyz', 'b.xyz', '--percentile', '101']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /percentile from 0 to 100/);
  });
});
