// The native LAS reader (kernels/cpu/las_reader.cpp via src/io/las-native.ts) against the TypeScript one
// (XHD_NATIVE_READ=0), which stays the reference: every point format 0-10, every header version, extra
// bytes, every filter alone and together, the attributes an export keeps, small pieces on several threads,
// -0 coordinates, and a file that ends before its records do. The two must agree bit for bit.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { InputError } from '../src/core/errors.js';
import type { Geometry, ReadOptions } from '../src/io/geometry.js';
import { parseLasHeader } from '../src/io/las-header.js';
import { readLasNatively } from '../src/io/las-native.js';
import { nativeReader } from '../src/io/native-reader.js';
import type { PointFilters } from '../src/io/point-filters.js';
import { recordFilter } from '../src/io/las-records.js';
import { readGeometry } from '../src/io/read.js';
import { scratchDir } from './cli-run.js';
import { lasBytes, type LasPoint, type LasWriteOptions } from './las-writer.js';
import { withEnv } from './reader-test-tools.js';
import { suiteUnless } from './skippable-suite.js';

const dir = scratchDir();
let serial = 0;
function write(points: LasPoint[], options: LasWriteOptions): string {
  const path = join(dir, `native${serial++}.las`);
  writeFileSync(path, lasBytes(points, options));
  return path;
}

/** Survey-sized raw integers, classes 0-31 (and above for formats 6-10), returns 1-5 of 1-5 (some "last"). */
function points(n: number, extended: boolean, seed = 7): LasPoint[] {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, (_, i) => {
    const count = 1 + (i % 5);
    return {
      X: Math.floor(next() * 2e9) - 1e9, Y: Math.floor(next() * 2e9) - 1e9, Z: i % 11 === 0 ? 0 : Math.floor(next() * 2e6) - 1e6,
      classification: extended ? Math.floor(next() * 256) : Math.floor(next() * 32),
      numberOfReturns: count, returnNumber: i % 7 === 0 ? 0 : 1 + Math.floor(next() * count),
    };
  });
}

