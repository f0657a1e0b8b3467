// The native decoder of LASzip's layered items (point formats 6 to 8) against laz-perf, record for record:
// files written by xhd's layered encoder (laz-layered-writer.ts) from made-up scans and from the real points
// of shared/data/lidar turned into format 6-8 records, decoded by the native decoder, by laz-perf chunk by
// chunk and by laz-perf's own whole-file reader. Then the reader's paths (filters, attributes for an export,
// threads) and damaged chunks.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import type { ReadOptions } from '../src/io/geometry.js';
import { readGeometry } from '../src/io/read.js';
import { nativeReader } from '../src/io/native-reader.js';
import { scratchDir } from './cli-run.js';
import { sharedData } from './helpers.js';
import { lazPerfChunkRecords, lazPerfFileRecords, nativeRecords, openLaz } from './laz-decoders.js';
import { chunkSizes, layeredLaz, layeredRecordLength, random, scanRecords, type LayeredFile } from './laz-layered-writer.js';
import { errorOf, withEnv } from './reader-test-tools.js';
import { lasBytes } from './las-writer.js';

const dir = scratchDir();
let serial = 0;
const noLibrary = !nativeReader() && 'the native CPU library is not built';

function write(records: Uint8Array, file: LayeredFile): string {
  const path = join(dir, `layered${serial++}.laz`);
  writeFileSync(path, layeredLaz(records, file).bytes);
  return path;
}

/** The records' coordinates, scaled as LAS readers do (product, then sum). */
function positionsOf(records: Uint8Array, length: number, scale = [0.01, 0.01, 0.01], offset = [0, 0, 0]): number[] {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  const out: number[] = [];
  for (let at = 0; at < records.length; at += length) {
    for (let k = 0; k < 3; k++) out.push(view.getInt32(at + 4 * k, true) * scale[k] + offset[k]);
  }
  return out;
}

/** The same three ways, each equal to the records written. */
function checkDecoders(path: string, records: Uint8Array): void {
  const file = openLaz(path);
  assert.equal(file.header.pointCount * file.header.recordLength, records.length);
  assert.ok(Buffer.from(lazPerfChunkRecords(file)).equals(Buffer.from(records)), 'laz-perf (chunks) differs from the records written');
  assert.ok(Buffer.from(lazPerfFileRecords(path).records).equals(Buffer.from(records)), "laz-perf's file reader differs from the records written");
  for (const threads of [1, 2]) {
    assert.ok(Buffer.from(nativeRecords(path, file, threads)).equals(Buffer.from(records)), `the native decoder (${threads} threads) differs`);
  }
}

describe('layered LAZ (point formats 6-8): the native decoder and laz-perf', { skip: noLibrary }, () => {
  for (const format of [6, 7, 8]) {
    for (const extra of [0, 5]) {
      it(`format ${format}${extra ? ` with ${extra} extra bytes` : ''}: every record, in chunks of 1 to 4,000 points`, () => {
        const records = scanRecords(9000, format, { extra, seed: format * 31 + extra });
        checkDecoders(write(records, { format, extra, chunks: [4000, 1, 2, 2500, 2497] }), records);
      });
    }
  }

  it('one scanner channel, fixed-size chunks, and a chunk of one point', () => {
    const records = scanRecords(5001, 7, { channels: false, seed: 3 });
    checkDecoders(write(records, { format: 7, chunks: chunkSizes(5001, 1000), fixed: true }), records);
  });

  it('records whose every field is noise (every code of every coder)', () => {
    for (const format of [6, 8]) {
      const length = layeredRecordLength(format, 2);
      const rand = random(99 + format);
      const records = Uint8Array.from({ length: 3000 * length }, () => Math.floor(rand() * 256));
      checkDecoders(write(records, { format, extra: 2, chunks: [3000] }), records);
    }
  });

  it('a chunk whose fields never change (empty layers)', () => {
    const one = scanRecords(1, 8, { extra: 3 });
    const records = new Uint8Array(one.length * 700);
    for (let i = 0; i < 700; i++) records.set(one, i * one.length);
    checkDecoders(write(records, { format: 8, extra: 3, chunks: [700] }), records);
  });

  const lidar = sharedData('lidar/point-color.las') && sharedData('lidar/point-time.las');
  it("the real points of shared/data/lidar as format 6-8 records", { skip: !lidar && 'no ../shared/data/lidar' }, () => {
    for (const [name, format] of [['point-time', 6], ['point-color', 7], ['point-color', 8]] as const) {
      // A format 1 or 2 record (LAS 1.2) carried over field by field into format 6-8.
      const las = readFileSync(sharedData(`lidar/${name}.las`)!);
      const view = new DataView(las.buffer, las.byteOffset, las.byteLength);
      const offset = view.getUint32(96, true), length = view.getUint16(105, true), count = view.getUint32(107, true);
      const sourceFormat = las[104];
      const out = layeredRecordLength(format, 0);
      const records = new Uint8Array(count * out);
      const rv = new DataView(records.buffer);
      for (let i = 0; i < count; i++) {
        const from = offset + i * length, to = i * out;
        records.set(las.subarray(from, from + 14), to); // X, Y, Z, intensity
        const returns = las[from + 14];
        records[to + 14] = (returns & 7) | (((returns >> 3) & 7) << 4);
        records[to + 15] = ((returns >> 6) & 1) << 6 | ((returns >> 7) & 1) << 7 | (las[from + 15] >> 5);
        records[to + 16] = las[from + 15] & 31;
        records[to + 17] = las[from + 17];
        rv.setInt16(to + 18, view.getInt8(from + 16) * 166, true);
        records.set(las.subarray(from + 18, from + 20), to + 20);
        if (sourceFormat === 1 || sourceFormat === 3) records.set(las.subarray(from + 20, from + 28), to + 22);
        else rv.setFloat64(to + 22, 1e5 + i * 1e-4, true);
        if (format >= 7) records.set(las.subarray(from + 20, from + 26), to + 30);
        if (format === 8) rv.setUint16(to + 36, (las[from + 20] << 8) | las[from + 22], true);
      }
      checkDecoders(write(records, { format, chunks: [400, 665] }), records);
    }
  });
});

