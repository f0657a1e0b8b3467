// Small tools the reader tests share: environment variables set for one call, and the message of the
// input error a read must end with.
import assert from 'node:assert/strict';

import { InputError, XhdError } from '../src/core/errors.js';
import type { Geometry } from '../src/io/geometry.js';

/** Runs `run` with these environment variables set (undefined: unset), then restores them as they were. */
export function withEnv<T>(vars: Record<string, string | undefined>, run: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const restore = () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
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

/**
 * What a fuzzed read must end as (the fuzzers): a geometry of finite coordinates whose triangles name its points, or an
 * input or usage error of one line, whose input errors name the file (`namesFile`); within `slowMs` either way.
 */
export async function expectBenignRead(read: () => Geometry | Promise<Geometry>, label: string,
  namesFile: (message: string) => boolean, slowMs: number): Promise<void> {
  const started = performance.now();
  try {
    const g = await read();
    assert.equal(g.positions.length, 3 * g.count, `${label}: positions hold count points`);
    for (let i = 0; i < g.positions.length; i++) assert.ok(Number.isFinite(g.positions[i]), `${label}: coordinate ${i} is ${g.positions[i]}`);
    if (g.triangles) for (const v of g.triangles) assert.ok(v < g.count, `${label}: triangle vertex ${v} of ${g.count}`);
  } catch (error) {
    assert.ok(error instanceof XhdError && (error.name === 'InputError' || error.name === 'UsageError'),
      `${label}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    assert.ok(!error.message.includes('\n'), `${label}: one line: ${error.message}`);
    if (error.name === 'InputError') assert.ok(namesFile(error.message), `${label}: names the file: ${error.message}`);
  }
  const ms = performance.now() - started;
  assert.ok(ms < slowMs, `${label}: ${ms.toFixed(0)} ms`);
}
