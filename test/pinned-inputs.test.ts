// xhd_host_pin through src/native/pinned-inputs.ts on the CPU library (which reads inputs in place and pins
// nothing): the calls and their refusals. The GPU libraries' page-locking: placement-cuda.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { loadBackend } from '../src/native/library.js';
import { PIN_FROM_BYTES, pinInputs } from '../src/native/pinned-inputs.js';
import { pointsSearch } from '../src/ops/points-search.js';
import { rng, uniform } from './random-points.js';

describe('pinned inputs (xhd_host_pin)', () => {
  const cpu = loadBackend('cpu');

  it('arrays pinned and unpinned around a compare give its answer', async () => {
    const a = uniform(200_000, 3, rng(7)), b = uniform(150_000, 3, rng(8), 0.03);  // a above PIN_FROM_BYTES
    const plain = await pointsSearch(a, b, { backend: 'cpu' });
    assert.ok(a.byteLength >= PIN_FROM_BYTES);
    const pinned = pinInputs(cpu, [a, b, new Float32Array(0)]);
    assert.equal(pinned.pinned, 2);  // the empty array is left alone
    assert.equal(pinned.refused, '');
    try {
      const held = await pointsSearch(a, b, { backend: 'cpu' });
      assert.equal(held.hd, plain.hd);
      assert.deepEqual([held.ab.fromIndex, held.ab.toIndex], [plain.ab.fromIndex, plain.ab.toIndex]);
    } finally {
      pinned.unpin();
      pinned.unpin();  // a second unpin does nothing
    }
  });

  it('a null pointer is refused by the library, as every backend does', () => {
    const status = cpu.hostPin(null, 12) as number;
    assert.notEqual(status, 0);
    assert.match(cpu.lastError(), /memory must not be null/);
  });
});
