// Small tools the reader tests share: environment variables set for one call, and the message of the
// input error a read must end with.
import assert from 'node:assert/strict';

import { InputError } from '../src/core/errors.js';
import type { Geometry } from '../src/io/geometry.js';

/** Runs `run` with these environment variables set, then restores them as they were. */
export function withEnv<T>(vars: Record<string, string>, run: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const restore = () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  Object.assign(process.env, vars);
  let result: T;
  try {
    result = run();
  } catch (err) {
    restore();
    throw err;
  }
  // An async run keeps the variables until it settles (a native call reads them when it starts, later).
  if (result instanceof Promise) return result.finally(restore) as T;
  restore();
  return result;
}

/** The message of the InputError that `read` throws (failing the test when it throws nothing or another error). */
export function errorOf(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    assert.ok(error instanceof InputError, `not an input error: ${String(error)}`);
    return error.message;
  }
  assert.fail('no error');
}

/** What a read ended with: the geometry, or the input error's message (any other error fails the test). */
export type Outcome = { geometry: Geometry } | { error: string };

export function outcome(read: () => Geometry): Outcome {
  try {
    return { geometry: read() };
  } catch (error) {
    assert.ok(error instanceof InputError, `not an input error: ${String(error)}`);
    return { error: error.message };
  }
}
