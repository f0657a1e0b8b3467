// Assertions shared by the agreement suites: 1e-6 relative agreement, and witnesses that realize the
// distance they report.
import assert from 'node:assert/strict';

import type { HausdorffResult } from '../src/ops/hausdorff.js';
import { pairDistance } from './random-points.js';

export const RELATIVE_TOLERANCE = 1e-6;

export function assertClose(actual: number, expected: number, what: string) {
  const scale = Math.max(Math.abs(expected), 1e-300);
  assert.ok(
    Math.abs(actual - expected) <= RELATIVE_TOLERANCE * scale || actual === expected,
    `${what}: ${actual} differs from the reference ${expected} by more than 1e-6 relative`,
  );
}

export function assertWitnesses(r: HausdorffResult, a: Float32Array, b: Float32Array, label: string) {
  assertClose(pairDistance(a, r.ab.fromIndex, b, r.ab.toIndex), r.ab.distance, `${label} A→B witness`);
  if (r.ba) assertClose(pairDistance(b, r.ba.fromIndex, a, r.ba.toIndex), r.ba.distance, `${label} B→A witness`);
}
