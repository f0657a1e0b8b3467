// How many pairs of a batch run at once on each GPU (--lanes): four for a batch of volume masks by default,
// one otherwise, each GPU's lanes interleaved; --lanes is checked like every option. The lanes' answers on a
// GPU are checked in placement-cuda.test.ts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { batchBackend, batchLanesPerDevice, interleavedLanes, MASK_LANES, type BatchPair } from '../src/jobs/batch.js';
import type { CompareOptions } from '../src/jobs/compare.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz } from './cli-run.js';

const pair = (a: string, b: string, line = 2): BatchPair => ({ row: { line, a, b, pathA: `/d/${a}`, pathB: `/d/${b}`, fields: {} } as BatchPair['row'], metric: 'hd' });

describe('batch lanes', () => {
  it('a batch of volume masks gets MASK_LANES lanes a GPU, anything else one, --lanes overrides both', () => {
    const masks = [pair('a.nii.gz', 'b.nii.gz'), pair('c.nrrd', 'd.nhdr', 3), pair('e.mha', 'f.mhd', 4), pair('g.nii', 'h.nii', 5)];
    assert.equal(MASK_LANES, 4);
    assert.equal(batchLanesPerDevice(masks, undefined), MASK_LANES);
    assert.equal(batchLanesPerDevice([...masks, pair('scan.ply', 'ref.ply', 6)], undefined), 1); // one point cloud
    assert.equal(batchLanesPerDevice([pair('a.nii.gz', 'b.ply')], undefined), 1);
    assert.equal(batchLanesPerDevice([masks[0]], undefined), 1); // one pair: nothing to overlap
    assert.equal(batchLanesPerDevice(masks, 1), 1);
    assert.equal(batchLanesPerDevice([pair('a.ply', 'b.ply')], 3), 3);
  });

  it('auto is decided for the whole batch (its pairs then run there, small masks included); a named backend stays', () => {
    const compare = (backend?: CompareOptions['backend']) => ({ method: 'grid', directed: false, backend }) as CompareOptions;
    assert.equal(batchBackend(compare('auto'), 'cuda').backend, 'cuda');
    assert.equal(batchBackend(compare(undefined), 'cuda').backend, 'cuda');
    assert.equal(batchBackend(compare('auto'), 'cpu').backend, 'cpu');
    for (const named of ['cpu', 'cuda', 'optix'] as const) assert.equal(batchBackend(compare(named), 'cuda').backend, named);
  });

  it('lanes interleave the GPUs, so the first pairs go to different ones', () => {
    assert.deepEqual(interleavedLanes([0, 1], 2), [0, 1, 0, 1]);
    assert.deepEqual(interleavedLanes([2], 4), [2, 2, 2, 2]);
    assert.deepEqual(interleavedLanes([0, 1, 2], 1), [0, 1, 2]);
  });

  it('--lanes takes a whole number from 1 to 64, else exit 2 before anything runs; the CPU backend has no lanes', () => {
    const dir = scratchDir();
    writeXyz(join(dir, 'a.xyz'), Float32Array.of(0, 0, 0, 1, 0, 0));
    writeXyz(join(dir, 'b.xyz'), Float32Array.of(0.5, 0, 0, 1.5, 0, 0));
    const manifest = join(dir, 'pairs.csv');
    writeFileSync(manifest, 'a,b\na.xyz,b.xyz\nb.xyz,a.xyz\n');
    for (const bad of ['0', '65', '1.5', 'x']) {
      const r = runXhd(['batch', manifest, '--backend', 'cpu', '--quiet', '--lanes', bad]);
      assert.equal(r.code, 2, `--lanes ${bad}: ${r.stderr}`);
      assert.match(r.stderr, /--lanes/);
      assert.equal(r.stdout, '');
      assert.ok(!hasStackTrace(r.stderr));
    }
    const plain = runXhd(['batch', manifest, '--backend', 'cpu', '--quiet']);
    const laned = runXhd(['batch', manifest, '--backend', 'cpu', '--quiet', '--lanes', '3']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(laned.code, 0, laned.stderr);
    const answers = (text: string) => text.trim().split('\n').slice(0, -1).map((l) => { const o = JSON.parse(l); return [o.line, o.hd, o.witness_ab]; });
    assert.deepEqual(answers(laned.stdout), answers(plain.stdout));
    assert.deepEqual(answers(plain.stdout).map((a) => a[1]), [0.5, 0.5]);
  });
});
