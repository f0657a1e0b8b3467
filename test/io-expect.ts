// Assertions shared by the reader tests.
import assert from 'node:assert/strict';
import type { Geometry } from '../src/io/geometry.js';

/** Values as they come back from Float32Array storage. */
export function f32(...values: number[]): number[] {
  return values.map((v) => Math.fround(v));
}

/** Exact comparison of all positions, with the expected values rounded to float32 first. */
export function assertPositions(geometry: Geometry, expected: number[]): void {
  assert.equal(geometry.positions.length, expected.length);
  assert.deepEqual(Array.from(geometry.positions), f32(...expected));
}

/** Exact comparison of vertex `index` (x, y, z). */
export function assertVertex(geometry: Geometry, index: number, expected: [number, number, number]): void {
  assert.deepEqual(Array.from(geometry.positions.subarray(3 * index, 3 * index + 3)), f32(...expected));
}

export function assertTriangles(geometry: Geometry, expected: number[]): void {
  assert.ok(geometry.triangles, 'expected triangles');
  assert.deepEqual(Array.from(geometry.triangles), expected);
}

export function assertBounds(geometry: Geometry, min: [number, number, number], max: [number, number, number]): void {
  assert.deepEqual(geometry.bounds, { min: f32(...min), max: f32(...max) });
}

/** The call throws an InputError whose message matches `message` (which should include the location). */
export function assertInputError(read: () => unknown, message: RegExp): void {
  assert.throws(read, (error: unknown) => {
    assert.equal((error as Error).name, 'InputError');
    assert.match((error as Error).message, message);
    assert.ok(!(error as Error).message.includes('\n'), 'message must be one line');
    return true;
  });
}
