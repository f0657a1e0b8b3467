// The native LAZ writer (src/io/laz-write.ts, kernels/cpu/laz_writer.cpp) on generated points: UTM-sized
// coordinates, classes, returns, GPS times (steady, repeated, jumping back and far), colours (grey and not)
// and a double 'distance' as extra bytes. Each file must decode, by the native decoder, xhd's TypeScript
// decoder and laz-perf (chunk by chunk and with its own whole-file reader), to exactly the records the
// points make, and read back through readGeometry to the points' coordinates on the LAS grid.
import assert from 'node:assert/strict';
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readFully } from '../src/io/input-file.js';
import { isCrsRecord } from '../src/io/las-crs.js';
import { LAS_HEADER_PROBE, parseLasHeader } from '../src/io/las-header.js';
import { readLasVlrs, readVlrPayload } from '../src/io/las-vlrs.js';
import { readGeometry } from '../src/io/read.js';
import { writeLaz, type LazPoints } from '../src/io/laz-write.js';
import { nativeReader } from '../src/io/native-reader.js';
import { scratchDir } from './cli-run.js';
import { sharedData } from './helpers.js';
import { generateLidarPoints, type Generated } from './laz-points.js';
import { lazPerfChunkRecords, lazPerfFileRecords, nativeRecords, openLaz, typescriptRecords } from './laz-decoders.js';
import { suiteUnless } from './skippable-suite.js';

const dir = scratchDir();
const SCALE: [number, number, number] = [0.01, 0.01, 0.001];
const OFFSET: [number, number, number] = [500000, 4100000, 0];

const generate = (count: number, seed: number) => generateLidarPoints(count, seed, SCALE, OFFSET);

/** The LAS records the points make, built here independently of the writer. */
function expectedRecords(g: Generated, format: number, withDistance: boolean): Uint8Array {
  const count = g.X.length;
  const base = [20, 28, 26, 34][format];
  const length = base + (withDistance ? 8 : 0);
  const out = new Uint8Array(count * length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < count; i++) {
    const at = i * length;
    view.setInt32(at, g.X[i], true);
    view.setInt32(at + 4, g.Y[i], true);
    view.setInt32(at + 8, g.Z[i], true);
    view.setUint16(at + 12, g.intensity[i], true);
    view.setUint8(at + 14, g.returnNumber[i] | (g.returnCount[i] << 3));
    view.setUint8(at + 15, g.classification[i]);
    let next = at + 20;
    if (format === 1 || format === 3) {
      view.setFloat64(next, g.gpsTime[i], true);
      next += 8;
    }
    if (format === 2 || format === 3) {
      for (let c = 0; c < 3; c++) view.setUint16(next + 2 * c, g.rgb[3 * i + c], true);
      next += 6;
    }
    if (withDistance) view.setFloat64(next, g.distance[i], true);
  }
  return out;
}

function pointsFor(g: Generated, format: number, withDistance: boolean): LazPoints {
  return {
    xyz: g.xyz,
    intensity: g.intensity,
    returnNumber: g.returnNumber,
    returnCount: g.returnCount,
    classification: g.classification,
    gpsTime: format === 1 || format === 3 ? g.gpsTime : undefined,
    rgb: format === 2 || format === 3 ? g.rgb : undefined,
    extra: withDistance ? [{ name: 'distance', values: g.distance, description: 'distance to B' }] : undefined,
  };
}

/** Where two byte arrays first differ, for a readable failure. */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

