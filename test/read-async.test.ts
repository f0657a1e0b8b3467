// The commands' readGeometryAsync (src/io/read-async.ts) reads a file named as a volume through the mask readers
// alone and anything else through read.ts: the same geometry, or the same error, as read.ts's own readers give.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readGeometryAsync } from '../src/io/read-async.js';
import { readGeometry, readGeometryAsync as readAllAsync } from '../src/io/read.js';
import { scratchDir } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';

const dir = scratchDir();

async function sameOutcome(path: string, options: Parameters<typeof readGeometry>[1] = {}): Promise<void> {
  const outcome = async (read: () => unknown) => {
    try {
      return { value: await read() };
    } catch (error) {
      return { error: (error as Error).message, kind: (error as Error).constructor.name };
    }
  };
  const got = await outcome(() => readGeometryAsync(path, options));
  assert.deepEqual(got, await outcome(() => readAllAsync(path, options)), `${path}: as read.ts's readGeometryAsync`);
  assert.deepEqual(got, await outcome(() => readGeometry(path, options)), `${path}: as read.ts's readGeometry`);
}

describe('readGeometryAsync of the commands', () => {
  it('masks (with a label, a region, point filters) and point clouds: the same geometry', async () => {
    const values = new Uint8Array(10 * 9 * 8);
    for (let n = 0; n < values.length; n++) values[n] = (n * 7) % 5 === 0 ? 2 : n % 11 === 0 ? 1 : 0;
    const nifti = join(dir, 'mask.nii.gz');
    writeNifti(nifti, { dims: [10, 9, 8], values, gzip: true, spacing: [0.5, 1, 2] });
    await sameOutcome(nifti);
    await sameOutcome(nifti, { mask: { label: 2, region: 'all' } });
    await sameOutcome(nifti, { mask: { label: 1 }, filters: { bbox: { min: [0, 0, 0], max: [3, 4, 8] }, every: 2, scan: 1 } });
    const xyz = join(dir, 'points.xyz');
    writeFileSync(xyz, '0 0 0\n1 2 3\n4 5 6\n');
    await sameOutcome(xyz);
  });

  it('a missing file, a mask whose bytes are not NIfTI, a format given: the same error', async () => {
    await sameOutcome(join(dir, 'absent.nii.gz'));
    const garbage = join(dir, 'garbage.nii');
    writeFileSync(garbage, 'not a NIfTI header at all');
    await sameOutcome(garbage);
    await sameOutcome(join(dir, 'points.xyz'), { format: 'nifti' });
  });
});
