import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsciiScanner } from '../src/io/ascii-numbers.js';

function scan(text: string): number {
  const scanner = new AsciiScanner(new TextEncoder().encode(text), 'numbers.txt');
  return scanner.number();
}

test('numbers equal Number(text) bit for bit, fast path and fallback alike', () => {
  // Deterministic pseudo-random values in many shapes: short, long (fallback), with exponents.
  let seed = 12345;
  const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const texts = ['0', '-0', '+0', '-0.0', '1.', '.5', '-.5e-3', '1e308', '1e309', '4.9e-324', '9007199254740993',
    '123456789012345678901234567890', '0e999999', '1E+22', '1e23', '0.1', '3.4028235e38', '00012.5000'];
  for (let i = 0; i < 20000; i++) {
    const value = (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
    texts.push(String(value), value.toPrecision(1 + Math.floor(random() * 17)), value.toExponential(Math.floor(random() * 20)));
  }
  for (const text of texts) assert.ok(Object.is(scan(text), Number(text)), text);
});

test('nan, inf and infinity in any case', () => {
  assert.ok(Number.isNaN(scan('nan')));
  assert.ok(Number.isNaN(scan('NaN')));
  assert.equal(scan('inf'), Infinity);
  assert.equal(scan('-INF'), -Infinity);
  assert.equal(scan('+Infinity'), Infinity);
});

test('tokens end at whitespace, commas, slashes and comments', () => {
  const scanner = new AsciiScanner(new TextEncoder().encode('1.5,2/3 4#c\n  5\n'), 'f');
  assert.equal(scanner.number(), 1.5);
  scanner.pos++;
  assert.equal(scanner.integer(), 2);
  scanner.pos++;
  assert.equal(scanner.number(), 3);
  scanner.skipInlineSpace();
  assert.equal(scanner.number(), 4);
  assert.ok(scanner.atLineEnd());
  assert.ok(scanner.skipToToken());
  assert.equal(scanner.line, 2);
  assert.equal(scanner.number(), 5);
});

test('malformed numbers are errors naming the line', () => {
  for (const bad of ['1e', '-', '.', '1.2.3', '12abc', 'infinit', '0x10', '--1']) {
    const scanner = new AsciiScanner(new TextEncoder().encode(`\n\n${bad}\n`), 'f.xyz');
    scanner.skipToToken();
    assert.throws(() => scanner.number(), { name: 'InputError', message: /^f\.xyz:3: expected a number, found '/ }, bad);
  }
  const scanner = new AsciiScanner(new TextEncoder().encode('1.5'), 'f');
  assert.throws(() => scanner.integer('a vertex index'), { message: "f:1: expected a vertex index, found '1.5'" });
});
