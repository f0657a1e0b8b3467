// --fail-above and --metric: the exit codes a CI pipeline relies on (0 pass, 1 exceeded, 2 usage error),
// and reports that say which metric crossed which limit.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { runXhd, scratchDir, writeXyz } from './cli-run.js';

// A = (0,0) (1,0) (0,1) (1,1), B = A shifted 0.5 along x: every point of either set has its nearest
// point of the other 0.5 away, so HD = HD95 = mean = RMS = 0.5 and Chamfer (squared, summed over both
// directions' means) = 0.5. The union bounding box is 1.5 × 1: diagonal √3.25.
const dir = scratchDir();
const a = join(dir, 'a.xyz'), b = join(dir, 'b.xyz');
writeXyz(a, Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0));
writeXyz(b, Float32Array.of(0.5, 0, 0, 1.5, 0, 0, 0.5, 1, 0, 1.5, 1, 0));
const diagonal = Math.sqrt(3.25);

const compare = (...args: string[]) => runXhd(['compare', a, b, '--backend', 'cpu', '--quiet', ...args]);

describe('--fail-above', () => {
  it('exits 1 when HD exceeds the limit and 0 when it does not, saying which metric crossed which limit', () => {
    const fail = compare('--fail-above', '0.4');
    assert.equal(fail.code, 1, fail.stderr);
    assert.match(fail.stdout, /FAIL\s+hd 0\.5 > 0\.4 \(--fail-above 0\.4\)/);
    const pass = compare('--fail-above', '0.5');
    assert.equal(pass.code, 0, pass.stderr);
    assert.match(pass.stdout, /pass\s+hd 0\.5 <= 0\.5/);
  });

  it('takes a percentage of the union bounding-box diagonal', () => {
    const limitJust = (100 * 0.5) / diagonal; // 27.735…%
    assert.equal(compare('--fail-above', `${(limitJust - 0.01).toFixed(2)}%`).code, 1);
    const above = Number((limitJust + 0.01).toFixed(2));
    const r = compare('--fail-above', `${above}%`, '--json');
    assert.equal(r.code, 0, r.stderr);
    const t = JSON.parse(r.stdout).threshold;
    assert.equal(t.metric, 'hd');
    assert.equal(t.exceeded, false);
    assert.ok(Math.abs(t.limit - (above / 100) * diagonal) < 1e-12, `${t.limit}`);
  });

  it('checks hd95, mean, rms and chamfer from every point\'s distance', () => {
    for (const [metric, value] of [['hd95', 0.5], ['mean', 0.5], ['rms', 0.5], ['chamfer', 0.5]] as const) {
      const over = compare('--fail-above', String(value - 0.001), '--metric', metric, '--json');
      assert.equal(over.code, 1, `${metric}: ${over.stderr}`);
      const j = JSON.parse(over.stdout);
      assert.equal(j.threshold.metric, metric);
      assert.equal(j.threshold.exceeded, true);
      assert.ok(Math.abs(j.threshold.value - value) < 1e-7, `${metric}: ${j.threshold.value}`);
      assert.equal(compare('--fail-above', String(value + 0.001), '--metric', metric).code, 0, metric);
    }
  });

  it('refuses contradictory or meaningless requests with exit 2', () => {
    for (const args of [
      ['--metric', 'rms'],
      ['--fail-above', '1%', '--metric', 'chamfer'],
      ['--fail-above', '1', '--metric', 'hd95', '--percentile', '99'],
      ['--fail-above', 'abc'],
      ['--fail-above', '-1'],
      ['--fail-above', '1', '--metric', 'median'],
    ]) {
      const r = compare(...args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /\S/);
    }
  });
});
