import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGeometry, readGeometry } from '../src/io/read.js';
import { fixture, sharedData } from './helpers.js';
import { assertBounds, assertCoordinateType, assertInputError, assertPositions, assertVertex } from './io-expect.js';

test('CSV with an x,y header is 2D', () => {
  const g = readGeometry(fixture('square-2d.csv'));
  assert.equal(g.format, 'csv');
  assert.equal(g.dims, 2);
  assertCoordinateType(g, Float64Array);
  assertPositions(g, [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]);
  assertBounds(g, [0, 0, 0], [1, 1, 0]);
  assert.equal(g.triangles, undefined);
});

test('header names x, y, z are found in any order and case; other columns may hold text', () => {
  const g = readGeometry(fixture('named-columns.csv'));
  assertPositions(g, [1, 2, 3, -1, 0.5, -300]);
  assert.deepEqual(g.notes, ['columns X, Y, Z chosen by header name']);
});

test('quoted CSV fields go through csv-parse', () => {
  const g = readGeometry(fixture('quoted.csv'));
  assertCoordinateType(g, Float64Array);
  assertPositions(g, [0.5, 1.5, 2.5, -1, -2, -3]);
});

test('a quoted CSV field that is not a number is named on one line, its line break and other controls shown as ?', () => {
  // Found by the readers' fuzzer (seed 5): the field was quoted into the message as it was, line break and all.
  const csv = '"x","y","z"\n"1","2","3"\n"4","-2\nuq2\u0001","6"\n';
  // The record spans lines 3 and 4; it is named by the line it ends on, as csv-parse counts them.
  assertInputError(() => parseGeometry(new TextEncoder().encode(csv), 'broken.csv'), /^broken\.csv:4: expected a number, found '-2\?uq2\?'$/);
  const long = `"x","y","z"\n"1","2","${'9'.repeat(5)}${'a'.repeat(40)}"\n`;
  assertInputError(() => parseGeometry(new TextEncoder().encode(long), 'long.csv'), /^long\.csv:2: expected a number, found '99999a{19}…'$/);
});

test('XYZ: comments, blank lines, tabs, CRLF, exponents, signs, extra columns, no final newline', () => {
  const g = readGeometry(fixture('points.xyz'));
  assert.equal(g.format, 'xyz');
  assert.equal(g.dims, 3);
  assertCoordinateType(g, Float64Array);
  assertPositions(g, [0.1, 0.2, 0.3, -1.5e-3, 200, 3, 4, 5, 6, -0, 7, 0.25]);
  assert.ok(Object.is(g.positions[9], -0));
});

