// The native CSV / XYZ row parser (xhd_parse_delimited) against the TypeScript parser, which stays the
// reference: on plain text the native parser must give the same doubles bit for bit and the same bounds;
// on anything irregular it must decline, so that the TypeScript parser gives today's result or error.
// Each case checks both: which parser took the text, and that readGeometry equals the TypeScript-only read.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { AsciiScanner } from '../src/io/ascii-numbers.js';
import { analyseDelimited } from '../src/io/delimited-layout.js';
import { readRowsNatively } from '../src/io/delimited-native.js';
import type { Geometry } from '../src/io/geometry.js';
import { nativeReader } from '../src/io/native-reader.js';
import { PIECES_NOTE } from '../src/io/pieces.js';
import { readGeometry } from '../src/io/read.js';
import { outcome, withEnv, type Outcome } from './reader-test-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'xhd-native-delimited-'));
after(() => rmSync(dir, { recursive: true, force: true }));




function assertSameOutcome(native: Outcome, reference: Outcome, label: string): void {
  if ('error' in reference) {
    assert.deepEqual(native, reference, label);
    return;
  }
  assert.ok('geometry' in native, `${label}: ${'error' in native ? native.error : ''}`);
  const a = native.geometry, b = reference.geometry;
  assert.equal(a.positions.constructor, Float64Array, label);
  const bytes = (g: Geometry) => Buffer.from(g.positions.buffer, g.positions.byteOffset, g.positions.byteLength);
  assert.ok(bytes(a).equals(bytes(b)), `${label}: positions differ\n${Array.from(a.positions)}\n${Array.from(b.positions)}`);
  for (let k = 0; k < 3; k++) {
    assert.ok(Object.is(a.bounds.min[k], b.bounds.min[k]) && Object.is(a.bounds.max[k], b.bounds.max[k]), `${label}: bounds`);
  }
  assert.deepEqual([a.dims, a.count, a.format, a.notes], [b.dims, b.count, b.format, b.notes], label);
}

let fileNumber = 0;

/**
 * Writes `text` to a file, and checks that the native parser takes it (plain) or declines it, and that
 * readGeometry gives what the TypeScript parser alone gives, at the default piece size and at tiny pieces.
 */
function check(text: string, plain: boolean, extension = 'xyz'): Outcome {
  const path = join(dir, `case-${fileNumber++}.${extension}`);
  writeFileSync(path, text, 'latin1');
  const bytes = new Uint8Array(Buffer.from(text, 'latin1'));
  const scanner = new AsciiScanner(bytes, path);
  const layout = analyseDelimited(scanner, undefined);
  if (layout) {
    const taken = readRowsNatively(nativeReader()!, bytes, scanner.pos, layout) !== undefined;
    assert.equal(taken, plain, `${JSON.stringify(text.slice(0, 200))}: native ${taken ? 'took' : 'declined'} it`);
  }
  const reference = withEnv({ XHD_NATIVE_READ: '0' }, () => outcome(() => readGeometry(path)));
  for (const piece of ['0', '16', '100']) {
    const native = withEnv({ XHD_READ_PIECE_BYTES: piece }, () => outcome(() => readGeometry(path)));
    if (piece !== '0' && 'geometry' in native) {
      // Forced pieces read plain text in pieces (delimited-pieces.ts), which a note says; the rest whole.
      const pieced = native.geometry.notes.includes(PIECES_NOTE);
      assert.equal(pieced, plain && layout !== undefined, `${JSON.stringify(text.slice(0, 200))}: read in pieces: ${pieced}`);
      native.geometry.notes = native.geometry.notes.filter((n) => n !== PIECES_NOTE);
    }
    assertSameOutcome(native, reference, `${JSON.stringify(text.slice(0, 200))} (pieces of ${piece})`);
  }
  return reference;
}