/** The bytes of a Float64Array, so that -0 and +0 differ. */
const bytesOf = (a: ArrayLike<number> & { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

function assertSame(native: Geometry, typescript: Geometry, what: string): void {
  assert.equal(native.count, typescript.count, `${what}: count`);
  assert.ok(bytesOf(native.positions as Float64Array).equals(bytesOf(typescript.positions as Float64Array)), `${what}: positions`);
  assert.equal(native.lasAttributes === undefined, typescript.lasAttributes === undefined, `${what}: attributes given`);
  if (native.lasAttributes) assert.ok(bytesOf(native.lasAttributes).equals(bytesOf(typescript.lasAttributes!)), `${what}: attributes`);
  assert.deepEqual(native.lidar, typescript.lidar, `${what}: summary`);
  assert.deepEqual(native.notes, typescript.notes, `${what}: notes`);
  for (const side of ['min', 'max'] as const) {
    for (let k = 0; k < 3; k++) assert.ok(Object.is(native.bounds[side][k], typescript.bounds[side][k]), `${what}: bounds ${side}[${k}]`);
  }
}

/** Reads `path` natively (with these environment settings) and in TypeScript, and checks they agree. */
function compare(path: string, options: ReadOptions, what: string, env: Record<string, string> = {}): Geometry {
  const native = withEnv(env, () => readGeometry(path, options));
  const typescript = withEnv({ XHD_NATIVE_READ: '0' }, () => readGeometry(path, options));
  assertSame(native, typescript, what);
  return native;
}

const FILTERS: [string, PointFilters][] = [
  ['none', {}],
  ['--classes', { classes: [1, 2, 6, 200] }],
  ['--returns first', { returns: 'first' }],
  ['--returns last', { returns: 'last' }],
  ['--bbox 2D', { bbox: { min: [-2e6, -3e6, -Infinity], max: [4e6, 2e6, Infinity] } }],
  ['--bbox 3D', { bbox: { min: [-9e6, -9e6, -5e3], max: [9e6, 9e6, 4e3] } }],
  ['--every 3', { every: 3 }],
  ['all together', { classes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], returns: 'last', bbox: { min: [-8e6, -8e6, -Infinity], max: [8e6, 8e6, Infinity] }, every: 2 }],
  ['a filter nothing passes, then --every', { classes: [33], every: 4 }],
];

suiteUnless(nativeReader() ? false : 'the CPU library is not built', 'native LAS reader against the TypeScript reader', () => {
  describe('every point format and header version, with extra bytes', () => {
    for (let format = 0; format <= 10; format++) {
      it(`point format ${format}`, () => {
        const extended = format >= 6;
        const pts = points(301, extended, format + 1);
        for (const minor of extended ? [4] : [0, 1, 2, 3, 4]) {
          for (const extra of [0, 13]) {
            const options: LasWriteOptions = { format, minor, scale: [0.001, 0.002, 0.01], offset: [500000, 4200000, -0], ...(extra ? { recordLength: [20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67][format] + extra } : {}) };
            const path = write(pts, options);
            for (const [name, filters] of FILTERS) {
              const g = compare(path, { filters, lasAttributes: true }, `format ${format}, LAS 1.${minor}, ${extra} extra bytes, ${name}`);
              if (name === 'none') assert.equal(g.count, pts.length);
            }
          }
        }
      });
    }
  });

  it('small pieces on several threads give the same points, counts and bounds as one pass', () => {
    const pts = points(997, true, 3);
    const path = write(pts, { format: 7, minor: 4, scale: [0.01, 0.01, 0.01], offset: [300000, 5000000, 10] });
    for (const [name, filters] of FILTERS) {
      for (const env of [{ XHD_READ_PIECE_BYTES: '36', XHD_LAS_THREADS: '3' }, { XHD_READ_PIECE_BYTES: '1000', XHD_LAS_THREADS: '2' }, { XHD_LAS_THREADS: '1' }] as Record<string, string>[]) {
        compare(path, { filters, lasAttributes: false }, `${name}, ${JSON.stringify(env)}`, env);
      }
    }
  });

  it('-0 and +0 coordinates keep the TypeScript order in the bounds, with and without --every', () => {
    // X = 0 with a negative scale gives -0 (offset -0), X = 0 with a positive scale +0: both in each piece.
    const pts: LasPoint[] = Array.from({ length: 40 }, (_, i) => ({ X: i % 3 === 0 ? 0 : i, Y: 0, Z: i % 2 ? 0 : -i, classification: 2 }));
    for (const scale of [[-0.5, 0.25, 1], [0.5, -0.25, -1]] as [number, number, number][]) {
      const path = write(pts, { format: 1, minor: 2, scale, offset: [-0, -0, -0] });
      for (const [name, filters] of FILTERS) {
        for (const env of [{}, { XHD_READ_PIECE_BYTES: '28', XHD_LAS_THREADS: '2' }] as Record<string, string>[]) compare(path, { filters }, `${name}, scale ${scale}`, env);
      }
    }
  });

  it('no points at all', () => {
    const path = write([], { format: 6, minor: 4 });
    for (const [name, filters] of FILTERS) compare(path, { filters, lasAttributes: true }, name);
  });

  it('a file that ends inside its records: the error names the point and the byte where the data ran out', () => {
    const pts = points(50, false);
    const bytes = lasBytes(pts, { format: 1, minor: 2 });
    const path = join(dir, 'short.las');
    writeFileSync(path, bytes.subarray(0, bytes.length - 40)); // the last 40 bytes of 28-byte records gone
    // The reader checks the size first; the native call is given the header as if the file shrank after.
    const header = parseLasHeader(bytes.subarray(0, 375), bytes.length, path);
    for (const env of [{}, { XHD_READ_PIECE_BYTES: '56', XHD_LAS_THREADS: '3' }] as Record<string, string>[]) {
      const error = withEnv(env, () => {
        try {
          readLasNatively(nativeReader()!, path, header, recordFilter({ classes: [1] }), 1, false);
        } catch (e) {
          return e;
        }
        return undefined;
      });
      assert.ok(error instanceof InputError, String(error));
      const end = bytes.length - 40;
      const point = Math.floor((end - header.pointDataOffset) / 28);
      assert.match(error.message, new RegExp(`byte ${end}\\b`));
      assert.match(error.message, new RegExp(`data ran out in point ${point} of 50$`));
    }
  });

  it('a missing file is an input error, not a crash', () => {
    const bytes = lasBytes(points(3, false), { format: 0, minor: 2 });
    const header = parseLasHeader(bytes.subarray(0, 375), bytes.length, 'x');
    assert.throws(() => readLasNatively(nativeReader()!, join(dir, 'absent.las'), header, null, 1, false), (e: unknown) => e instanceof InputError && /no such file/.test(e.message));
  });
});
