// The LAZ reader on the real LAZ files of shared/data/lidar (each must decode to exactly its LAS twin's
// points) and on files built from their chunks (laz-writer.ts): many chunks decoded by several threads,
// filters, and every damaged layout refused with the file and byte named.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import type { Geometry } from '../src/io/geometry.js';
import { readGeometry } from '../src/io/read.js';
import { scratchDir } from './cli-run.js';
import { sharedData } from './helpers.js';
import { lazPerfChunkRecords, nativeRecords, openLaz, typescriptRecords } from './laz-decoders.js';
import { lazFromTemplate, type LazBuild } from './laz-writer.js';
import { errorOf, withEnv } from './reader-test-tools.js';
import { suiteUnless } from './skippable-suite.js';

const TWINS = ['point10', 'point-time', 'point-color'];
const missing = TWINS.some((n) => !sharedData(`lidar/${n}.las.laz`)) && 'no ../shared/data/lidar';
const dir = scratchDir();
let serial = 0;

function repeated(g: Geometry, copies: number): number[] {
  const one = Array.from(g.positions);
  return Array.from({ length: copies }, () => one).flat();
}

suiteUnless(missing, 'LAZ', () => {
  const lidar = (name: string) => sharedData(`lidar/${name}`)!;
  const build = (name: string, spec: LazBuild, transform?: (bytes: Uint8Array) => Uint8Array) => {
    let bytes = lazFromTemplate(readFileSync(lidar(`${name}.las.laz`)), spec);
    if (transform) bytes = transform(bytes);
    const path = join(dir, `built${serial++}.laz`);
    writeFileSync(path, bytes);
    return path;
  };

  it("the native decoder hands back each kept point's class and returns (for an export) as the LAS twin's reader and the TypeScript decoder do", () => {
    for (const name of TWINS) {
      const options = { filters: { returns: 'first' as const }, lasAttributes: true };
      const native = readGeometry(lidar(`${name}.las.laz`), options);
      const typescript = withEnv({ XHD_LAZ_DECODER: 'typescript' }, () => readGeometry(lidar(`${name}.las.laz`), options));
      const las = readGeometry(lidar(`${name}.las`), options);
      assert.equal(native.lidar?.laz?.decoder, 'xhd native');
      assert.equal(typescript.lidar?.laz?.decoder, 'xhd');
      assert.ok(native.lasAttributes && native.lasAttributes.length === 2 * native.count && native.count > 0);
      assert.deepEqual(Array.from(native.lasAttributes), Array.from(las.lasAttributes!));
      assert.deepEqual(Array.from(native.lasAttributes), Array.from(typescript.lasAttributes!));
    }
  });

  for (const name of TWINS) {
    it(`${name}.las.laz decodes to exactly the points of ${name}.las`, () => {
      const las = readGeometry(lidar(`${name}.las`));
      const laz = readGeometry(lidar(`${name}.las.laz`));
      assert.equal(laz.format, 'laz');
      assert.equal(laz.count, 1065);
      assert.deepEqual(Array.from(laz.positions), Array.from(las.positions));
      assert.deepEqual(laz.bounds, las.bounds);
      assert.deepEqual(laz.lidar?.byClass, las.lidar?.byClass);
      assert.deepEqual(laz.lidar?.byReturn, las.lidar?.byReturn);
      assert.deepEqual(laz.crs, las.crs);
      assert.equal(laz.crs?.epsg, 26910);
    });
  }

  it('every record field: the native decoder, the TypeScript one and laz-perf give the LAS twin\'s records byte for byte', () => {
    for (const name of TWINS) {
      const path = lidar(`${name}.las.laz`);
      const file = openLaz(path);
      const las = readFileSync(lidar(`${name}.las`));
      const view = new DataView(las.buffer, las.byteOffset, las.byteLength);
      const start = view.getUint32(96, true), length = view.getUint16(105, true), count = view.getUint32(107, true);
      assert.equal(length, file.header.recordLength, name);
      assert.equal(count, file.header.pointCount, name);
      const twin = las.subarray(start, start + count * length);
      // The native decoder also with its chunks read 100 bytes at a time (XHD_READ_PIECE_BYTES, as for the other readers).
      const windowed = withEnv({ XHD_READ_PIECE_BYTES: '100' }, () => nativeRecords(path, file, 2));
      for (const [decoder, records] of [['native', nativeRecords(path, file, 2)], ['native, 100-byte reads', windowed],
        ['typescript', typescriptRecords(file)], ['laz-perf', lazPerfChunkRecords(file)]] as const) {
        assert.ok(Buffer.from(records).equals(twin), `${name}: ${decoder}`);
      }
    }
  });

  it("xhd's native and TypeScript decoders (formats 0-3) and laz-perf give the same records, and each says which decoded", () => {
    for (const name of TWINS) {
      const path = build(name, { copies: 5 });
      const native = withEnv({ XHD_LAZ_THREADS: '2' }, () => readGeometry(path));
      const own = withEnv({ XHD_LAZ_THREADS: '2', XHD_LAZ_DECODER: 'typescript' }, () => readGeometry(path));
      const wasm = withEnv({ XHD_LAZ_THREADS: '2', XHD_LAZ_DECODER: 'laz-perf' }, () => readGeometry(path));
      assert.equal(native.lidar?.laz?.decoder, 'xhd native');
      assert.equal(own.lidar?.laz?.decoder, 'xhd');
      assert.equal(wasm.lidar?.laz?.decoder, 'laz-perf');
      for (const other of [own, wasm]) {
        assert.deepEqual(Array.from(native.positions), Array.from(other.positions), name);
        assert.deepEqual(native.bounds, other.bounds);
        assert.deepEqual(native.lidar?.byClass, other.lidar?.byClass);
        assert.deepEqual(native.lidar?.byReturn, other.lidar?.byReturn);
      }
    }
  });

  it('without the native library (XHD_NATIVE_READ=0) the TypeScript decoder reads the same points', () => {
    const path = build('point-time', { copies: 4 });
    const native = readGeometry(path);
    const typescript = withEnv({ XHD_NATIVE_READ: '0' }, () => readGeometry(path));
    assert.equal(native.lidar?.laz?.decoder, 'xhd native');
    assert.equal(typescript.lidar?.laz?.decoder, 'xhd');
    assert.deepEqual(Array.from(typescript.positions), Array.from(native.positions));
  });

  it('a LAZ file without points', () => {
    const g = readGeometry(lidar('no-points-1.3.laz'));
    assert.equal(g.count, 0);
    assert.equal(g.lidar?.version, '1.3');
  });

  it('many variable-sized chunks, on one thread and on several, give every point in order', () => {
    const path = build('point-color', { copies: 25 });
    const las = readGeometry(lidar('point-color.las'));
    const expected = repeated(las, 25);
    for (const threads of ['1', '2', '3']) {
      const g = withEnv({ XHD_LAZ_THREADS: threads }, () => readGeometry(path));
      assert.equal(g.lidar?.laz?.chunks, 25);
      assert.equal(g.lidar?.laz?.chunkSize, null);
      assert.deepEqual(Array.from(g.positions), expected, `${threads} threads`);
      assert.equal(g.lidar?.byClass['2'], 25 * 276);
    }
  });

  it('many fixed-size chunks (the chunk size in the LASzip VLR, byte counts alone in the table)', () => {
    const g = withEnv({ XHD_LAZ_THREADS: '2' }, () => readGeometry(build('point10', { copies: 7, fixed: true })));
    assert.equal(g.lidar?.laz?.chunkSize, 1065);
    assert.equal(g.lidar?.laz?.chunks, 7);
    assert.deepEqual(Array.from(g.positions), repeated(readGeometry(lidar('point10.las')), 7));
  });

  it('filters on LAZ keep what they keep on the LAS twin, across threads', () => {
    const path = build('point-time', { copies: 6 });
    const filters = { classes: [2], returns: 'last' as const, every: 4 };
    const las = readGeometry(lidar('point-time.las'), { filters: { classes: [2], returns: 'last' } });
    const expected = repeated(las, 6).filter((_, i) => Math.floor(i / 3) % 4 === 0);
    const g = withEnv({ XHD_LAZ_THREADS: '2' }, () => readGeometry(path, { filters }));
    assert.deepEqual(Array.from(g.positions), expected);
    assert.ok(g.count > 0);
  });

  it("a chunk table offset kept in the file's last 8 bytes (streaming writers) is followed", () => {
    const g = readGeometry(build('point10', { copies: 3, offsetAtEnd: true }));
    assert.equal(g.count, 3 * 1065);
  });

  describe('damaged LAZ: one line naming the file and the byte', () => {
    const check = (path: string, message: RegExp) => {
      const error = errorOf(() => withEnv({ XHD_LAZ_THREADS: '2' }, () => readGeometry(path)));
      assert.match(error, message);
      assert.ok(error.startsWith(path) && !error.includes('\n'), error);
    };
    it('a chunk table offset outside the file', () => {
      check(build('point10', { copies: 2, tableOffset: 10 ** 9 }), /\(byte \d+\): the chunk table offset 1000000000 points outside the file's compressed data/);
    });
    it('a chunk table entry that points outside the compressed data', () => {
      const size = readFileSync(lidar('point10.las.laz')).length;
      check(build('point10', { copies: 2, entries: [{ points: 1065, bytes: 100 }, { points: 1065, bytes: 10 * size }] }), /chunk 2 of 2 \(1065 points, \d+ bytes from byte \d+\) lies outside the compressed data/);
    });
    it('a chunk claiming more points than its bytes can hold', () => {
      check(build('point10', { copies: 1, entries: [{ points: 10 ** 7, bytes: 100 }] }), /chunk 1 of 1 claims 10000000 points in 100 bytes, more than LASzip can pack/);
    });
    it("chunks whose points do not add up to the header's count", () => {
      check(build('point10', { copies: 2, entries: [{ points: 1065, bytes: 100 }, { points: 7, bytes: 100 }] }), /the chunk table's chunks hold 1072 points, but the header declares 2130/);
    });
    it('a file cut inside its chunk table', () => {
      check(build('point10', { copies: 40 }, (b) => b.subarray(0, b.length - 30)), /file is truncated: the chunk table ends inside chunk \d+ of 40/);
    });
    it('a chunk cut short is refused by every decoder', () => {
      for (const decoder of ['native', 'typescript', 'laz-perf']) {
        const path = build('point-color', { copies: 2, entries: [{ points: 1065, bytes: 400 }, { points: 1065, bytes: 400 }] });
        const error = errorOf(() => withEnv({ XHD_LAZ_DECODER: decoder }, () => readGeometry(path)));
        assert.match(error, /\(byte \d+\): LAZ chunk 1 of 2 (\(1065 points\) cannot be decoded|decodes to)/, decoder);
      }
    });
    it('a damaged chunk decodes outside the header bounds and is refused, naming it', () => {
      const path = build('point-color', { copies: 8 }, (b) => {
        const out = Uint8Array.from(b);
        const view = new DataView(out.buffer);
        const table = Number(view.getBigInt64(view.getUint32(96, true), true));
        // The last chunk's middle overwritten: its arithmetic-coded points go wrong from there on.
        const chunk = (table - view.getUint32(96, true) - 8) / 8;
        for (let i = 0; i < 200; i++) out[table - chunk / 2 + i] ^= 0x5a;
        return out;
      });
      check(path, /\(byte \d+\): LAZ chunk 8 of 8 .*(outside the header's|cannot be decoded)/);
    });
    it('bytes overwritten inside chunks: the native decoder fails as the TypeScript one does, on any thread count', () => {
      // LAZ has no checksum: damage decodes to wrong points, which the check against the header's bounds
      // (or a chunk running out of bytes) catches; the outcome must not depend on the decoder or the threads.
      let seed = 12345;
      const next = () => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) / 2 ** 32;
      };
      const outcome = (path: string, env: Record<string, string>) => {
        try {
          const g = withEnv(env, () => readGeometry(path));
          return `${g.count} points: ${Array.from(g.positions).join(',')}`;
        } catch (error) {
          return (error as Error).message;
        }
      };
      for (const name of TWINS) {
        for (let trial = 0; trial < 12; trial++) {
          const path = build(name, { copies: 3 }, (b) => {
            const out = Uint8Array.from(b);
            const view = new DataView(out.buffer);
            const start = view.getUint32(96, true) + 8, table = Number(view.getBigInt64(start - 8, true));
            const run = 1 + Math.floor(next() * 20), at = start + Math.floor(next() * (table - start - run));
            for (let i = 0; i < run; i++) out[at + i] = Math.floor(next() * 256);
            return out;
          });
          const native = outcome(path, { XHD_LAZ_THREADS: '2' });
          assert.equal(outcome(path, { XHD_LAZ_THREADS: '1' }), native);
          assert.equal(outcome(path, { XHD_LAZ_DECODER: 'typescript' }), native);
          if (!/^\d+ points/.test(native)) assert.match(native, /^\S+\.laz \(byte \d+\): LAZ chunk \d of 3 /);
        }
      }
    });
    it("a record length that disagrees with the LASzip VLR's items", () => {
      const path = build('point-time', { copies: 1 }, (b) => {
        const out = Uint8Array.from(b);
        new DataView(out.buffer).setUint16(105, 32284, true);
        return out;
      });
      check(path, /\(byte 105\): point record length 32284 disagrees with the 28 bytes of the LASzip VLR's items/);
    });
    it('the compressed point format without a LASzip VLR', () => {
      const las = readFileSync(lidar('point10.las'));
      const bytes = Uint8Array.from(las);
      bytes[104] |= 0x80;
      const path = join(dir, `novlr${serial++}.laz`);
      writeFileSync(path, bytes);
      check(path, /\(byte 104\): the point format says compressed \(LAZ\), but there is no LASzip VLR/);
    });
    it('an unchunked (LASzip 1.0 pointwise) file is refused, not misread', () => {
      const path = build('point10', { copies: 1 }, (b) => {
        const out = Uint8Array.from(b);
        const view = new DataView(out.buffer);
        let at = view.getUint16(94, true);
        for (let i = 0; i < view.getUint32(100, true); i++) {
          if (new TextDecoder().decode(out.subarray(at + 2, at + 16)) === 'laszip encoded') view.setUint16(at + 54, 1, true);
          at += 54 + view.getUint16(at + 20, true);
        }
        return out;
      });
      check(path, /LASzip 1\.0 pointwise compression \(unchunked\) is not supported/);
    });
  });
});
