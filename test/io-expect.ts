// Assertions shared by the reader tests.
import assert from 'node:assert/strict';
import type { Geometry } from '../src/io/geometry.js';

/** Values as they come back from Float32Array storage. */
export function f32(...values: number[]): number[] {
  return values.map((v) => Math.fround(v));
}

/**
 * Expected values as `geometry` stores them: rounded to float32 when its positions are a Float32Array
 * (a file that stores float32), unchanged (exact doubles) when they are a Float64Array.
 */
export function stored(geometry: Geometry, values: number[]): number[] {
  return geometry.positions instanceof Float32Array ? f32(...values) : values;
}

/** The positions are exactly this array type (readers keep what the file states: see Coordinates). */
export function assertCoordinateType(geometry: Geometry, type: Float32ArrayConstructor | Float64ArrayConstructor): void {
  assert.equal(geometry.positions.constructor, type, `positions are a ${geometry.positions.constructor.name}, expected ${type.name}`);
}

/** Exact comparison of all positions (expected values rounded to float32 first for float32 storage). */
export function assertPositions(geometry: Geometry, expected: number[]): void {
  assert.equal(geometry.positions.length, expected.length);
  assert.deepEqual(Array.from(geometry.positions), stored(geometry, expected));
}

/** Exact comparison of vertex `index` (x, y, z). */
export function assertVertex(geometry: Geometry, index: number, expected: [number, number, number]): void {
  assert.deepEqual(Array.from(geometry.positions.subarray(3 * index, 3 * index + 3)), stored(geometry, expected));
}

export function assertTriangles(geometry: Geometry, expected: number[]): void {
  assert.ok(geometry.triangles, 'expected triangles');
  assert.deepEqual(Array.from(geometry.triangles), expected);
}

export function assertBounds(geometry: Geometry, min: [number, number, number], max: [number, number, number]): void {
  assert.deepEqual(geometry.bounds, { min: stored(geometry, min), max: stored(geometry, max) });
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
