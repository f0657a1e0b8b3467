// formatCount groups whole numbers by hand (toLocaleString's first call loads locale data): it must write
// exactly what toLocaleString('en-US') writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { countOf, formatCount } from '../src/core/counts.js';

test('formatCount writes what toLocaleString(en-US) writes', () => {
  const values = [0, -0, 1, -1, 9, 10, 99, 100, 999, 1000, -1000, 1001, 12345, 999999, 1000000, -1234567,
    2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 60, 1.5, 1234.5678, NaN, Infinity, -Infinity];
  for (let d = 1, v = 7; d <= 16; d++, v = v * 10 + (d % 10)) values.push(v, -v);
  for (const v of values) assert.equal(formatCount(v), v.toLocaleString('en-US'), String(v));
});

test('countOf picks the noun by the count', () => {
  assert.equal(countOf(1, 'point'), '1 point');
  assert.equal(countOf(3000000, 'point'), '3,000,000 points');
  assert.equal(countOf(2, 'vertex', 'vertices'), '2 vertices');
});
