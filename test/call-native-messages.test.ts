// A failed asynchronous native call reports its own message, however many others ran at once (`xhd batch` runs
// lanes in parallel on libuv's pool): the message comes from the call's own progress slot, which no other call
// writes, not from the library's last error, which every call writes and a success clears.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { DIRECTION_AB, DIRECTION_BA, HAUSDORFF_RESULT, METHOD_CODES, pointsArg } from '../src/native/abi.js';
import { callNative } from '../src/native/call.js';
import { loadBackend } from '../src/native/library.js';
import { nativeDistanceStats } from '../src/ops/distance-stats-native.js';
import { maskPointsOnAsync } from '../src/ops/mask-points.js';
import { StructOut } from '../src/native/struct-out.js';
import { rng, uniform } from './random-points.js';

const cpu = loadBackend('cpu');

/** xhd_hausdorff through callNative, on a with its point `bad` (if any) beyond the coordinates the library takes. */
function hausdorff(n: number, bad: number | null, seed: number): Promise<void> {
  const a = uniform(n, 3, rng(seed));
  if (bad !== null) a[3 * bad + 1] = 1e20;
  const b = uniform(n, 3, rng(seed + 1));
  const options = { method: METHOD_CODES.grid, directions: DIRECTION_AB | DIRECTION_BA, threads: 1, device: 0, seed: 1, cell_size: 0 };
  return callNative(cpu, cpu.hausdorff, [pointsArg(a), pointsArg(b), options, new StructOut(HAUSDORFF_RESULT).bytes],
    { refusal: `call ${seed}` });
}

/**
 * Holds the main thread until the calls already handed to the pool have had time to finish, so that every
 * callback runs after all of them: a message read from the library's shared last error would then be the last
 * call's for every one of them, and at most one could be right.
 */
function letThePoolFinish(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the pool threads run meanwhile */ }
}

/** Resolves to 'ok' or to the rejection's message, so that one check compares every call's outcome. */
function outcome(call: Promise<unknown>): Promise<string> {
  return call.then(() => 'ok', (error: Error) => `${error.constructor.name}: ${error.message}`);
}

describe('every failed asynchronous native call reports its own message', () => {
  it('xhd_hausdorff through callNative: failures with their own points, successes among them', async () => {
    // Failures with distinct points (so distinct messages), interleaved with successes which, finishing
    // later, would clear a shared message.
    const bad = [3, 11, 29, 57, 101, 7, 0, 64];
    const calls: Array<{ call: Promise<string>; want: string }> = [];
    bad.forEach((point, i) => {
      calls.push({ call: outcome(hausdorff(128, point, 100 + i)), want: `UsageError: call ${100 + i}: point ${point} of set A has a coordinate beyond +-1e15` });
      calls.push({ call: outcome(hausdorff(20_000, null, 200 + i)), want: 'ok' });
    });
    letThePoolFinish(1500);
    const got = await Promise.all(calls.map((c) => c.call));
    assert.deepEqual(got, calls.map((c) => c.want));
  });

  it('xhd_distance_stats and xhd_mask_points, each call through its own slot', async () => {
    const negativeAt = [2, 9, 40, 17];
    const stats = negativeAt.map((at) => {
      const ab = Float64Array.from({ length: 64 }, (_, i) => i / 10);
      ab[at] = -1;
      return {
        call: outcome(nativeDistanceStats(ab, null, {}, { backend: 'cpu', threads: 1 })),
        want: `UsageError: the distances cannot be summed up: distance ${at} is negative or not finite`,
      };
    });
    const affine = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0);
    const values = new Uint8Array(8).fill(1);
    const masks = [
      { request: { values, dims: [2, 2, 2] as const, affine: Float64Array.of(NaN, ...affine.subarray(1)), surface: true }, why: 'the affine must be finite' },
      { request: { values, dims: [2, 2, 2] as const, label: Infinity, affine, surface: true }, why: 'the label must be finite' },
      { request: { values, dims: [2, 2, 2] as const, affine, surface: true }, why: null },
    ].map(({ request, why }) => ({
      call: outcome(maskPointsOnAsync('cpu', request)),
      want: why === null ? 'ok' : `UsageError: the mask cannot be turned into points: ${why}`,
    }));
    const succeeding = { call: outcome(nativeDistanceStats(new Float64Array(200_000).fill(1), null, {}, { backend: 'cpu', threads: 1 })), want: 'ok' };
    const calls = [...stats, ...masks, succeeding];
    letThePoolFinish(1500);
    assert.deepEqual(await Promise.all(calls.map((c) => c.call)), calls.map((c) => c.want));
  });
});
