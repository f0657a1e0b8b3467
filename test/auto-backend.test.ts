// --backend auto on a pair of voxel masks: decided after reading, by whether the CPU search of their surface points
// ends before a GPU would have started (src/ops/auto-backend.ts). Small pairs stay on the CPU and say so; the
// rule's arithmetic at its edges; point clouds and explicit backends are not touched by it.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { compareFiles } from '../src/jobs/compare.js';
import { cpuBeatsGpuStart } from '../src/ops/auto-backend.js';
import { cudaDevicePossible } from '../src/ops/gpu-presence.js';
import { scratchDir } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';

const dir = scratchDir();

/** A cube of side `side` voxels inside a grid of n³, offset by `shift` voxels along x. */
function cube(n: number, side: number, shift: number): Uint8Array {
  const values = new Uint8Array(n * n * n);
  const lo = Math.floor((n - side) / 2);
  for (let k = lo; k < lo + side; k++) for (let j = lo; j < lo + side; j++) for (let i = lo + shift; i < lo + side + shift; i++) values[i + n * (j + n * k)] = 1;
  return values;
}

describe('--backend auto for voxel masks', () => {
  it('the rule: the CPU while its search is expected to end before a GPU starts (150 ms)', () => {
    assert.equal(cpuBeatsGpuStart(117_000, 16), true, 'a BraTS-sized pair on 16 cores: about 22 ms');
    assert.equal(cpuBeatsGpuStart(117_000, 1), false, 'the same on one core: 351 ms');
    assert.equal(cpuBeatsGpuStart(2_000_000, 16), false, '2M surface points on 16 cores: 375 ms');
    assert.equal(cpuBeatsGpuStart(49_999, 1), true);
    assert.equal(cpuBeatsGpuStart(50_000, 1), false, 'exactly at the start: the GPU');
  });

  it('a small pair runs on the CPU and says why; the same answer as --backend cpu', async () => {
    const a = join(dir, 'auto-a.nii.gz'), b = join(dir, 'auto-b.nii.gz');
    writeNifti(a, { dims: [20, 20, 20], values: cube(20, 8, 0), gzip: true });
    writeNifti(b, { dims: [20, 20, 20], values: cube(20, 8, 2), gzip: true });
    const auto = await compareFiles(a, b, { method: 'grid', directed: false, backend: 'auto', threads: 2, percentile: 95 });
    const cpu = await compareFiles(a, b, { method: 'grid', directed: false, backend: 'cpu', threads: 2, percentile: 95 });
    assert.equal(auto.backend, 'cpu');
    assert.ok(auto.notes.some((n) => n.startsWith('--backend auto searched on the CPU: ')), auto.notes.join('\n'));
    assert.ok(!cpu.notes.some((n) => n.startsWith('--backend auto')), 'an explicit --backend cpu has no such note');
    assert.equal(auto.hd, cpu.hd);
    assert.deepEqual(auto.stats, cpu.stats);
  });

  it('without an NVIDIA device file, auto never loads the CUDA library (nor starts it for two masks)', { skip: (process.platform !== 'linux' || cudaDevicePossible()) && 'a GPU may be here (an NVIDIA device file exists), or /proc/self/maps is not there' }, async () => {
    const a = join(dir, 'nogpu-a.nii.gz'), b = join(dir, 'nogpu-b.nii.gz');
    writeNifti(a, { dims: [20, 20, 20], values: cube(20, 8, 0), gzip: true });
    writeNifti(b, { dims: [20, 20, 20], values: cube(20, 8, 2), gzip: true });
    // One thread: the pair's CPU estimate then exceeds a GPU's start, so auto would start the GPU if it could.
    const r = await compareFiles(a, b, { method: 'grid', directed: false, backend: 'auto', threads: 1, percentile: 95 });
    const xyz = join(dir, 'nogpu.xyz');
    writeFileSync(xyz, '0 0 0\n1 0 0\n');
    await compareFiles(xyz, xyz, { method: 'grid', directed: false, backend: 'auto', threads: 1 });
    assert.equal(r.backend, 'cpu');
    assert.ok(!readFileSync('/proc/self/maps', 'utf8').includes('libxhd_cuda.so'), 'the CUDA library is not mapped');
  });

  it('point clouds are not decided by it', async () => {
    const a = join(dir, 'auto-a.xyz'), b = join(dir, 'auto-b.xyz');
    writeFileSync(a, '0 0 0\n1 0 0\n');
    writeFileSync(b, '0 0 1\n');
    const r = await compareFiles(a, b, { method: 'grid', directed: false, backend: 'auto', threads: 1 });
    assert.ok(!r.notes.some((n) => n.startsWith('--backend auto')), r.notes.join('\n'));
  });
});
