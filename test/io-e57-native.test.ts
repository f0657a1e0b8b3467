// The native E57 section reader (kernels/cpu/e57_reader.cpp via src/io/e57-native.ts) against the TypeScript
// one (XHD_NATIVE_READ=0), which stays the reference: cartesian Float single and double, ScaledInteger and
// Integer fields of every width from 0 to 64 bits (values straddling bytes, packets and windows), minimums
// beyond 2^53, spherical coordinates, poses, invalid states, index and empty packets, several scans, small
// windows on several threads; and damaged files, where both must end in the same error. Bit for bit.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';

import type { Geometry } from '../src/io/geometry.js';
import { nativeReader } from '../src/io/native-reader.js';
import { readGeometry } from '../src/io/read.js';
import { scratchDir } from './cli-run.js';
import { e57File, fixPageCrc, PAGE, type E57FieldSpec, type E57ScanSpec } from './helpers/e57-writer.js';
import { seededInts } from './random-points.js';
import { outcome, withEnv, type Outcome } from './reader-test-tools.js';
import { suiteUnless } from './skippable-suite.js';

const dir = scratchDir();
let serial = 0;
function write(bytes: Uint8Array): string {
  const path = join(dir, `native${serial++}.e57`);
  writeFileSync(path, bytes);
  return path;
}


/** Random raw integers of `bits` bits (up to 64), as bigints. */
function randomBits(count: number, bits: number, seed: number): bigint[] {
  const low = seededInts(count, 2 ** 32, seed), high = seededInts(count, 2 ** 32, seed + 1);
  return low.map((l, i) => ((BigInt(high[i]) << 32n) | BigInt(l)) & ((1n << BigInt(bits)) - 1n));
}

const bytesOf = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

function assertSame(native: Outcome, typescript: Outcome, what: string): void {
  if ('error' in typescript || 'error' in native) {
    assert.deepEqual(native, typescript, what);
    return;
  }
  const n: Geometry = native.geometry, t: Geometry = typescript.geometry;
  assert.equal(n.count, t.count, `${what}: count`);
  assert.ok(bytesOf(n.positions as Float64Array).equals(bytesOf(t.positions as Float64Array)), `${what}: positions`);
  assert.deepEqual(n.notes, t.notes, `${what}: notes`);
  assert.deepEqual(n.e57, t.e57, `${what}: scans`);
  for (const side of ['min', 'max'] as const) {
    for (let k = 0; k < 3; k++) assert.ok(Object.is(n.bounds[side][k], t.bounds[side][k]), `${what}: bounds ${side}[${k}]`);
  }
}

/** The kind of every native section read since the last call (the reader wrapped to see them). */
const kinds: number[] = [];
function nativeKinds(): number[] {
  return kinds.splice(0);
}
const reader = nativeReader();
if (reader) {
  const readE57 = reader.readE57;
  reader.readE57 = ((...args: unknown[]) => {
    const status = (readE57 as (...a: unknown[]) => unknown)(...args);
    kinds.push((args[3] as { kind: number }).kind);
    return status;
  }) as typeof reader.readE57;
}

const SETTINGS: Record<string, string>[] = [{}, { XHD_READ_PIECE_BYTES: '3000', XHD_E57_THREADS: '3' }, { XHD_READ_PIECE_BYTES: '777', XHD_E57_THREADS: '2' }];

/** Reads the file natively under each setting and in TypeScript: the outcomes must agree. Returns the native one. */
function compare(path: string, what: string, filters?: { scan?: number }, damaged = false): Outcome {
  const typescript = withEnv({ XHD_NATIVE_READ: '0' }, () => outcome(() => readGeometry(path, { filters })));
  let first: Outcome | undefined;
  for (const env of SETTINGS) {
    nativeKinds();
    const native = withEnv(env, () => outcome(() => readGeometry(path, { filters })));
    assertSame(native, typescript, `${what} ${JSON.stringify(env)}`);
    // A good file is read natively, every section of it: none went back to the TypeScript decoder.
    const seen = nativeKinds();
    if (!damaged && 'geometry' in typescript) assert.ok(seen.length > 0 && seen.every((k) => k === 0), `${what}: native kinds ${seen}`);
    first ??= native;
  }
  return first!;
}

const axes = (prefix: 'cartesian' | 'spherical') => (prefix === 'cartesian' ? ['cartesianX', 'cartesianY', 'cartesianZ'] : ['sphericalRange', 'sphericalAzimuth', 'sphericalElevation']);

