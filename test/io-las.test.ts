// The LAS reader: every point format and header version round-trips through the test writer with survey-sized
// coordinates (each the double X * scale + offset), longer records and pieces change nothing, the CRS is read
// from GeoTIFF keys and WKT, filters keep what they say, and every lying or damaged header is one error naming
// the file and the byte.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readGeometry } from '../src/io/read.js';
import { scratchDir } from './cli-run.js';
import { expectedPositions, geoKeys, lasBytes, text, type LasPoint, type LasWriteOptions } from './las-writer.js';
import { errorOf, withEnv } from './reader-test-tools.js';

const dir = scratchDir();
let serial = 0;
function write(points: LasPoint[], options: LasWriteOptions = {}, ext = 'las'): string {
  const path = join(dir, `t${serial++}.${ext}`);
  writeFileSync(path, lasBytes(points, options));
  return path;
}

/** Points with UTM-sized raw integers around a 500000 / 4200000 offset, varied classes and returns. */
function survey(n: number, seed = 1): LasPoint[] {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: n }, (_, i) => {
    const returns = 1 + (i % 4);
    return {
      X: Math.floor(next() * 2e9) - 1e9, Y: Math.floor(next() * 2e9) - 1e9, Z: Math.floor(next() * 2e6) - 1e6,
      classification: [1, 2, 2, 6, 9][i % 5], numberOfReturns: returns, returnNumber: 1 + (i % returns),
    };
  });
}

describe('LAS point formats and versions', () => {
  const points = survey(50);
  for (let format = 0; format <= 10; format++) {
    for (const minor of format >= 6 ? [4] : [0, 1, 2, 3, 4]) {
      it(`format ${format}, LAS 1.${minor}: coordinates are X * scale + offset in double`, () => {
        const scale: [number, number, number] = [0.001, 0.001, 0.01];
        const offset: [number, number, number] = [500000, 4200000, 0];
        const g = readGeometry(write(points, { format, minor, scale, offset }));
        assert.equal(g.format, 'las');
        assert.ok(g.positions instanceof Float64Array);
        assert.deepEqual(Array.from(g.positions), expectedPositions(points, scale, offset));
        assert.equal(g.lidar?.pointFormat, format);
        assert.equal(g.lidar?.version, `1.${minor}`);
        assert.deepEqual(g.lidar?.byClass, { 1: 10, 2: 20, 6: 10, 9: 10 });
      });
    }
  }

  it('records longer than the format (extra bytes) are stepped over whole', () => {
    for (const format of [0, 3, 6, 8]) {
      const g = readGeometry(write(points, { format, minor: 4, recordLength: 80 + format }));
      assert.deepEqual(Array.from(g.positions), expectedPositions(points, [0.01, 0.01, 0.01], [0, 0, 0]));
    }
  });

  it('the coordinates are exactly the product rounded, then the sum rounded (never fused)', () => {
    // 0.1 * 3 + 0.2 rounds differently fused and unfused; the reader must give the unfused double.
    const g = readGeometry(write([{ X: 3, Y: 7, Z: -9 }], { scale: [0.1, 0.1, 0.1], offset: [0.2, 4200000.3, 0.7] }));
    assert.deepEqual(Array.from(g.positions), [3 * 0.1 + 0.2, 7 * 0.1 + 4200000.3, -9 * 0.1 + 0.7]);
  });

  it('LAS 1.4 takes the 64-bit point count (legacy count 0 for formats 6-10)', () => {
    const g = readGeometry(write(points, { format: 6, minor: 4 }));
    assert.equal(g.count, 50);
    assert.equal(g.lidar?.pointsInFile, 50);
  });

  it('reading in small pieces gives the same points', () => {
    const path = write(survey(1000), { format: 7, minor: 4, recordLength: 41 });
    const whole = readGeometry(path);
    const pieces = withEnv({ XHD_READ_PIECE_BYTES: '100' }, () => readGeometry(path));
    assert.deepEqual(Array.from(pieces.positions), Array.from(whole.positions));
  });

  it('waveform formats say the waveforms are ignored', () => {
    const g = readGeometry(write(points, { format: 9, minor: 4 }));
    assert.ok(g.notes.some((n) => n.includes('waveform')), g.notes.join('\n'));
  });

  it('a file named otherwise is still recognised by its LASF signature', () => {
    const path = join(dir, 'no-extension');
    writeFileSync(path, lasBytes(points, { format: 1 }));
    assert.equal(readGeometry(path).format, 'las');
  });
});

