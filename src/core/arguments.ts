// Checks of what library callers pass in, shared by every entry point (hausdorff, pointSurfaceDistances),
// so all of them refuse bad arguments with the same UsageError messages.
import { UsageError } from './errors.js';
import { firstNonFinitePoint, isMarkedFinite } from './coordinates.js';

export function expectPoints(value: unknown, name: string): asserts value is Float32Array | Float64Array {
  expectPointArray(value, name);
  const bad = isMarkedFinite(value) ? -1 : firstNonFinitePoint(value);
  if (bad >= 0) throw new UsageError(`Expected finite coordinates in ${name} but point ${bad} has a NaN or infinite one`);
}

/**
 * A Float32Array or Float64Array of whole points, its coordinates not looked at: for calls whose native side
 * checks every coordinate itself, on every core (kernels/abi/validate.h), where a scan here would take one
 * core seconds at a billion points.
 */
export function expectPointArray(value: unknown, name: string): asserts value is Float32Array | Float64Array {
  if (!(value instanceof Float32Array) && !(value instanceof Float64Array)) {
    throw new UsageError(`Expected a Float32Array or Float64Array of interleaved x,y,z for ${name} but received ${describe(value)}`);
  }
  if (value.length === 0 || value.length % 3 !== 0) {
    throw new UsageError(`Expected ${name} to hold at least one point (a non-zero multiple of 3 numbers) but it has ${value.length}`);
  }
}

export function expectInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`Expected an integer between ${min} and ${max} for ${name} but received ${describe(value)}`);
  }
  return value;
}

/** value, one of `choices` (a method or backend name), or a UsageError naming them. */
export function expectOneOf<T extends string>(value: unknown, choices: readonly T[], name: string): T {
  if (!(choices as readonly unknown[]).includes(value)) {
    throw new UsageError(`Expected one of ${choices.join(', ')} for ${name} but received ${describe(value)}`);
  }
  return value as T;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'an object';
  return `${typeof value} ${String(value)}`;
}