test('PTS: the leading point count is skipped, the first three of seven columns are x,y,z', () => {
  const g = readGeometry(fixture('points.pts'));
  assertPositions(g, [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(g.notes, ['skipped the point-count line (3)']);
});

test('TXT with two tab-separated columns is 2D', () => {
  const g = readGeometry(fixture('points-2d.txt'));
  assert.equal(g.dims, 2);
  assertPositions(g, [1.5, 2.5, 0, 3.5, 4.5, 0]);
});

test('options.columns picks columns by header name or 0-based index', () => {
  const byName = readGeometry(fixture('named-columns.csv'), { columns: ['id', 'x'] });
  assert.equal(byName.dims, 2);
  assertPositions(byName, [1, 1, 0, 2, -1, 0]);
  const byIndex = readGeometry(fixture('points.pts'), { columns: ['2', '1', '0'] });
  assertPositions(byIndex, [3, 2, 1, 6, 5, 4, 9, 8, 7]);
  const mixed = readGeometry(fixture('points.xyz'), { columns: ['4', '5'] });
  assertPositions(mixed, [0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -1, 0]);
});

test('options.columns errors name the problem', () => {
  assertInputError(() => readGeometry(fixture('named-columns.csv'), { columns: ['x', 'y', 'w'] }), /named-columns\.csv:2: no column named 'w'/);
  assertInputError(() => readGeometry(fixture('points.pts'), { columns: ['0', '9'] }), /points\.pts: column 9 does not exist/);
  assertInputError(() => readGeometry(fixture('points.pts'), { columns: ['x', 'y'] }), /points\.pts: no header row/);
  assert.throws(() => readGeometry(fixture('points.pts'), { columns: ['0'] }), { name: 'UsageError' });
});

test('a header with no rows and an empty file are empty sets', () => {
  const header = readGeometry(fixture('header-only.csv'));
  assert.equal(header.count, 0);
  const empty = readGeometry(fixture('empty.xyz'));
  assert.equal(empty.count, 0);
  assert.equal(empty.positions.length, 0);
  assertCoordinateType(empty, Float64Array);
});

const kitten = sharedData('points/kitten.xyz');
test('shared kitten.xyz (six columns: point and normal)', { skip: kitten === undefined && 'shared data absent' }, () => {
  const g = readGeometry(kitten!);
  assert.equal(g.count, 5210);
  assertCoordinateType(g, Float64Array);
  assertVertex(g, 0, [-0.0721898, -0.159749, -0.108444]);
  assertVertex(g, 5209, [-0.207238, 0.241374, -0.164938]);
});

const sphere = sharedData('points/sphere_20k.xyz');
test('shared sphere_20k.xyz', { skip: sphere === undefined && 'shared data absent' }, () => {
  const g = readGeometry(sphere!);
  assert.equal(g.count, 21000);
  assertVertex(g, 0, [-0.708819, 0.473145, 0.631157]);
  assertVertex(g, 20999, [-0.476238, -0.785515, 0.387457]);
});

test('quoting csv-parse cannot split is an input error at the file\'s line, never an internal error', () => {
  const cases: [string, RegExp][] = [
    ['x,y,z\n"1,2,3\n', /^q\.csv:2: malformed CSV: Quote Not Closed/],
    ['"a" b,c,d\n1,2,3\n', /^q\.csv:1: malformed CSV: Invalid Closing Quote/],
    ['x,y,z\n1,2,3\n"4",5,"6\n', /^q\.csv:3: malformed CSV: Quote Not Closed/],
  ];
  for (const [text, message] of cases) {
    assertInputError(() => parseGeometry(new TextEncoder().encode(text), 'q.csv'), message);
  }
});

/** Reads text both ways, natively where the library is built and with XHD_NATIVE_READ=0: the results must agree. */
function parseBothWays(text: string, name: string): ReturnType<typeof parseGeometry> {
  const bytes = new Uint8Array(Buffer.from(text, 'latin1'));
  const saved = process.env.XHD_NATIVE_READ;
  process.env.XHD_NATIVE_READ = '0';
  let reference: ReturnType<typeof parseGeometry> | Error;
  try {
    reference = parseGeometry(bytes, name);
  } catch (error) {
    reference = error as Error;
  } finally {
    if (saved === undefined) delete process.env.XHD_NATIVE_READ;
    else process.env.XHD_NATIVE_READ = saved;
  }
  if (reference instanceof Error) {
    assert.throws(() => parseGeometry(bytes, name), { message: reference.message });
    throw reference;
  }
  const native = parseGeometry(bytes, name);
  assert.deepEqual(Array.from(native.positions), Array.from(reference.positions));
  assert.deepEqual(native.notes, reference.notes);
  return native;
}

const values = (count: number, from = 0) => Array.from({ length: count }, (_, i) => String((from + i) % 1000 / 8)).join(' ');

test('a single line of thousands of values is refused: the file has lost its line breaks (issue 30)', () => {
  assertInputError(() => parseBothWays(`${values(3000)}\n`, 'flat.xyz'),
    /^flat\.xyz:1: line holds 3,000 values and no row follows it: the file seems to have no line breaks$/);
  assertInputError(() => parseBothWays(`# one scan\n\n${values(30000)}   # end\n\n# nothing more\n`, 'flat.xyz'),
    /^flat\.xyz:3: line holds 30,000 values and no row follows/);
  assertInputError(() => parseBothWays(`${values(5000).replace(/ /g, ',')}`, 'flat.csv'), /^flat\.csv:1: line holds 5,000 values/);
  // A header on its own line does not make the lone data line acceptable.
  assertInputError(() => parseBothWays(`x y z\n${values(3000)}\n`, 'flat.xyz'), /flat\.xyz:2: row has 3000 fields but the header names 3/);
  // Up to 1,000 values a lone line is still read (its first columns), as before.
  assertPositions(parseBothWays(`${values(1000, 8)}\n`, 'wide.xyz'), [1, 1.125, 1.25]);
});

test('consistent rows of thousands of values are read, with a note that most columns are ignored', () => {
  const g = parseBothWays(`${values(1500)}\n${values(1500, 16)}\n`, 'wide.xyz');
  assertPositions(g, [0, 0.125, 0.25, 2, 2.125, 2.25]);
  assert.deepEqual(g.notes, ['line 1 holds 1,500 values; only 3 of its columns are read']);
  // A long header is still found from the line's bytes, names and all.
  const names = ['id', 'z', 'y', 'x', ...Array.from({ length: 1200 }, (_, i) => `c${i}`)];
  const h = parseBothWays(`${names.join(',')}\n${values(1204, 8).replace(/ /g, ',')}\n${values(1204, 24).replace(/ /g, ',')}\n`, 'wide.csv');
  assertPositions(h, [1.375, 1.25, 1.125, 3.375, 3.25, 3.125]); // x, y, z are columns 3, 2, 1
  assert.deepEqual(h.notes, ['columns x, y, z chosen by header name', 'line 2 holds 1,204 values; only 3 of its columns are read']);
  // A long first line with a malformed number is data, not a header (as for short lines): an unread column may hold it.
  const d = parseBothWays(`1 2 3 1.2.3 ${values(1200)}\n4 5 6 7 ${values(1200)}\n`, 'wide.xyz');
  assertPositions(d, [1, 2, 3, 4, 5, 6]);
});
