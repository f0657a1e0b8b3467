// The compare report's data, computed without a browser: the display sample keeps the worst points, the
// regions group them, the packing round-trips within a step, the colour map is perceptually ordered, and the
// page's data cannot close its <script> element.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { inflateRawSync } from 'node:zlib';

import { distanceStats } from '../src/metrics/distance-stats.js';
import { percentile } from '../src/metrics/order-statistics.js';
import { compareHtml, compareHtmlChunks, scriptSafe } from '../src/report/html/compare-html.js';
import type { CompareReportData } from '../src/report/html/compare-report-data.js';
import { displaySample, largestDistances, largestIndices } from '../src/report/html/display-sample.js';
import { FINE_BINS, reportMarks, summarizeDistances } from '../src/report/html/distance-summary.js';
import { compressible, packBox, packPlanes, quantizeDistances, quantizePoints, QUANT_STEPS, storedDeflate } from '../src/report/html/pack-points.js';
import { oklabAt, oklabToLinearSrgb, perceptualColour, perceptualTable } from '../src/report/html/perceptual-colour-map.js';
import { parseReportRange } from '../src/report/html/report-range.js';
import { worstRegions } from '../src/report/html/worst-regions.js';
import { rng, uniform } from './random-points.js';
import { packedWords } from './report-page.js';

function randomDistances(n: number, seed: number): Float64Array {
  const random = rng(seed);
  // Rounded to a coarse grid so that ties occur and their order is tested too.
  return Float64Array.from({ length: n }, () => Math.round(random() * 500) / 100);
}

describe('display sample', () => {
  it('keeps every point when they fit', () => {
    const s = displaySample(randomDistances(100, 1), 100);
    assert.deepEqual(Array.from(s.indices), Array.from({ length: 100 }, (_, i) => i));
    assert.equal(s.worstKept, 100);
  });

  it('thins to the budget, ascending, always keeping the largest distances', () => {
    const d = randomDistances(20_000, 2);
    const budget = 1000;
    const s = displaySample(d, budget);
    assert.equal(s.indices.length, budget);
    for (let k = 1; k < s.indices.length; k++) assert.ok(s.indices[k] > s.indices[k - 1], 'ascending, no repeats');
    const kept = new Set(s.indices);
    const worst = largestIndices(d, s.worstKept);
    assert.equal(s.worstKept, Math.ceil(budget * 0.05));
    for (const i of worst) assert.ok(kept.has(i), `worst point ${i} kept`);
    // The rest spreads over the whole input: every tenth of it has some points.
    for (let part = 0; part < 10; part++) {
      const inPart = s.indices.filter((i) => i >= part * 2000 && i < (part + 1) * 2000).length;
      assert.ok(inPart >= 80, `part ${part}: ${inPart} points`);
    }
  });

  it('finds the largest distances as a full sort does, ties to the smaller index', () => {
    const d = randomDistances(5000, 3);
    const sorted = Array.from(d.keys()).sort((i, j) => d[j] - d[i] || i - j);
    for (const count of [1, 7, 250, 5000]) assert.deepEqual(largestIndices(d, count), sorted.slice(0, count));
  });

  it('finds them as a full sort does whatever the distribution: spread, tied, tiny, huge, all zero, negative, periodic', () => {
    // Big enough that the sampled bound matters.
    const n = 60_000, random = rng(31);
    const shifted = 0.005; // the benchmark's case: most distances one value within float32 rounding, many exactly tied
    const cases: Record<string, () => number> = {
      uniform: () => random(),
      exponential: () => -Math.log(1 - random()) * 1e-3,
      'coarse ties': () => Math.round(random() * 20) / 10,
      'float32 shift': () => {
        const x = Math.fround(random());
        return random() < 0.6 ? Math.fround(x + shifted) - x : random() * shifted;
      },
      'one value': () => 0.25,
      zeros: () => 0,
      tiny: () => random() * 1e-300,
      huge: () => random() * 1e300,
      'many orders of magnitude': () => 10 ** (random() * 40 - 20),
      'with a negative': () => (random() < 1e-4 ? -1 : random()),
      'with -0': () => (random() < 1e-4 ? -0 : random()),
      // Every 64th the largest, the rest far below: the sampled bound is too high and is lowered.
      periodic: (() => {
        let i = 0;
        return () => (i++ % 64 === 0 ? 1 + random() * 1e-3 : random());
      })(),
    };
    for (const [name, draw] of Object.entries(cases)) {
      const d = Float64Array.from({ length: n }, draw);
      const sorted = Array.from(d.keys()).sort((i, j) => d[j] - d[i] || i - j);
      for (const count of [1, 100, 5000, 25_000, 59_000]) {
        assert.deepEqual(largestIndices(d, count), sorted.slice(0, count), `${name}: ${count}`);
      }
    }
  });

  it('finds the largest as a set in index order and the first of them in order, in one search', () => {
    const d = randomDistances(50_000, 9);
    const sorted = Array.from(d.keys()).sort((i, j) => d[j] - d[i] || i - j);
    for (const [count, ordered] of [[25_000, 5000], [5000, 5000], [300, 0], [50_000, 10]]) {
      const l = largestDistances(d, count, ordered);
      assert.deepEqual(Array.from(l.indices), sorted.slice(0, count).sort((i, j) => i - j), `${count} as a set`);
      assert.deepEqual(l.ordered, sorted.slice(0, ordered), `the first ${ordered} in order`);
    }
  });

  it('takes the largest distances from its caller, with the same sample and regions as without', () => {
    const d = randomDistances(20_000, 7);
    const points = uniform(20_000, 3, rng(8));
    const worst = largestDistances(d, 50, 0).indices; // a budget of 1000 keeps its 50 largest
    assert.deepEqual(displaySample(d, 1000, worst), displaySample(d, 1000));
    assert.deepEqual(displaySample(d, 1000, Array.from(worst).reverse()), displaySample(d, 1000), 'in any order');
    const largest = largestIndices(d, 5000);
    assert.deepEqual(worstRegions(points, d, 10, 0.1, largest), worstRegions(points, d, 10, 0.1));
  });
});

