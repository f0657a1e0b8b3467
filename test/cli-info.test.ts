// `xhd info`: what a reader makes of a file.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { runXhd, scratchDir } from './cli-run.js';
import { sharedData } from './helpers.js';

describe('xhd info', () => {
  it('--json gives format, counts, dims and bounds', () => {
    const dir = scratchDir();
    const file = join(dir, 'tri.off');
    writeFileSync(file, 'OFF\n4 2 0\n0 0 0\n2 0 0\n0 3 0\n0 0 -1\n3 0 1 2\n3 0 1 3\n');
    const r = runXhd(['info', file, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.format, 'off');
    assert.equal(j.points, 4);
    assert.equal(j.triangles, 2);
    assert.equal(j.dims, 3);
    assert.deepEqual(j.bounds, { min: [0, 0, -1], max: [2, 3, 0] });
  });

  it('the human form lists the same facts', { skip: !sharedData('points/building.ply') && 'no ../shared/data' }, () => {
    const r = runXhd(['info', sharedData('points/building.ply')!]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /format {5}PLY/);
    assert.match(r.stdout, /points {5}100,000/);
    assert.match(r.stdout, /dims {7}3D/);
  });
});
