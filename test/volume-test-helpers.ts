// What the volume-format tests share: seeded numbers for their generated masks, bitwise equality of points, and the
// compare options and result values that must not change with the file format a mask is saved in.
import assert from 'node:assert/strict';

import type { CompareOptions, compareFiles } from '../src/jobs/compare.js';
import { hasStackTrace, runXhd } from './cli-run.js';

/** Deterministic pseudo-random numbers in [0, 1). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The same doubles, bit for bit (-0 and +0 differ; Float64Array equality would let them pass). */
export function sameBits(p: ArrayLike<number>, q: ArrayLike<number>): boolean {
  if (p.length !== q.length) return false;
  const a = Float64Array.from(p), b = Float64Array.from(q);
  const x = new BigUint64Array(a.buffer), y = new BigUint64Array(b.buffer);
  return x.every((bits, n) => bits === y[n]);
}

export const MASK_COMPARE_OPTIONS: CompareOptions = { method: 'grid', directed: false, backend: 'cpu', percentile: 95 } as CompareOptions;

/** Every value of the result that a metric or its witness is: what must not change with the file format. */
export function maskMetrics(r: Awaited<ReturnType<typeof compareFiles>>) {
  return { hd: r.hd, hdAb: r.hdAb, hdBa: r.hdBa, witnessAb: r.witnessAb, witnessBa: r.witnessBa, stats: r.stats, points: [r.a.points, r.b.points] };
}

/**
 * Runs `xhd info` on the file and expects exit 2 with one line naming `shown` (the file, or the header beside a
 * detached data file) and each part (a field, a tag).
 */
export function expectInfoRefused(path: string, shown: string, ...parts: Array<string | RegExp>): void {
  const r = runXhd(['info', path]);
  assert.equal(r.code, 2, `exit 2 for ${path}: ${r.stdout}${r.stderr}`);
  assert.ok(!hasStackTrace(r.stderr), r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  for (const part of [shown, ...parts]) {
    if (typeof part === 'string') assert.ok(lines[0].includes(part), `"${part}" in: ${lines[0]}`);
    else assert.match(lines[0], part);
  }
}
