// The fast methods must equal the double-precision brute force on the same floats exactly: distances and
// witnesses, ties to the smallest index (the float searches are filters settled in double).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { hausdorff, type HausdorffResult, type Method } from '../src/ops/hausdorff.js';
import { AGREEMENT_CASES as cases } from './agreement-cases.js';
import { assertWitnesses } from './assert-hausdorff.js';
import { clustered, rng, shifted, uniform } from './random-points.js';

function assertSame(r: HausdorffResult, reference: HausdorffResult, label: string) {
  for (const [got, want, name] of [[r.ab, reference.ab, 'A→B'], [r.ba!, reference.ba!, 'B→A']] as const) {
    assert.deepEqual([got.distance, got.fromIndex, got.toIndex], [want.distance, want.fromIndex, want.toIndex], `${label} ${name}`);
  }
  assert.equal(r.hd, reference.hd, `${label} HD`);
}

async function checkAgainstBrute(label: string, a: Float32Array, b: Float32Array, methods: Method[] = ['grid', 'eb']) {
  const reference = await hausdorff(a, b, { method: 'brute' });
  assertWitnesses(reference, a, b, `${label} brute`);
  for (const method of methods) {
    const r = await hausdorff(a, b, { method });
    assertSame(r, reference, `${label} ${method}`);
  }
}

describe('grid and eb agree with the double-precision brute force', () => {
  for (const dims of [3, 2] as const) {
    for (const c of cases) {
      for (const n of [1, 2, 17, 1000, 12000]) {
        it(`${c.name}, ${dims}D, ${n} points`, async () => {
          const [a, b] = c.make(n, dims, 1000 * n + dims);
          await checkAgainstBrute(`${c.name} ${dims}D n=${n}`, a, b);
        });
      }
    }
  }

  it('uniform 3D at 50k points per side (grid only; eb on near-ties is quadratic)', async () => {
    const r = rng(50_000);
    const a = uniform(50_000, 3, r);
    await checkAgainstBrute('uniform 3D n=50k', a, shifted(uniform(50_000, 3, r), 0.01), ['grid']);
  });

  it('sets of very different sizes', async () => {
    const r = rng(7);
    await checkAgainstBrute('1 vs 20k', uniform(1, 3, r), uniform(20_000, 3, r));
    await checkAgainstBrute('20k vs 3', clustered(20_000, 3, r), uniform(3, 3, r));
  });

  it('every point identical', async () => {
    const a = new Float32Array(3 * 500).fill(0.25);
    const b = new Float32Array(3 * 300).fill(0.75);
    await checkAgainstBrute('all identical', a, b);
    const r = await hausdorff(a, a.slice(), { method: 'grid' });
    assert.equal(r.hd, 0);
  });

  it('A equal to B gives exactly 0 with every method', async () => {
    const a = clustered(5000, 3, rng(11));
    for (const method of ['grid', 'eb', 'brute'] as const) {
      const r = await hausdorff(a, a.slice(), { method });
      assert.equal(r.hd, 0, method);
    }
  });

  it('large coordinates with small separations keep their relative accuracy', async () => {
    const r = rng(3);
    const a = uniform(3000, 3, r, 1e6, 10);
    for (let i = 0; i < a.length; i += 3) { a[i + 1] += 1e6; a[i + 2] -= 1e6; }
    await checkAgainstBrute('offset by 1e6', a, shifted(a, 0.125));
  });

  it('a flat (planar) set embedded in 3D', async () => {
    const r = rng(5);
    const a = uniform(8000, 2, r);
    const b = uniform(8000, 3, r);
    for (let i = 2; i < b.length; i += 3) b[i] *= 1e-3; // nearly flat slab
    await checkAgainstBrute('plane vs slab', a, b);
  });
});