describe('LAZ with wave packets (point formats 4, 5, 9, 10)', () => {
  it('is refused naming the file and the wave packet item, not misread', () => {
    for (const [format, items] of [[9, [[10, 30, 3], [13, 29, 3]]], [4, [[6, 20, 2], [7, 8, 2], [9, 29, 2]]]] as const) {
      const payload = new Uint8Array(34 + 6 * items.length);
      const view = new DataView(payload.buffer);
      view.setUint16(0, format === 9 ? 3 : 2, true);
      view.setUint32(12, 50_000, true);
      view.setUint16(32, items.length, true);
      items.forEach(([type, size, version], i) => {
        view.setUint16(34 + 6 * i, type, true);
        view.setUint16(36 + 6 * i, size, true);
        view.setUint16(38 + 6 * i, version, true);
      });
      const length = items.reduce((n, [, size]) => n + size, 0);
      const bytes = lasBytes([], { minor: 4, format, formatByte: format | 0x80, recordLength: length, vlrs: [{ userId: 'laszip encoded', recordId: 22204, payload }] });
      const path = join(dir, `waves${serial++}.laz`);
      writeFileSync(path, bytes);
      const error = errorOf(() => readGeometry(path));
      assert.ok(error.startsWith(`${path} (byte ${375 + 54 + 34 + 6 * (items.length - 1)}): LAZ with wave packets (point format ${format}) is not supported`), error);
    }
  });
});

describe('layered LAZ through the reader', { skip: noLibrary }, () => {
  const records = scanRecords(30_000, 7, { extra: 2, seed: 11 });
  const length = layeredRecordLength(7, 2);
  const path = write(records, { format: 7, extra: 2, chunks: chunkSizes(30_000, 7000) });

  it("decodes natively to the records' coordinates, as laz-perf does, on one thread and several", () => {
    const expected = positionsOf(records, length);
    for (const threads of ['1', '3']) {
      const g = withEnv({ XHD_LAZ_THREADS: threads }, () => readGeometry(path));
      assert.equal(g.lidar?.laz?.decoder, 'xhd native');
      assert.equal(g.lidar?.laz?.compressor, 'layered chunked');
      assert.deepEqual(Array.from(g.positions), expected);
    }
    const wasm = withEnv({ XHD_LAZ_DECODER: 'laz-perf' }, () => readGeometry(path));
    assert.equal(wasm.lidar?.laz?.decoder, 'laz-perf');
    assert.deepEqual(Array.from(wasm.positions), expected);
  });

  it('filters and the class and return counts agree with laz-perf, and the kept points keep their class and returns', () => {
    const options: ReadOptions = {
      filters: { classes: [2, 6, 17], returns: 'last', bbox: { min: [500_000, 4_800_000, -1e9], max: [502_000, 4_800_100, 1e9] } },
      lasAttributes: true,
    };
    const native = withEnv({ XHD_LAZ_THREADS: '2' }, () => readGeometry(path, options));
    const wasm = withEnv({ XHD_LAZ_DECODER: 'laz-perf', XHD_LAZ_THREADS: '2' }, () => readGeometry(path, options));
    assert.equal(native.lidar?.laz?.decoder, 'xhd native');
    assert.ok(native.count > 100 && native.count < 30_000, `${native.count} points kept`);
    assert.deepEqual(Array.from(native.positions), Array.from(wasm.positions));
    assert.deepEqual(native.lidar?.byClass, wasm.lidar?.byClass);
    assert.deepEqual(native.lidar?.byReturn, wasm.lidar?.byReturn);
    assert.deepEqual(native.bounds, wasm.bounds);
    assert.ok(native.lasAttributes && wasm.lasAttributes);
    assert.deepEqual(Array.from(native.lasAttributes), Array.from(wasm.lasAttributes));
    for (let i = 0; i < native.count; i++) assert.ok([2, 6, 17].includes(native.lasAttributes[2 * i]));
  });

  it('a damaged chunk is refused naming the file and the chunk\'s byte', () => {
    const layout = layeredLaz(records, { format: 7, extra: 2, chunks: chunkSizes(30_000, 7000) });
    const cases: [string, (b: Uint8Array) => void, RegExp][] = [
      ['a point count other than the table\'s', (b) => new DataView(b.buffer).setUint32(layout.chunkAt[1].offset + length, 6999, true),
        /LAZ chunk 2 of 5 \(7000 points\) cannot be decoded: .*damaged/],
      ['layer sizes past the chunk', (b) => new DataView(b.buffer).setUint32(layout.chunkAt[2].offset + length + 4, 0x7fffffff, true),
        /LAZ chunk 3 of 5 \(7000 points\) cannot be decoded: the chunk's \d+ bytes ran out/],
    ];
    for (const [what, damage, message] of cases) {
      const bytes = Uint8Array.from(layout.bytes);
      damage(bytes);
      const damaged = join(dir, `damaged${serial++}.laz`);
      writeFileSync(damaged, bytes);
      const chunk = /chunk (\d)/.exec(message.source)![1];
      const error = errorOf(() => readGeometry(damaged));
      assert.match(error, message, what);
      assert.ok(error.startsWith(`${damaged} (byte ${layout.chunkAt[Number(chunk) - 1].offset})`), `${what}: ${error}`);
    }
  });
});