suiteUnless(!nativeReader() && 'the native CPU library is not built', 'LAZ writer', () => {
  const g = generate(23_457, 7);
  for (const format of [0, 1, 2, 3]) {
    for (const withDistance of format === 0 || format === 3 ? [false, true] : [false]) {
      it(`point format ${format}${withDistance ? ' + distance' : ''}: every decoder gives back exactly the records written`, () => {
        const path = join(dir, `written-${format}-${withDistance}.laz`);
        const written = writeLaz(path, pointsFor(g, format, withDistance), { scale: SCALE, offset: OFFSET, chunkSize: 5000 });
        assert.equal(written.chunks, 5);
        assert.equal(written.pointFormat, format);
        const expected = expectedRecords(g, format, withDistance);
        const file = openLaz(path);
        assert.equal(file.header.pointCount, 23_457);
        assert.equal(file.header.recordLength, expected.length / 23_457);
        assert.equal(file.layout.chunkSize, 5000);
        for (const [name, records] of [
          ['native, 1 thread', nativeRecords(path, file, 1)],
          ['native, 3 threads', nativeRecords(path, file, 3)],
          ['typescript', typescriptRecords(file)],
          ['laz-perf chunks', lazPerfChunkRecords(file)],
        ] as const) {
          assert.equal(firstDifference(records, expected), -1, name);
        }
        const whole = lazPerfFileRecords(path);
        assert.equal(whole.count, 23_457);
        assert.equal(firstDifference(whole.records, expected), -1, 'laz-perf LASZip');
        const geometry = readGeometry(path);
        assert.equal(geometry.count, 23_457);
        for (let i = 0; i < 23_457; i += 997) {
          assert.equal(geometry.positions[3 * i], g.X[i] * SCALE[0] + OFFSET[0]);
          assert.equal(geometry.positions[3 * i + 2], g.Z[i] * SCALE[2] + OFFSET[2]);
        }
        assert.deepEqual(geometry.bounds?.min, written.min);
        assert.deepEqual(geometry.bounds?.max, written.max);
        assert.equal(geometry.lidar?.laz?.decoder, 'xhd native');
      });
    }
  }

  it('one point, and no points, make files that read back', () => {
    const one = join(dir, 'one.laz');
    writeLaz(one, { xyz: Float64Array.of(500001.25, 4100002.5, 12.125) }, { scale: SCALE, offset: OFFSET });
    assert.deepEqual(Array.from(readGeometry(one).positions), [500001.25, 4100002.5, 12.125]);
    assert.deepEqual(lazPerfFileRecords(one).count, 1);
    const none = join(dir, 'none.laz');
    writeLaz(none, { xyz: new Float64Array(0) });
    assert.equal(readGeometry(none).count, 0);
  });

  it('LAS 1.4 headers carry the 64-bit counts', () => {
    const path = join(dir, 'v14.laz');
    writeLaz(path, pointsFor(g, 1, false), { scale: SCALE, offset: OFFSET, minor: 4 });
    const file = openLaz(path);
    assert.equal(file.header.versionMinor, 4);
    assert.equal(file.header.pointCount, 23_457);
    assert.equal(firstDifference(nativeRecords(path, file), expectedRecords(g, 1, false)), -1);
  });

  it("a CRS copied from an input's VLRs (as an export would) reads back, with the global encoding given", () => {
    const source = sharedData('lidar/point-time.las');
    if (!source) return; // the shared LiDAR samples are not here
    const fd = openSync(source, 'r');
    let vlrs;
    try {
      const size = statSync(source).size;
      const prefix = new Uint8Array(Math.min(LAS_HEADER_PROBE, size));
      readFully(fd, prefix, 0, prefix.length, 0);
      const header = parseLasHeader(prefix, size, source);
      vlrs = readLasVlrs(fd, header, size, source).filter(isCrsRecord).map((v) => ({ userId: v.userId, recordId: v.recordId, payload: readVlrPayload(fd, v) }));
    } finally {
      closeSync(fd);
    }
    assert.ok(vlrs.length > 0);
    const path = join(dir, 'crs.laz');
    writeLaz(path, pointsFor(g, 0, true), { scale: SCALE, offset: OFFSET, minor: 4, globalEncoding: 16, vlrs });
    const geometry = readGeometry(path);
    assert.equal(geometry.crs?.epsg, 26910);
    assert.equal(openLaz(path).header.globalEncoding, 16);
    assert.equal(geometry.count, 23_457);
  });

  it('a coordinate off the 32-bit grid is refused, naming the point, and leaves no file', () => {
    const path = join(dir, 'refused.laz');
    writeFileSync(path, 'old');
    const xyz = Float64Array.from(g.xyz.subarray(0, 3 * 3000));
    xyz[3 * 1234 + 1] = 1e12;
    xyz[3 * 2345] = NaN; // a later bad point: the first is the one named
    assert.throws(() => writeLaz(path, { xyz }, { scale: SCALE, offset: OFFSET, chunkSize: 500 }),
      /refused\.laz: cannot write: point 1234's y 1000000000000 does not fit LAS's 32-bit integers/);
    assert.equal(readdirSync(dir).filter((f) => f.includes('refused') && f.endsWith('.partial')).length, 0);
    assert.equal(readFileSync(path, 'utf8'), 'old'); // the file that was there is untouched
  });
});

describe('LAZ writer arguments', () => {
  it('fields of the wrong length are refused before anything is written', () => {
    assert.throws(() => writeLaz(join(dir, 'bad.laz'), { xyz: new Float64Array(6), intensity: new Uint16Array(3) }), /intensity must hold one value a point \(2\)/);
  });
});