describe('native delimited rows', () => {
  it('is available here (the CPU library is built), so the comparisons below compare two parsers', () => {
    assert.ok(nativeReader(), 'build/libxhd_cpu.so should load');
  });

  it('takes plain text: exponents, signs, many digits, leading +, .5, 5., tabs, CRLF, blank lines, comments', () => {
    check('1 2 3\n4 5 6\n', true);
    check('1 2 3\n4 5 6', true); // no final newline
    check('+1.5e3 -2.25E-2 .5\n5. -.5 +0.\n-0 0e999999 -0.0e-5\n', true);
    check('1e15 1e-22 1234567890.12345678901234567890\n0.1 0.2 0.30000000000000004\n', true);
    check(`${'9'.repeat(15)} ${'1'.repeat(40)}e-30 0.${'3'.repeat(60)}\n`, true);
    check(`0.${'0'.repeat(300)}1 1 1\n${'1'.repeat(15)}.${'9'.repeat(800)} 2 3\n`, true);
    check('4.9e-324 2.5e-324 1e-310\n2.2250738585072011e-308 1 1\n', true); // subnormals
    check('999999999999999.9 -1e15 1000000000000000\n', true);
    check('4200087.6543\t512345.12\t 87.5 \n\t1\t2\t3\t\n', true);
    check('1 2 3\r\n4 5 6\r\n\r\n  \r\n7 8 9\r\n', true);
    check('# scan of the hall\n\n1 2 3 # first\n   \n# 4 5 6\n4 5 6#tight\n\t\n', true);
    check('1 2\n3 4\n-5 6.5\n', true); // 2D
    check('10\n1 2 3\n4 5 6\n', true); // PTS point count
    check('x y z\n1 2 3\n', true); // header
    check('1 2 3 0.5 0.5 0.5 label-1\n4 5 6 -1 -1 -1 x;y;z\n', true); // unread columns hold anything
  });

  it('takes plain CSV: spaces around commas, header names, unread and empty unread fields', () => {
    check('1,2,3\n4,5,6\n', true, 'csv');
    check('x , y , z\n1 , 2 , 3\n\t4,\t5 ,6 \r\n', true, 'csv');
    check('id,x,y,z,name\n7,1,2,3,a b c\n8,4,5,6,\tq\n', true, 'csv');
    check('x,label,y,z\n1,,2,3\n4, ,5,6\n', true, 'csv');
    check('z,y,x\n3,2,1\n6,5,4\n', true, 'csv');
  });

  it('declines the irregular, and the TypeScript parser gives its result or its error', () => {
    // A lone CR ends a line (classic Mac line ends): "4 5" is a short row, "6" the next line.
    assert.match((check('1 2 3\n4 5\r6\n', false) as { error: string }).error, /:2: row has 2 fields, expected 3$/);
    assert.ok('geometry' in check('1 2 3\n4\v5 6\n', false));
    assert.ok('geometry' in check('1 2 3\n1e-400 5 6\n', false)); // underflows to 0 in Number()
    assert.match((check('1,2,3\n4,5,6\r,\n', false, 'csv') as { error: string }).error, /:3: empty field in column 0$/);
    assert.match((check('1 2 3\n4 5\n', false) as { error: string }).error, /:2: row has 2 fields, expected 3$/);
    assert.match((check('1 2 3\n4 5 6 7\n', false) as { error: string }).error, /:2: row has more than 3 fields/);
    assert.match((check('1 2 3\n4 nan 6\n', false) as { error: string }).error, /:2: non-finite coordinate \(NaN\) in vertex 1$/);
    assert.match((check('1 2 3\n4 -inf 6\n', false) as { error: string }).error, /:2: non-finite coordinate \(-Infinity\)/);
    assert.match((check('1 2 3\n1 2 3\n4 5 1e400\n', false) as { error: string }).error, /:3: non-finite coordinate \(Infinity\) in vertex 2$/);
    assert.match((check('1 2 3\n4 5 1e16\n', false) as { error: string }).error, /:2: coordinate 10000000000000000 of vertex 1 is beyond/);
    assert.match((check('1 2 3\n4 5 0x10\n', false) as { error: string }).error, /:2: expected a number, found '0x10'$/);
    assert.match((check('1 2 3\n4 5 1e\n', false) as { error: string }).error, /:2: expected a number/);
    assert.match((check('1 2 3\n4 5 .\n', false) as { error: string }).error, /:2: expected a number/);
    assert.match((check('1 2 3\n4 5 6/7\n', false) as { error: string }).error, /:2: /);
    assert.match((check('1,2,3\n4,,6\n', false, 'csv') as { error: string }).error, /:2: empty field in column 1$/);
    assert.match((check('1,2,3\n4,5,6,\n', false, 'csv') as { error: string }).error, /:2: empty field in column 3$|:2: row has/);
    assert.match((check('1,2,3\n4 5 6\n', false, 'csv') as { error: string }).error, /:2: row has 1 fields, expected 3$/);
    assert.match((check('1 2 3\n4,5,6\n', false) as { error: string }).error, /:2: expected a number/);
    check('1,2,3\n"4",5,6\n', false, 'csv'); // quotes go to csv-parse
    check('1 2 3 # a "quoted" comment\n4 5 6\n', false);
  });

  it('reads classic Mac (lone CR) line ends as the TypeScript parser does: every row, lines counted', () => {
    const rows = (o: Outcome) => ('geometry' in o ? Array.from(o.geometry.positions) : o.error);
    assert.deepEqual(rows(check('0 0 0\r10 0 0\r', false)), [0, 0, 0, 10, 0, 0]);
    assert.deepEqual(rows(check('x,y,z\r1,2,3\r4,5,6', false, 'csv')), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(rows(check('1 2 3\n4 5 6\r7 8 9\n', false)), [1, 2, 3, 4, 5, 6, 7, 8, 9]); // mixed line ends
    assert.deepEqual(rows(check('1 2 3\r\r\n4 5 6\r\n', false)), [1, 2, 3, 4, 5, 6]); // CR CR LF: a blank line
    // A comment ends at a lone CR: the native parser must not skip on to the '\n' (rows 2 and 3 were lost).
    assert.deepEqual(rows(check('1 2 3 # note\r4 5 6\r7 8 9\n10 11 12\n', false)), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.deepEqual(rows(check('# survey\r1 2 3\n', true)), [1, 2, 3]); // the layout reads the comment line
    assert.deepEqual(rows(check('1,2\r3,4', false, 'csv')), [1, 2, 0, 3, 4, 0]); // 2D: z is 0
    assert.deepEqual(rows(check('1,"2"\r3,4\r', false, 'csv')), [1, 2, 0, 3, 4, 0]); // quoted: through csv-parse
    // Line numbers count lone CRs as lines, on every path.
    assert.match((check('1 2 3\r4 5 6\r7 x 9\r', false) as { error: string }).error, /:3: expected a number, found 'x'$/);
    assert.match((check('1,2,3\r4,5\r', false, 'csv') as { error: string }).error, /:2: row has 2 fields, expected 3$/);
    assert.match((check('1,2,3\r"4",5\r', false, 'csv') as { error: string }).error, /:2: row has 2 fields, expected 3$/);
    // A lone CR on the first data line splits it, as anywhere else (csv-parse once saw it inside one line).
    assert.match((check('1 2\r3\n', false, 'csv') as { error: string }).error, /:2: row has 1 fields, expected 2$/);
    // A CRLF comment stays plain.
    assert.deepEqual(rows(check('# note\r\n1 2 3 # a\r\n4 5 6\r\n', true)), [1, 2, 3, 4, 5, 6]);
  });

  it('equals the TypeScript parser on random plain and nearly plain text, at every piece size', () => {
    let state = 0x2545f491; // xorshift32: deterministic, so a failure can be reproduced
    const random = (n: number) => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return (state >>> 0) % n;
    };
    const digits = (n: number) => Array.from({ length: n }, () => String(random(10))).join('');
    const number = () => {
      const sign = ['', '-', '+'][random(3)];
      const fraction = random(4) === 0 ? '' : `.${digits(random(4) === 0 ? 25 : random(9))}`;
      const whole = digits(random(500) === 0 ? 20 : random(8)) || (/\d/.test(fraction) ? '' : '1');
      // Exponents up to +5 keep most numbers within 1e15; down to -99 they stay far from underflow.
      const exponent = random(5) === 0 ? `${'eE'[random(2)]}${random(2) ? `${['', '+'][random(2)]}${random(6)}` : `-${digits(1 + random(2))}`}` : '';
      return sign + whole + fraction + exponent;
    };
    const blanks = () => [' ', '\t', '  ', ' \t '][random(4)];
    let plainFiles = 0;
    for (let file = 0; file < 60; file++) {
      const lines: string[] = [];
      for (let row = 0; row < 80; row++) {
        const choice = random(40);
        if (choice === 0) lines.push('');
        else if (choice === 1) lines.push('# comment 1 2 3');
        else lines.push(`${random(6) === 0 ? blanks() : ''}${number()}${blanks()}${number()}${blanks()}${number()}${random(6) === 0 ? blanks() : ''}${random(8) === 0 ? ' # note' : ''}`);
      }
      const crlf = file % 3 === 0;
      const text = lines.join(crlf ? '\r\n' : '\n') + (file % 2 ? '\n' : '');
      // Some random numbers are beyond 1e15 (or overflow): such files are declined and give the TypeScript error.
      const plain = text.split(/\r?\n/).every((line) => line.replace(/#.*/, '').trim().split(/\s+/).filter(Boolean)
        .every((t) => Math.abs(Number(t)) <= 1e15 && !(Number(t) === 0 && /[1-9]/.test(t.replace(/e.*$/i, '')))));
      check(text, plain);
      if (plain) plainFiles++;
    }
    assert.ok(plainFiles >= 30 && plainFiles < 60, `${plainFiles} of 60 random files plain: both kinds are wanted`);
  });
});
