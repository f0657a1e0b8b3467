// CSV / XYZ read in line-aligned pieces (files over 1 GiB; here forced on small files with
// XHD_READ_PIECE_BYTES): bit for bit the whole-file result on generated files of every shape, the pieced
// path really taken for plain text (its note), the whole-file fallback for the rest, and for files too
// large to read whole (wholeFileMax lowered to 0) a refusal naming the absolute line.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { readDelimitedInPieces } from '../src/io/delimited-pieces.js';
import type { Geometry, ReadOptions } from '../src/io/geometry.js';
import { PIECES_NOTE } from '../src/io/pieces.js';
import { readGeometry } from '../src/io/read.js';
import { errorOf, outcome, withEnv, type Outcome } from './reader-test-tools.js';

const dir = mkdtempSync(join(tmpdir(), 'xhd-delimited-pieces-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let fileNumber = 0;
function write(text: string, extension: 'csv' | 'xyz'): string {
  const path = join(dir, `case-${fileNumber++}.${extension}`);
  writeFileSync(path, text, 'latin1');
  return path;
}


const bits = (g: Geometry) => Buffer.from(g.positions.buffer, g.positions.byteOffset, g.positions.byteLength);

/**
 * Reads `path` whole and in pieces of each size; asserts the same outcome bit for bit, and that the pieces
 * were taken exactly when `pieced` (the note). Returns the whole-file outcome.
 */
function compare(path: string, pieced: boolean, options: ReadOptions = {}): Outcome {
  const whole = outcome(() => readGeometry(path, options));
  for (const piece of ['64', '1000']) {
    const label = `${path} in pieces of ${piece}`;
    const read = withEnv({ XHD_READ_PIECE_BYTES: piece }, () => outcome(() => readGeometry(path, options)));
    if ('error' in whole) {
      assert.deepEqual(read, whole, label);
      continue;
    }
    assert.ok('geometry' in read, `${label}: ${'error' in read ? read.error : ''}`);
    const a = read.geometry, b = whole.geometry;
    assert.equal(a.notes.includes(PIECES_NOTE), pieced, `${label}: read in pieces`);
    assert.equal(a.positions.constructor, Float64Array, label);
    assert.ok(bits(a).equals(bits(b)), `${label}: positions differ`);
    for (let k = 0; k < 3; k++) {
      assert.ok(Object.is(a.bounds.min[k], b.bounds.min[k]) && Object.is(a.bounds.max[k], b.bounds.max[k]), `${label}: bounds`);
    }
    assert.deepEqual([a.dims, a.count, a.format, a.notes.filter((n) => n !== PIECES_NOTE)], [b.dims, b.count, b.format, b.notes], label);
  }
  return whole;
}

let state = 0x1f2e3d4c; // xorshift32: deterministic, so a failure can be reproduced
function random(n: number): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) % n;
}
const number = () => `${['', '-', '+'][random(3)]}${random(100000)}${random(3) ? `.${random(1000000)}` : ''}${random(6) === 0 ? `e${random(5)}` : ''}`;

/** A generated file: optional BOM, header or comments, blank lines, 2 or 3 (+ an unread) columns. */
function generate(rows: number, shape: { comma: boolean; dims: 2 | 3; header: boolean; eol: string; extra: boolean; bom: boolean }): string {
  const sep = () => (shape.comma ? [',', ' , ', ',\t'][random(3)] : [' ', '\t', '  '][random(3)]);
  const names = [...['x', 'y', 'z'].slice(0, shape.dims), ...(shape.extra ? ['label'] : [])];
  const lines: string[] = shape.header ? ['# survey 7', names.join(shape.comma ? ',' : ' ')] : [];
  for (let r = 0; r < rows; r++) {
    if (random(15) === 0) lines.push(['', '   ', '# a comment 1 2 3'][random(3)]);
    const fields = Array.from({ length: shape.dims }, number);
    if (shape.extra) fields.push(`id-${r}`);
    lines.push(fields.reduce((line, f, i) => (i === 0 ? f : line + sep() + f), '') + (random(10) === 0 ? ' # note' : ''));
  }
  return (shape.bom ? '\ufeff' : '') + lines.join(shape.eol) + (random(2) ? shape.eol : '');
}