describe('LAS filters', () => {
  const points = survey(200);
  const scale: [number, number, number] = [0.01, 0.01, 0.01];
  const offset: [number, number, number] = [500000, 4200000, 100];
  const all = expectedPositions(points, scale, offset);
  const pick = (keep: (p: LasPoint, i: number) => boolean) => points.flatMap((p, i) => (keep(p, i) ? all.slice(3 * i, 3 * i + 3) : []));
  for (const format of [1, 6]) {
    const path = write(points, { format, minor: 4, scale, offset });
    it(`format ${format}: --classes keeps those classes`, () => {
      const g = readGeometry(path, { filters: { classes: [2, 6] } });
      assert.deepEqual(Array.from(g.positions), pick((p) => p.classification === 2 || p.classification === 6));
      assert.ok(g.notes.some((n) => n.startsWith('--classes 2,6 kept')));
    });
    it(`format ${format}: --returns first and last`, () => {
      assert.deepEqual(Array.from(readGeometry(path, { filters: { returns: 'first' } }).positions), pick((p) => p.returnNumber === 1));
      assert.deepEqual(Array.from(readGeometry(path, { filters: { returns: 'last' } }).positions), pick((p) => p.returnNumber === p.numberOfReturns));
    });
    it(`format ${format}: --bbox in 2D and 3D, then --every`, () => {
      const box = { min: [500000 - 5e6, 4200000 - 5e6, -Infinity] as [number, number, number], max: [500000 + 5e6, 4200000 + 2e6, Infinity] as [number, number, number] };
      const inside = (i: number) => all[3 * i] >= box.min[0] && all[3 * i] <= box.max[0] && all[3 * i + 1] >= box.min[1] && all[3 * i + 1] <= box.max[1];
      const g = readGeometry(path, { filters: { bbox: box } });
      assert.deepEqual(Array.from(g.positions), pick((_, i) => inside(i)));
      assert.ok(g.count > 0 && g.count < 200);
      const box3 = { min: [-Infinity, -Infinity, 100] as [number, number, number], max: [Infinity, Infinity, 5000] as [number, number, number] };
      assert.deepEqual(Array.from(readGeometry(path, { filters: { bbox: box3 } }).positions), pick((_, i) => all[3 * i + 2] >= 100 && all[3 * i + 2] <= 5000));
      const thinned = readGeometry(path, { filters: { classes: [2], every: 3 } });
      const ground = pick((p) => p.classification === 2);
      assert.deepEqual(Array.from(thinned.positions), ground.filter((_, k) => Math.floor(k / 3) % 3 === 0));
    });
  }
  it('counts by class and return are of the whole file, whatever the filters keep', () => {
    const g = readGeometry(write(points, { format: 6, minor: 4 }), { filters: { classes: [9] } });
    assert.equal(g.count, 40);
    assert.deepEqual(g.lidar?.byClass, { 1: 40, 2: 80, 6: 40, 9: 40 });
    assert.equal(Object.values(g.lidar!.byReturn).reduce((a, b) => a + b, 0), 200);
  });
});

describe('LAS CRS', () => {
  const points = survey(3);
  it('GeoTIFF keys: projected EPSG, linear units, vertical EPSG and units, citation', () => {
    const keys = geoKeys([[1024, 0, 1, 1], [3072, 0, 1, 32633], [3076, 0, 1, 9001], [4096, 0, 1, 5703], [4099, 0, 1, 9003], [3073, 34737, 22, 0]]);
    const g = readGeometry(write(points, { vlrs: [
      { userId: 'LASF_Projection', recordId: 34735, payload: keys },
      { userId: 'LASF_Projection', recordId: 34737, payload: text('WGS 84 / UTM zone 33N|') },
    ] }));
    assert.deepEqual({ ...g.crs }, { source: 'GeoTIFF keys', epsg: 32633, name: 'WGS 84 / UTM zone 33N', units: 'metre', verticalEpsg: 5703, verticalUnits: 'US survey foot' });
  });
  it('geographic keys give the geographic EPSG and angular units', () => {
    const g = readGeometry(write(points, { vlrs: [{ userId: 'LASF_Projection', recordId: 34735, payload: geoKeys([[1024, 0, 1, 2], [2048, 0, 1, 4326], [2054, 0, 1, 9102]]) }] }));
    assert.equal(g.crs?.epsg, 4326);
    assert.equal(g.crs?.units, 'degree');
  });
  it('WKT1 compound CRS in an EVLR (LAS 1.4): name, codes and units from the text', () => {
    const wkt = 'COMPD_CS["ETRS89 / UTM 32N + DHHN2016",PROJCS["ETRS89 / UTM zone 32N",GEOGCS["ETRS89",DATUM["European_Terrestrial_Reference_System_1989",SPHEROID["GRS 1980",6378137,298.257222101]],' +
      'UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],UNIT["metre",1],AXIS["Easting",EAST],AUTHORITY["EPSG","25832"]],VERT_CS["DHHN2016 height",VERT_DATUM["DHHN2016",2005],UNIT["metre",1],AUTHORITY["EPSG","7837"]]]';
    const g = readGeometry(write(points, { minor: 4, format: 6, evlrs: [{ userId: 'LASF_Projection', recordId: 2112, payload: text(wkt) }] }));
    assert.equal(g.crs?.epsg, 25832);
    assert.equal(g.crs?.verticalEpsg, 7837);
    assert.equal(g.crs?.name, 'ETRS89 / UTM zone 32N');
    assert.equal(g.crs?.units, 'metre');
    assert.equal(g.crs?.wkt, wkt);
  });
  it('WKT2 with ID and LENGTHUNIT', () => {
    const wkt = 'PROJCRS["NAD83(2011) / UTM zone 15N",BASEGEOGCRS["NAD83(2011)",DATUM["NAD83 (National Spatial Reference System 2011)",ELLIPSOID["GRS 1980",6378137,298.257222101]]],' +
      'CONVERSION["UTM zone 15N",METHOD["Transverse Mercator"]],CS[Cartesian,2],AXIS["easting (E)",east],AXIS["northing (N)",north],LENGTHUNIT["US survey foot",0.304800609601219],ID["EPSG",6344]]';
    const g = readGeometry(write(points, { vlrs: [{ userId: 'LASF_Projection', recordId: 2112, payload: text(wkt) }] }));
    assert.equal(g.crs?.epsg, 6344);
    assert.equal(g.crs?.units, 'US survey foot');
    assert.equal(g.crs?.source, 'WKT');
  });
  it('no CRS records: no CRS', () => {
    assert.equal(readGeometry(write(points)).crs, undefined);
  });
});