describe('worst regions', () => {
  it('groups the largest distances by place, worst first', () => {
    // Background points at distance 0.1; two bad spots, at x = 0 (distances up to 5) and x = 10 (up to 3).
    const random = rng(4);
    const points = uniform(3000, 3, random, 3, 4); // x in [3, 7]: far from both spots
    const d = new Float64Array(3000).fill(0.1);
    for (let i = 0; i < 20; i++) {
      points.set([0.01 * i, 0, 0], 3 * i);
      d[i] = 5 - 0.01 * i;
      points.set([10 - 0.01 * i, 0, 0], 3 * (100 + i));
      d[100 + i] = 3 - 0.01 * i;
    }
    const regions = worstRegions(points, d, 2, 1);
    assert.equal(regions.length, 2);
    assert.deepEqual([regions[0].index, regions[0].distance, regions[0].members], [0, 5, 20]);
    assert.deepEqual([regions[1].index, regions[1].distance, regions[1].members], [100, 3, 20]);
  });
});

describe('packing', () => {
  it('stores bytes as deflate blocks any inflater reads, and codes them only where that pays', () => {
    const random = rng(13);
    for (const n of [0, 1, 65535, 65536, 200_001]) {
      const bytes = Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
      assert.deepEqual(new Uint8Array(inflateRawSync(storedDeflate(bytes))), bytes, `${n} bytes`);
    }
    const noise = Uint8Array.from({ length: 1 << 20 }, () => Math.floor(random() * 256));
    const steps = Uint16Array.from({ length: 1 << 19 }, (_, i) => Math.floor(i / 100)); // points on a grid: runs
    assert.equal(compressible(noise), false);
    assert.equal(compressible(new Uint8Array(steps.buffer)), true);
    for (const plane of [new Uint16Array(noise.buffer), steps]) {
      const words = packedWords({ packed: packPlanes([plane]) } as CompareReportData);
      assert.deepEqual(words, plane);
    }
    assert.ok(packPlanes([steps]).length <= 0.8 * storedDeflate(new Uint8Array(steps.buffer)).toString('base64').length, 'coded: a fifth smaller than stored at least');
  });

  it('round-trips coordinates within half a step and distances within half a step of the largest', () => {
    const random = rng(5);
    const points = Float64Array.from(uniform(500, 3, random, 500000, 30), (v, i) => (i % 3 === 1 ? v + 4.2e6 : v));
    const d = Float64Array.from({ length: 500 }, () => random() * 2);
    const indices = Uint32Array.from({ length: 250 }, (_, k) => 2 * k);
    const box = packBox([{ points, indices }]);
    const max = Math.max(...d);
    const words = packedWords({ packed: packPlanes([quantizePoints(points, indices, box), quantizeDistances(d, indices, max)]) } as CompareReportData);
    // The distances quantised in the points' pass: the same fourth plane.
    assert.deepEqual(quantizePoints(points, indices, box, { distances: d, max }), Uint16Array.from([...quantizePoints(points, indices, box), ...quantizeDistances(d, indices, max)]));
    assert.equal(words.length, 4 * 250);
    indices.forEach((i, k) => {
      for (let c = 0; c < 3; c++) {
        const back = box.min[c] + words[c * 250 + k] * box.step[c];
        assert.ok(Math.abs(back - points[3 * i + c]) <= box.step[c] / 2 + 1e-9, `point ${i} axis ${c}`);
      }
      assert.ok(Math.abs((words[750 + k] * max) / QUANT_STEPS - d[i]) <= max / QUANT_STEPS / 2 + 1e-12);
    });
  });
});

