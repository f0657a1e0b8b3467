// xhd_host_alloc through src/native/host-memory.ts: memory of the library's that a compare reads like any other
// (the CPU library's plain, the GPU libraries' page-locked: placement-cuda.test.ts checks those).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { loadBackend } from '../src/native/library.js';
import { allocateHostFloats } from '../src/native/host-memory.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { rng, uniform } from './random-points.js';

describe('host memory from the library (xhd_host_alloc)', () => {
  const cpu = loadBackend('cpu');

  it('holds what is written and gives the compare of the same points in JavaScript memory', async () => {
    const a = uniform(20_000, 3, rng(7)), b = uniform(15_000, 3, rng(8), 0.03);
    const ha = allocateHostFloats(cpu, a.length), hb = allocateHostFloats(cpu, b.length);
    try {
      assert.equal(ha.array.length, a.length);
      ha.array.set(a);
      hb.array.set(b);
      assert.deepEqual(Array.from(ha.array.subarray(0, 6)), Array.from(a.subarray(0, 6)));
      const plain = await pointsSearch(a, b, { backend: 'cpu' });
      const held = await pointsSearch(ha.array, hb.array, { backend: 'cpu' });
      assert.equal(held.hd, plain.hd);
      assert.deepEqual([held.ab.fromIndex, held.ab.toIndex, held.ba?.fromIndex, held.ba?.toIndex],
        [plain.ab.fromIndex, plain.ab.toIndex, plain.ba?.fromIndex, plain.ba?.toIndex]);
    } finally {
      ha.free();
      hb.free();
      ha.free();  // a second free does nothing
    }
  });

  it('an empty allocation is an empty array, and a count that is no count is refused', () => {
    const none = allocateHostFloats(cpu, 0);
    assert.equal(none.array.length, 0);
    none.free();
    assert.throws(() => allocateHostFloats(cpu, -3), RangeError);
    assert.throws(() => allocateHostFloats(cpu, 1.5), RangeError);
  });
});