describe('bad LAS input: one line naming the file and the byte', () => {
  const points = survey(10);
  const good = lasBytes(points, { format: 1, minor: 2 });
  const mutate = (change: (bytes: Uint8Array, view: DataView) => void, length = good.length) => {
    const bytes = Uint8Array.from(good.subarray(0, length));
    change(bytes, new DataView(bytes.buffer));
    const path = join(dir, `bad${serial++}.las`);
    writeFileSync(path, bytes);
    return path;
  };
  const cases: [string, string, RegExp][] = [
    ['not LASF', mutate((b) => b.set([0x58], 0)), /\(byte 0\): not a LAS file/],
    ['version 2.0', mutate((b) => { b[24] = 2; b[25] = 0; }), /\(byte 24\): LAS version 2\.0 is not supported/],
    ['header size too small', mutate((_, v) => v.setUint16(94, 100, true)), /\(byte 94\): header size 100 is too small/],
    ['offset to points outside the file', mutate((_, v) => v.setUint32(96, 1e6, true)), /\(byte 96\): offset to point data 1000000 lies outside/],
    ['point format 11', mutate((b) => { b[104] = 11; }), /\(byte 104\): point data format 11/],
    ['record shorter than its format', mutate((_, v) => v.setUint16(105, 20, true)), /\(byte 105\): point record length 20 is shorter than point format 1's 28/],
    ['a lying point count', mutate((_, v) => v.setUint32(107, 4_000_000_000, true)), new RegExp(`\\(byte ${good.length}\\): file is truncated: the header declares 4000000000 points`)],
    ['truncated body', mutate(() => undefined, good.length - 5), new RegExp(`\\(byte ${good.length - 5}\\): file is truncated.*room for 9 points`)],
    ['truncated header', mutate(() => undefined, 200), /\(byte 200\): file is truncated: a LAS header/],
    ['a zero scale', mutate((_, v) => v.setFloat64(139, 0, true)), /\(byte 139\): y scale factor 0/],
    ['a VLR running into the points', mutate((_, v) => v.setUint32(100, 1, true)), /\(byte 227\): VLR 1 of 1 runs past the start of the point data/],
  ];
  for (const [name, path, message] of cases) {
    it(name, () => {
      const error = errorOf(() => readGeometry(path));
      assert.match(error, message);
      assert.ok(error.startsWith(path), error);
      assert.ok(!error.includes('\n'));
    });
  }
  it('legacy and 64-bit counts that disagree (LAS 1.4)', () => {
    const path = write(points, { format: 1, minor: 4, legacyCount: 7 });
    assert.match(errorOf(() => readGeometry(path)), /\(byte 107\): legacy point count 7 disagrees with the 64-bit point count 10/);
  });
  it('an EVLR past the file end', () => {
    const bytes = lasBytes(points, { format: 6, minor: 4, evlrs: [{ userId: 'x', recordId: 1, payload: new Uint8Array(4) }] });
    new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(bytes.length - 64 + 20, 1000n, true);
    const path = join(dir, `evlr${serial++}.las`);
    writeFileSync(path, bytes);
    assert.match(errorOf(() => readGeometry(path)), /EVLR 1 of 1 declares 1000 bytes, past the file's end/);
  });
  it('a count no memory could hold is refused before allocating (LAS 1.4, 64-bit count)', () => {
    const path = write(points, { format: 6, minor: 4, pointCount: 2 ** 50 });
    assert.match(errorOf(() => readGeometry(path)), /file is truncated: the header declares 1125899906842624 points/);
  });
});
