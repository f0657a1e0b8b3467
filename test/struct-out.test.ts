// StructOut: a result struct read from memory of its own gives exactly the object koffi.decode gives, for every
// field type it reads (random bytes, and 64-bit integers at koffi's ±2^53 bound between numbers and bigints).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import koffi from 'koffi';

import { DIRECTED, DISTANCE_STATS_RESULT, HAUSDORFF_RESULT, MASK_POINTS_RESULT, NEAREST_RESULT, PROGRESS, SURFACE_RESULT } from '../src/native/abi.js';
import { StructOut } from '../src/native/struct-out.js';
import type { StructDecl } from '../src/native/struct-decl.js';
import { rng } from './random-points.js';

/** Every key, nested ones too, in the order an iteration sees them. */
function keysOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return null;
  return Object.entries(value).map(([key, v]) => [key, keysOf(v)]);
}

const DECLS: StructDecl[] = [HAUSDORFF_RESULT, DIRECTED, DISTANCE_STATS_RESULT, NEAREST_RESULT, SURFACE_RESULT];

describe('StructOut: what koffi.decode gives, read from memory of its own', () => {
  it('random bytes in every struct it is used for', () => {
    const random = rng(17);
    for (const decl of DECLS) {
      for (let trial = 0; trial < 50; trial++) {
        const out = new StructOut(decl);
        assert.equal(out.bytes.length, koffi.sizeof(decl.name));
        for (let i = 0; i < out.bytes.length; i++) out.bytes[i] = Math.floor(random() * 256);
        const got = out.read(), want = koffi.decode(out.bytes, decl.name);
        assert.deepStrictEqual(got, want, `${decl.name} trial ${trial}`);
        assert.deepEqual(keysOf(got), keysOf(want), `${decl.name}: the fields in koffi's order`);
      }
    }
  });

  it('64-bit integers: numbers within ±2^53 (inclusive), bigints beyond, signed and unsigned', () => {
    const edges = [0n, 1n, -1n, 2n ** 32n - 1n, 2n ** 32n, -(2n ** 32n), 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n),
      -(2n ** 53n) - 1n, -(2n ** 53n) + 1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n, 2n ** 63n, 3n * 2n ** 52n + 12345n];
    const out = new StructOut(DIRECTED);
    const view = new DataView(out.bytes.buffer, out.bytes.byteOffset, out.bytes.byteLength);
    const signedAt = koffi.offsetof(DIRECTED.name, 'from_index'), unsignedAt = koffi.offsetof(DIRECTED.name, 'distance_evals');
    for (const value of edges) {
      view.setBigInt64(signedAt, BigInt.asIntN(64, value), true);
      view.setBigUint64(unsignedAt, BigInt.asUintN(64, value), true);
      const got = out.read(), want = koffi.decode(out.bytes, DIRECTED.name) as typeof got;
      assert.deepStrictEqual([got.from_index, got.distance_evals], [want.from_index, want.distance_evals], String(value));
    }
  });

  it('refuses a struct with a pointer (koffi.decode reads those)', () => {
    assert.throws(() => new StructOut(MASK_POINTS_RESULT), /xhd_mask_points_result\.xyz: a pointer/);
  });

  it('refuses a struct with a string (koffi.decode reads those; the progress slot reads its message itself)', () => {
    assert.throws(() => new StructOut(PROGRESS), /xhd_progress\.message: a string/);
  });
});
