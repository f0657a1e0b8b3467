// The sums behind mean, RMS, ASSD and Chamfer are exact, rounded once: exactSum against a BigInt reference written
// here (ties included); then xhd_distance_stats on the CPU library (1 to 3 threads) and on the GPU libraries (where a
// GPU is usable) against the TypeScript distanceStats, bit for bit: maxima, sums, percentiles of both variants.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { distanceStats, type DistanceStats, type StatsOptions } from '../src/metrics/distance-stats.js';
import { exactSum, exactSumOfSquares } from '../src/metrics/exact-sum.js';
import { probeBackend } from '../src/ops/backends.js';
import { nativeDistanceStats } from '../src/ops/distance-stats-native.js';
import { rng } from './random-points.js';
import { toleranceValues, toleranceValuesOf } from '../src/metrics/surface-tolerance.js';

/** v as m · 2^e with integer m (exact), through its bits. */
function decompose(v: number): { m: bigint; e: number } {
  const bits = new DataView(Float64Array.of(v).buffer).getBigUint64(0, true);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  return biased === 0 ? { m: fraction, e: -1074 } : { m: fraction | (1n << 52n), e: biased - 1075 };
}

/** The exact sum as an integer multiple of 2^-1074, rounded to the nearest double, ties to even: the reference. */
function referenceSum(values: number[]): number {
  let total = 0n;
  for (const v of values) {
    const { m, e } = decompose(v);
    total += m << BigInt(e + 1074);
  }
  if (total === 0n) return 0;
  const bitsIn = total.toString(2).length;
  // Keep 53 significant bits (or the 2^-1074 grid for a subnormal total), round the rest half to even.
  const drop = Math.max(0, bitsIn - 53);
  let kept = total >> BigInt(drop);
  const rest = total - (kept << BigInt(drop));
  const half = drop > 0 ? 1n << BigInt(drop - 1) : 0n;
  if (drop > 0 && (rest > half || (rest === half && (kept & 1n) === 1n))) kept += 1n;
  return Number(kept) * 2 ** (drop - 1074); // exact: kept has at most 53 bits, and the scale is a power of two
}

function bitsEqual(a: number, b: number): boolean {
  return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
}

/** Random nonnegative doubles of widely spread magnitudes, subnormals and exact ties among them. */
function awkwardValues(seed: number, n: number): number[] {
  const random = rng(seed);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const kind = random();
    if (kind < 0.05) out.push(Number.MIN_VALUE * Math.floor(1 + random() * 1000)); // subnormals
    else if (kind < 0.1) out.push(2 ** Math.floor(-60 * random())); // powers of two, for ties
    else out.push(random() * 2 ** Math.floor(80 * random() - 40));
  }
  return out;
}

describe('exact sums: the BigInt reference bit for bit', () => {
  it('ties round to even, and the smaller values decide a tie', () => {
    assert.equal(exactSum([1, 2 ** -53]), 1, '1 + 2^-53 is a tie: to even (1)');
    assert.equal(exactSum([1 + 2 ** -52, 2 ** -53]), 1 + 2 ** -51, 'a tie with an odd last bit rounds up');
    assert.equal(exactSum([1, 2 ** -53, 2 ** -105]), 1 + 2 ** -52, 'just above the tie');
    assert.equal(exactSum([2 ** -53, 1, 2 ** -53]), 1 + 2 ** -52, 'two halves make an ulp, in any order');
    assert.equal(exactSum([]), 0);
    assert.equal(exactSum([Number.MIN_VALUE, Number.MIN_VALUE]), 2 * Number.MIN_VALUE);
  });

  it('random values of every magnitude, in several orders', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const values = awkwardValues(seed, 1 + seed * 37);
      const want = referenceSum(values);
      assert.ok(bitsEqual(exactSum(values), want), `seed ${seed}: ${exactSum(values)} against ${want}`);
      assert.ok(bitsEqual(exactSum([...values].reverse()), want), `seed ${seed} reversed`);
      const squares = values.map((v) => v * v);
      assert.ok(bitsEqual(exactSumOfSquares(values), referenceSum(squares)), `seed ${seed} squares`);
    }
  });
});

function assertSameStats(got: DistanceStats, want: DistanceStats, label: string): void {
  const flat = (s: DistanceStats) => JSON.stringify(s, (_, v) => (typeof v === 'number' ? (Object.is(v, -0) ? '-0' : String(v)) : v));
  assert.equal(flat(got), flat(want), label);
}

/** Distances like a mask compare's (many equal ones, a few far) and awkward ones; sizes across the 2^16 block. */
function distanceSets(): Array<{ label: string; ab: Float64Array; ba: Float64Array | null }> {
  const random = rng(5);
  const grid = (n: number) => Float64Array.from({ length: n }, () => Math.sqrt(Math.floor(random() * 30))); // voxel distances
  return [
    { label: 'one each', ab: Float64Array.of(3), ba: Float64Array.of(0) },
    { label: 'voxel-like 1,000 / 777', ab: grid(1000), ba: grid(777) },
    { label: 'voxel-like 150,001 / 70,000', ab: grid(150_001), ba: grid(70_000) },
    { label: 'awkward 5,000 / 4,999', ab: Float64Array.from(awkwardValues(9, 5000)), ba: Float64Array.from(awkwardValues(10, 4999)) },
    { label: 'directed 65,537', ab: Float64Array.from(awkwardValues(11, 65_537)), ba: null },
  ];
}

