// The --frames summary: nearest-rank percentiles of the query times, and the extremes of the distances.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { percentile, summarizeFrames, type FrameOutcome } from '../src/jobs/frame-summary.js';
import type { DistancePair } from '../src/ops/mesh-distance.js';

function pair(distance: number): DistancePair {
  return { distance, triangleA: 0, triangleB: 0, pointA: [0, 0, 0], pointB: [distance, 0, 0], intersecting: distance === 0 };
}

function frame(i: number, queryMs: number, min: number | null, max: number | null): FrameOutcome {
  return { frame: i, line: i + 1, min: min === null ? null : pair(min), max: max === null ? null : pair(max), queryMs, uploadMs: 0, downloadMs: 0 };
}

describe('frames summary', () => {
  it('percentiles are nearest-rank', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    assert.equal(percentile(twenty, 50), 10);
    assert.equal(percentile(twenty, 95), 19);
    assert.equal(percentile(twenty, 100), 20);
    assert.equal(percentile([7], 50), 7);
    assert.equal(percentile([7], 95), 7);
    assert.equal(percentile([1, 2, 3], 50), 2);
  });

  it('query times and the first frame holding each extreme', () => {
    const s = summarizeFrames([frame(0, 4, 2, 5), frame(1, 1, 0.5, 9), frame(2, 3, 0.5, 9), frame(3, 2, 3, 1)]);
    assert.equal(s.frames, 4);
    assert.deepEqual(s.queryMs, { mean: 2.5, p50: 2, p95: 4, max: 4 });
    assert.deepEqual(s.min, { distance: 0.5, frame: 1 });
    assert.deepEqual(s.max, { distance: 9, frame: 1 });
  });

  it('a distance not measured has no extreme', () => {
    const s = summarizeFrames([frame(0, 1, null, 3), frame(1, 1, null, 2)]);
    assert.equal(s.min, null);
    assert.deepEqual(s.max, { distance: 3, frame: 0 });
  });
});
