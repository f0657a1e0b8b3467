// `xhd compare --histogram`: the bins, the text lines, and that the CLI prints them on stderr only.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it, test } from 'node:test';

import { binDistances, histogramLines } from '../src/report/histogram.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { rng, uniform } from './random-points.js';
import { cube, uvSphere, writeOff } from './test-meshes.js';

/** The count column of each bin line (`  [lo, hi)  count  bar`). */
function binCounts(lines: string[]): number[] {
  return lines.map((line) => {
    const m = /^ {2}\[\S+, \S+[)\]] +([\d,]+)(?: +#+)?$/.exec(line);
    assert.ok(m, `not a bin line: '${line}'`);
    return Number(m[1].replace(/,/g, ''));
  });
}

test('bins count every distance once; the maximum lands in the last bin, bin edges in the upper bin', () => {
  const distances = new Float64Array([0, 0.05, 0.1, 0.25, 0.5, 0.99, 1]);
  const counts = binDistances(distances, 1, 10);
  assert.equal(counts.length, 10);
  assert.equal(counts.reduce((s, c) => s + c, 0), distances.length);
  assert.deepEqual(counts, [2, 1, 1, 0, 0, 1, 0, 0, 0, 2]); // 0.1 opens bin 1, 0.5 bin 5; 0.99 and 1 share bin 9
});

test('random distances: counts sum to n and the max is in the last bin', () => {
  const random = rng(7);
  const distances = new Float64Array(10_001).map(() => 3 * random());
  let max = 0;
  for (const d of distances) max = Math.max(max, d);
  const counts = binDistances(distances, max, 20);
  assert.equal(counts.reduce((s, c) => s + c, 0), distances.length);
  assert.ok(counts[19] >= 1);
  assert.equal(binDistances(new Float64Array([max]), max, 20)[19], 1);
});

test('lines: a header naming direction and count, 20 bins, bars scaled to the largest bin', () => {
  const distances = new Float64Array(1000).map((_, i) => (i < 900 ? 0.01 : 2)); // 900 near 0, 100 at the max
  distances[0] = 1.85; // one lone far sample must still show a mark
  const lines = histogramLines(distances, 'A → B');
  assert.equal(lines[0], 'A → B distances: 1,000 samples, max 2');
  assert.equal(lines.length, 21);
  assert.deepEqual(binCounts(lines.slice(1)), [899, ...new Array(17).fill(0), 1, 100]);
  assert.match(lines[1], /^ {2}\[0, 0\.1\) +899 {2}#{40}$/);
  assert.match(lines[19], /\[1\.8, 1\.9\) +1 {2}#$/);
  assert.match(lines[20], /\[1\.9, 2\] +100 {2}#{4}$/); // 100/899 of 40, and the last bin is closed
  assert.doesNotMatch(lines[2], /#/);
});

test('all distances 0 (identical surfaces) make one bin', () => {
  const lines = histogramLines(new Float64Array(5), 'B → A', { width: 10 });
  assert.deepEqual(lines, ['B → A distances: 5 samples, max 0', '  [0, 0]  5  ##########']);
});

describe('xhd compare --histogram', () => {
  const dir = scratchDir();
  const a = join(dir, 'cube.off'), b = join(dir, 'sphere.off');
  writeOff(a, cube(1));
  writeOff(b, uvSphere(1.3, 12, 24));

  /** Splits stderr into its histograms: a header line, then bin lines up to a blank line. */
  function histograms(stderr: string): { header: string; counts: number[] }[] {
    return stderr.trimEnd().split('\n\n').map((block) => {
      const [header, ...bins] = block.split('\n');
      return { header, counts: binCounts(bins) };
    });
  }

  it('prints both directions on stderr; stdout stays pure JSON', () => {
    const r = runXhd(['compare', a, b, '--samples', '1000', '--seed', '3', '--json', '--histogram']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    const [ab, ba] = histograms(r.stderr);
    assert.match(ab.header, /^A → B distances: 1,000 samples, max /);
    assert.match(ba.header, /^B → A distances: 1,000 samples, max /);
    assert.equal(ab.header, `A → B distances: 1,000 samples, max ${Number(j.hd_ab.toPrecision(10))}`);
    for (const h of [ab, ba]) {
      assert.equal(h.counts.length, 20);
      assert.equal(h.counts.reduce((s, c) => s + c, 0), 1000);
      assert.ok(h.counts[19] >= 1, 'the witness sample is in the last bin');
    }
  });

  it('--directed prints A → B only', () => {
    const r = runXhd(['compare', a, b, '--samples', '500', '--json', '--histogram', '--directed']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).hd_ba, null);
    const hs = histograms(r.stderr);
    assert.equal(hs.length, 1);
    assert.match(hs[0].header, /^A → B distances: 500 samples/);
  });

  it('is refused in points mode (exit 2)', () => {
    const cloud = join(dir, 'cloud.xyz');
    writeXyz(cloud, uniform(50, 3, rng(4)));
    const r = runXhd(['compare', cloud, cloud, '--histogram']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^xhd: --histogram needs surface mode/);
    assert.equal(r.stdout, '');
  });
});