describe('CSV / XYZ read in pieces', () => {
  it('equals the whole-file read bit for bit on generated files of every shape, in pieces (plain) or whole (not)', () => {
    let cases = 0;
    for (const comma of [true, false]) {
      for (const dims of [2, 3] as const) {
        for (const eol of ['\n', '\r\n', '\r']) {
          for (const header of [true, false]) {
            // An unread column needs a header naming x, y (z), else it would be read as a coordinate.
            const extra = header && random(2) === 0, bom = random(4) === 0;
            const text = generate(40 + random(200), { comma, dims, header, eol, extra, bom });
            // The BOM is written as its UTF-8 bytes; the rest is ASCII.
            const path = write(Buffer.from(text, 'utf8').toString('latin1'), comma ? 'csv' : 'xyz');
            // A lone CR is not plain: such files fall back to the whole-file parser.
            const result = compare(path, eol !== '\r');
            assert.ok('geometry' in result && result.geometry.count > 0, `${path}: ${JSON.stringify(result).slice(0, 200)}`);
            cases++;
          }
        }
      }
    }
    assert.equal(cases, 24);
  });

  it('picks --columns by name and index in pieces, as whole', () => {
    const path = write(generate(300, { comma: true, dims: 3, header: true, eol: '\n', extra: true, bom: false }), 'csv');
    compare(path, true, { columns: ['z', 'x'] });
    compare(path, true, { columns: ['2', '0', '1'] });
    const bare = write(generate(300, { comma: false, dims: 3, header: false, eol: '\r\n', extra: false, bom: false }), 'xyz');
    compare(bare, true, { columns: ['1', '2'] });
  });

  it('carries lines longer than a piece, and reads files with no rows or one row', () => {
    const long = `${'1'.repeat(150)} 2 ${'3'.repeat(12)}.${'4'.repeat(300)}`;
    compare(write(`${long}\n5 6 7\n${long}`, 'xyz'), true);
    compare(write('x,y,z\n', 'csv'), false); // no rows: whole (nothing to piece)
    compare(write('', 'xyz'), false);
    compare(write('1 2 3', 'xyz'), true);
  });

  it('gives the whole-file error, with its absolute line, for a bad value in a later piece', () => {
    const rows = Array.from({ length: 600 }, (_, i) => `${i} ${i + 0.5} ${-i}`);
    const cases: [string, RegExp][] = [
      ['4 x 6', /:501: expected a number, found 'x'$/],
      ['4 5', /:501: row has 2 fields, expected 3$/],
      ['4 5 nan', /:501: non-finite coordinate \(NaN\) in vertex 500$/],
      ['4 5 1e16', /:501: coordinate 10000000000000000 of vertex 500 is beyond/],
    ];
    for (const [bad, expected] of cases) {
      const lines = [...rows];
      lines[500] = bad;
      const result = compare(write(lines.join('\n') + '\n', 'xyz'), false);
      assert.ok('error' in result && expected.test(result.error), JSON.stringify(result));
    }
  });

  it('over the whole-file limit, refuses text that is not plain, naming the absolute line', () => {
    const header = ['# scan', 'x,y,z', ''];
    const rows = Array.from({ length: 3000 }, (_, i) => `${i},${i / 4},${-i}`);
    const atLine = (k: number, bad: string, eol = '\n') => {
      const lines = [...header, ...rows];
      lines[k - 1] = bad;
      return write(lines.join(eol) + eol, 'csv');
    };
    const refuse = (path: string) => withEnv({ XHD_READ_PIECE_BYTES: '1000' }, () => errorOf(() => readDelimitedInPieces(path, statSync(path).size, 'csv', {}, 0)));
    // Faults the TypeScript parser names: its message, at the absolute line.
    assert.match(refuse(atLine(2500, '1,2,x')), /\.csv:2500: expected a number, found 'x'$/);
    assert.match(refuse(atLine(2500, '1,,3')), /\.csv:2500: empty field in column 1$/);
    assert.match(refuse(atLine(1234, '1,2,3,4')), /\.csv:1234: row has more than 3 fields, expected 3$/);
    // Text it accepts but the plain shape does not: what plain means.
    const notPlain = /:(\d+): not in the plain shape that CSV \/ XYZ files over 0 GiB must have \(they are read in pieces by the native parser\): fields separated by commas or by spaces and tabs, lines ending in LF or CRLF, '#' comments, no quotes, numbers such as -12\.5e3 within ±1e15$/;
    for (const [path, line] of [[atLine(2999, '1,"2",3'), 2999], [atLine(2000, '1,2,3\r4,5,6'), 2000], [atLine(4, '1e-400,2,3'), 4]] as const) {
      const message = refuse(path);
      assert.equal(notPlain.exec(message)?.[1], String(line), message);
    }
    // Plain text is read, CRLF included, and equals the whole-file read.
    const plain = atLine(5, '7,8,9', '\r\n');
    const pieced = withEnv({ XHD_READ_PIECE_BYTES: '1000' }, () => readDelimitedInPieces(plain, statSync(plain).size, 'csv', {}, 0))!;
    const whole = readGeometry(plain);
    assert.ok(bits(pieced).equals(bits(whole)));
    assert.equal(pieced.count, 3000);
  });
});