const REQUESTS: StatsOptions[] = [
  {}, { percentile: 95 }, { percentile: 0 }, { percentile: 100 }, { percentile: 99.5, percentileVariant: 'pooled', assdVariant: 'pooled' },
  { percentile: 50, percentileVariant: 'pooled' },
];

/** τ on distances exactly (√5 and √9 are voxel-like distances), between them, 0, and above every one. */
const TAUS = [Math.sqrt(5), 0, 1.5, 3, 1e300, 2 ** -20];

/** How many of d are <= τ, counted plainly. */
function plainWithin(d: Float64Array | null, tau: number): number {
  let n = 0;
  for (const v of d ?? []) if (v <= tau) n++;
  return n;
}

/** The native counts against plain ones, and the NSD / F-score from them against toleranceValues bit for bit. */
async function assertCounts(ab: Float64Array, ba: Float64Array | null, run: Parameters<typeof nativeDistanceStats>[3], label: string): Promise<void> {
  const got = await nativeDistanceStats(ab, ba, {}, { ...run, tolerances: TAUS });
  assert.ok(got.within, label);
  TAUS.forEach((tau, t) => {
    assert.equal(got.within!.ab[t], plainWithin(ab, tau), `${label} ab τ=${tau}`);
    assert.equal(got.within!.ba[t] ?? 0, plainWithin(ba, tau), `${label} ba τ=${tau}`);
    if (ba) {
      const want = toleranceValues(tau, ab, ba);
      const fromCounts = toleranceValuesOf(tau, { near: got.within!.ab[t], total: ab.length }, { near: got.within!.ba[t], total: ba.length });
      assert.deepEqual(fromCounts, want, `${label} values τ=${tau}`);
    }
  });
}

describe('xhd_distance_stats on the CPU library: the TypeScript statistics bit for bit', () => {
  it('counts the distances within each tolerance (NSD, F-score) as TypeScript does', async () => {
    for (const { label, ab, ba } of distanceSets()) {
      for (const threads of [1, 3]) await assertCounts(ab, ba, { backend: 'cpu', threads }, `${label} ${threads} threads`);
    }
    await assert.rejects(nativeDistanceStats(Float64Array.of(1), Float64Array.of(1), {}, { backend: 'cpu', tolerances: [-1] }), /tolerance 0 is negative or not finite/);
  });


  it('every set, request and thread count', async () => {
    for (const { label, ab, ba } of distanceSets()) {
      for (const options of REQUESTS) {
        const want = distanceStats(ab, ba, options);
        for (const threads of [1, 2, 3]) {
          const got = await nativeDistanceStats(ab, ba, options, { backend: 'cpu', threads });
          assertSameStats(got.stats, want, `${label} ${JSON.stringify(options)} ${threads} threads`);
        }
      }
    }
  });

  it('refuses a negative or non-finite distance, naming it', async () => {
    await assert.rejects(nativeDistanceStats(Float64Array.of(1, -2, 3), null, {}, { backend: 'cpu' }), /distance 1 is negative or not finite/);
    await assert.rejects(nativeDistanceStats(Float64Array.of(1, 2), Float64Array.of(NaN), {}, { backend: 'cpu' }), /distance 0 is negative or not finite/);
  });
});

for (const backend of ['cuda', 'optix'] as const) {
  const status = probeBackend(backend);
  const skip = status.available ? false : `no usable ${backend} backend (${(status.reason ?? '').split('\n')[0]})`;
  describe(`xhd_distance_stats on the ${backend} library: the CPU library's statistics bit for bit`, { skip }, () => {
    it('every set and request', async () => {
      for (const { label, ab, ba } of distanceSets()) {
        for (const options of REQUESTS) {
          const want = await nativeDistanceStats(ab, ba, options, { backend: 'cpu' });
          const got = await nativeDistanceStats(ab, ba, options, { backend, device: 0 });
          assertSameStats(got.stats, want.stats, `${backend} ${label} ${JSON.stringify(options)}`);
          assertSameStats(got.stats, distanceStats(ab, ba, options), `${backend} ${label} against TypeScript`);
        }
      }
    });

    it('counts the distances within each tolerance as the CPU library does', async () => {
      for (const { label, ab, ba } of distanceSets()) await assertCounts(ab, ba, { backend, device: 0 }, `${backend} ${label}`);
      const many = Array.from({ length: 5000 }, (_, t) => t / 1000); // more τ than one launch's shared counters
      const ab = distanceSets()[2].ab, ba = distanceSets()[2].ba;
      const got = await nativeDistanceStats(ab, ba, {}, { backend, device: 0, tolerances: many });
      const want = await nativeDistanceStats(ab, ba, {}, { backend: 'cpu', tolerances: many });
      assert.deepEqual(got.within, want.within);
    });

    it('refuses a negative or non-finite distance, naming the first', async () => {
      const values = new Float64Array(100_000).fill(1);
      values[70_000] = -1;
      values[90_000] = Infinity;
      await assert.rejects(nativeDistanceStats(values, null, {}, { backend, device: 0 }), /distance 70000 is negative or not finite/);
    });
  });
}