describe('distance summary', () => {
  it('counts every distance once and marks max, mean and the 95th percentile', () => {
    const d = randomDistances(10_001, 6);
    const s = summarizeDistances(d);
    assert.equal(s.bins.length, FINE_BINS);
    assert.equal(s.bins.reduce((a, b) => a + b, 0), d.length);
    assert.equal(s.max, Math.max(...d));
    assert.ok(Math.abs(s.mean - d.reduce((a, b) => a + b, 0) / d.length) < 1e-12);
    assert.equal(s.p95, percentile(95, d));
  });

  it("marks the statistics' own mean and 95th percentile, reused from the compare or computed natively", async () => {
    const ab = Float64Array.from({ length: 30_001 }, () => Math.random() * 3), ba = Float64Array.from({ length: 20_000 }, () => Math.random() ** 2);
    // What --percentile 95 reports (the TypeScript reference, the same bits as the native call).
    const reference = distanceStats(ab, ba, { percentile: 95 });
    const expected = { ab: { mean: reference.ab.mean, p95: reference.ab.percentile! }, ba: { mean: reference.ba!.mean, p95: reference.ba!.percentile! } };
    assert.deepEqual(await reportMarks(ab, ba, reference), expected, 'reused from the compare (--percentile 95)');
    assert.deepEqual(await reportMarks(ab, ba, null), expected, 'computed: no statistics asked for');
    assert.deepEqual(await reportMarks(ab, ba, distanceStats(ab, ba)), expected, 'computed: --stats without a percentile');
    assert.deepEqual(await reportMarks(ab, ba, distanceStats(ab, ba, { percentile: 99 })), expected, 'computed: another percentile');
    assert.deepEqual(await reportMarks(ab, ba, distanceStats(ab, ba, { percentile: 95, percentileVariant: 'pooled' })), expected, 'computed: the pooled percentile');
    assert.deepEqual(await reportMarks(ab, null, null), { ab: expected.ab, ba: null }, 'directed');
    // The summary with the marks given is the summary computed from the distances alone.
    assert.deepEqual(summarizeDistances(ab, expected.ab), summarizeDistances(ab));
    assert.equal(summarizeDistances(ab).mean, reference.ab.mean);
  });
});

describe('perceptual colour map', () => {
  it('stays inside sRGB and rises in lightness at an even pace', () => {
    let previous = -Infinity;
    const steps: number[] = [];
    for (let i = 0; i <= 100; i++) {
      const lab = oklabAt(i / 100);
      for (const v of oklabToLinearSrgb(lab)) assert.ok(v >= -1e-9 && v <= 1 + 1e-9, `t=${i / 100} in gamut`);
      if (i > 0) steps.push(lab[0] - previous);
      previous = lab[0];
    }
    assert.ok(Math.max(...steps) - Math.min(...steps) < 1e-9, 'equal lightness steps');
    assert.ok(steps[0] > 0);
  });

  it('gives a 256-entry table from dark to light', () => {
    const t = perceptualTable(256);
    assert.equal(t.length, 768);
    assert.deepEqual(Array.from(t.subarray(0, 3)), perceptualColour(0));
    const luma = (k: number) => 0.2126 * t[3 * k] + 0.7152 * t[3 * k + 1] + 0.0722 * t[3 * k + 2];
    assert.ok(luma(255) - luma(0) > 150, 'light end far lighter than the dark end');
  });
});

describe('--report-range', () => {
  it('reads MAX and MIN,MAX', () => {
    assert.deepEqual(parseReportRange('2.5'), [0, 2.5]);
    assert.deepEqual(parseReportRange('0.5, 3'), [0.5, 3]);
  });
  it('refuses anything else', () => {
    for (const bad of ['', 'x', '1,', '3,1', '-1,2', '0', '1,2,3', 'inf']) assert.throws(() => parseReportRange(bad), /expected/, bad);
  });
});

describe('page', () => {
  it('keeps data that contains </script> inside its element', () => {
    const evil = 'a</script><script>alert(1)</script>.xyz';
    assert.doesNotMatch(scriptSafe(JSON.stringify({ path: evil })), /<\/script/i);
    const html = compareHtml({ version: '0', generated: 'now', json: { a: { path: evil }, b: { path: 'b' }, mode: 'points' } } as unknown as CompareReportData, 'void 0;');
    assert.equal(html.match(/<\/script>/g)?.length, 2, 'only the two elements close');
    assert.doesNotMatch(html, /<script>alert/);
  });

  it('writes the packed points as a piece of their own: the same bytes as the page in one string', () => {
    // A path that names the stand-in for the packed points must not be taken for them.
    const evil = 'a "packed":"xhd-packed-points" é.xyz';
    const data = { version: '0', generated: 'now', json: { a: { path: evil }, b: { path: 'b' }, mode: 'points' }, packed: 'AAEC+/9=', sets: [{ path: evil }] } as unknown as CompareReportData;
    const chunks = compareHtmlChunks(data, 'void 0;');
    assert.equal(chunks.length, 3);
    assert.equal(chunks[1].toString('latin1'), data.packed);
    assert.deepEqual(Buffer.concat(chunks), Buffer.from(compareHtml(data, 'void 0;'), 'utf8'));
  });
});