function floatScan(n: number, kind: 'float32' | 'float64', seed: number, extra: Partial<E57ScanSpec> = {}): E57ScanSpec {
  const fields: E57FieldSpec[] = axes('cartesian').map((name, k) => ({
    name, kind, values: seededInts(n, 1_000_000, seed + k).map((v) => [500000, 4200000, 10][k] + (v - 500_000) / 1024 - (v % 7 === 0 ? 0.1 : 0)),
  }));
  fields.splice(1, 0, { name: 'intensity', kind: 'integer', minimum: 0n, maximum: 4095n, values: seededInts(n, 4096, seed + 9) });
  return { fields, packetRecords: 211, ...extra };
}

const POSES: (E57ScanSpec['pose'] | undefined)[] = [
  undefined,
  { rotation: [1, 0, 0, 0], translation: [500000.25, -4200000, 12.5] },
  { rotation: [0, 0, 0, 1], translation: [0, 0, 0] },
  { rotation: [0.9238795, 0.1, -0.2, 0.3826834], translation: [321.5, -77.25, 3] },
];

suiteUnless(nativeReader() ? false : 'the CPU library is not built', 'native E57 reader against the TypeScript reader', () => {
  it('Float double and single cartesian scans, under every kind of pose, several scans in one file', () => {
    for (const kind of ['float64', 'float32'] as const) {
      const scans = POSES.map((pose, i) => floatScan(900 + 37 * i, kind, 10 * i + 1, pose ? { pose } : {}));
      const path = write(e57File(scans).bytes);
      compare(path, `${kind}, all scans`);
      for (let scan = 0; scan < scans.length; scan++) compare(path, `${kind}, scan ${scan}`, { scan });
    }
  });

  it('Integer and ScaledInteger fields of every width from 0 to 64 bits, negative minimums, minimums past 2^53', () => {
    for (let bits = 0; bits <= 64; bits += bits < 8 ? 1 : bits < 24 ? 5 : bits < 50 ? 3 : 1) {
      const n = 611;
      const field = (name: string, minimum: bigint, raw: bigint[], scale?: number, offset?: number): E57FieldSpec => ({
        name, kind: scale === undefined ? 'integer' : 'scaled', minimum, maximum: minimum + (bits === 0 ? 0n : (1n << BigInt(bits)) - 1n),
        ...(scale === undefined ? {} : { scale, offset }), values: raw.map((r) => minimum + r),
      });
      const half = bits === 0 ? 0n : 1n << BigInt(bits - 1), spread = Math.min(Math.max(bits - 1, 0), 49);
      // x: Integer from -2^(bits-1), values near 0 (raw near the middle: every high bit pattern); y: ScaledInteger
      // from a minimum past 2^53 (or the int64 range), any raw value; z: ScaledInteger of raw values up to 2^59.
      const x = field('cartesianX', -half, randomBits(n, spread + 1, 100 * bits).map((r) => (bits === 0 ? 0n : half + r - (1n << BigInt(spread)))));
      const yMinimum = bits === 64 ? -(2n ** 63n) : bits === 63 ? -(2n ** 62n) : 2n ** 55n + 3n;
      const y = field('cartesianY', yMinimum, randomBits(n, bits, 100 * bits + 2), 1e-5, 4200000);
      const zRaw = randomBits(n, Math.min(bits, 59), 100 * bits + 4).map((r) => (bits === 64 ? (1n << 63n) + r : r));
      const z = field('cartesianZ', bits === 64 ? -(2n ** 63n) : -7n, zRaw, 1e-3, -0);
      const result = compare(write(e57File([{ fields: [x, y, z], packetRecords: 53, extraPackets: bits % 2 === 0, skewed: bits % 3 === 0 }]).bytes), `${bits} bits`);
      assert.ok('geometry' in result && result.geometry.count === n, `${bits} bits: ${JSON.stringify('error' in result ? result.error : '')}`);
    }
  });

  it('narrow ScaledIntegers that straddle bytes and packets, with invalid states and fields stepped over', () => {
    const n = 5000;
    const fields: E57FieldSpec[] = [
      { name: 'cartesianX', kind: 'scaled', minimum: 5_000_000_000n, maximum: 5_001_000_000n, scale: 0.0001, values: seededInts(n, 1_000_000, 3).map((v) => 5_000_000_000 + v) },
      { name: 'colorRed', kind: 'integer', minimum: 0n, maximum: 255n, values: seededInts(n, 256, 4) },
      { name: 'cartesianY', kind: 'scaled', minimum: 42_000_000_000n, maximum: 42_003_000_000n, scale: 0.0001, values: seededInts(n, 3_000_000, 5).map((v) => 42_000_000_000 + v) },
      { name: 'cartesianZ', kind: 'scaled', minimum: -(2n ** 20n), maximum: 2n ** 20n, scale: 0.001, offset: -0, values: seededInts(n, 2 ** 21, 6).map((v) => v - 2 ** 20) },
      { name: 'cartesianInvalidState', kind: 'integer', minimum: 0n, maximum: 2n, values: seededInts(n, 3, 7).map((v, i) => (i % 5 === 0 ? v : 0)) },
    ];
    for (const pose of POSES) compare(write(e57File([{ fields, packetRecords: 333, skewed: true, ...(pose ? { pose } : {}) }]).bytes), `pose ${JSON.stringify(pose)}`);
  });

  it('-0 and +0 in the bounds keep the TypeScript order', () => {
    const n = 400;
    const fields: E57FieldSpec[] = axes('cartesian').map((name, k) => ({ name, kind: 'float64', values: Array.from({ length: n }, (_, i) => (i % 3 === k ? -0 : i % 2 ? 0 : k - 1)) }));
    compare(write(e57File([{ fields, packetRecords: 37 }]).bytes), '-0');
  });

  it('spherical scans: Float single and double, invalid states, under every pose', () => {
    const n = 1500;
    for (const pose of POSES) {
      const fields: E57FieldSpec[] = [
        { name: 'sphericalRange', kind: 'float64', values: seededInts(n, 100000, 1).map((v) => 1 + v / 997) },
        { name: 'sphericalAzimuth', kind: 'float32', values: seededInts(n, 100000, 2).map((v) => -Math.PI + v * 6.2e-5) },
        { name: 'sphericalElevation', kind: 'scaled', minimum: -160000n, maximum: 160000n, scale: 1e-5, values: seededInts(n, 320001, 3).map((v) => v - 160000) },
        { name: 'sphericalInvalidState', kind: 'integer', minimum: 0n, maximum: 2n, values: seededInts(n, 3, 4).map((v, i) => (i % 4 === 0 ? v : 0)) },
      ];
      compare(write(e57File([{ fields, packetRecords: 177, ...(pose ? { pose } : {}) }]).bytes), `spherical, pose ${JSON.stringify(pose)}`);
    }
  });

  it('damaged files: a byte changed anywhere in the data (with its page CRC fixed or not) ends the same way', () => {
    const f = e57File([floatScan(700, 'float64', 5, { packetRecords: 97, pose: POSES[3] }), floatScan(300, 'float32', 6, { extraPackets: true })]);
    const [start, end] = [f.scans[0].sectionPhysical, f.xmlPhysical];
    const spots = seededInts(60, end - start, 99).map((v) => start + v);
    spots.forEach((at, i) => {
      const bytes = f.bytes.slice();
      bytes[at] ^= 1 << (i % 8);
      if (i % 3 !== 0) fixPageCrc(bytes, at);
      compare(write(bytes), `byte ${at} (${i % 3 !== 0 ? 'CRC fixed' : 'bad CRC'})`, undefined, true);
    });
    // Every packet header's length and bytestream count, and the first buffer length, set to lie.
    for (const packet of f.scans[0].packets) {
      for (const [offset, value] of [[2, 0xff], [3, 0], [4, 9], [6, 0xff]]) {
        const bytes = f.bytes.slice();
        bytes[packet + offset] = value;
        fixPageCrc(bytes, packet + offset);
        compare(write(bytes), `packet at ${packet}, byte ${offset} = ${value}`, undefined, true);
      }
    }
    // The file cut inside the second scan's pages.
    compare(write(f.bytes.slice(0, Math.floor((f.scans[1].sectionPhysical + PAGE) / PAGE) * PAGE)), 'cut', undefined, true);
  });

  it('a NaN and a coordinate beyond 1e15 are named as the TypeScript reader names them', () => {
    const fields: E57FieldSpec[] = axes('cartesian').map((name, k) => ({ name, kind: 'float64', values: Array.from({ length: 300 }, (_, i) => (k === 1 && i === 250 ? NaN : k === 2 && i === 270 ? 2e15 : i)) }));
    const result = compare(write(e57File([{ fields, packetRecords: 40 }]).bytes), 'NaN', undefined, true);
    assert.ok('error' in result && /NaN/.test(result.error), JSON.stringify(result));
  });
});
