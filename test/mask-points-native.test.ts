// A voxel mask's points from the native libraries (xhd_mask_points) against the TypeScript reference
// (maskToPointsInTs), bit for bit and in the same order: every value type, labels that a type cannot hold, grids one
// voxel thin, affines whose sums round, 1 to 3 threads; the GPU libraries against the CPU one where a GPU is usable.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { computeBounds, type Bounds } from '../src/core/coordinates.js';
import { maskToPoints, maskToPointsAsync, maskToPointsInTs, type MaskPoints } from '../src/io/voxel-mask.js';
import type { VoxelVolume } from '../src/io/nifti.js';
import { maskPointsOn, maskPointsOnAsync } from '../src/ops/mask-points.js';
import { probeBackend } from '../src/ops/backends.js';
import type { MaskValues } from '../src/native/mask-points.js';
import { rng } from './random-points.js';

type Dims = [number, number, number];

/** Blobs of labels 1..3 (so there are interiors and surfaces), written into an array of the given type. */
function blobVolume(dims: Dims, make: (n: number) => MaskValues, seed: number): MaskValues {
  const [nx, ny, nz] = dims;
  const random = rng(seed);
  const values = make(nx * ny * nz);
  const blobs = Array.from({ length: 4 }, () => ({
    c: [random() * nx, random() * ny, random() * nz], r: 1 + random() * Math.max(nx, ny, nz) / 3, label: 1 + Math.floor(random() * 3),
  }));
  for (let k = 0, n = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, n++) {
    for (const b of blobs) {
      if ((i - b.c[0]) ** 2 + (j - b.c[1]) ** 2 + (k - b.c[2]) ** 2 < b.r ** 2) values[n] = b.label;
    }
    if (random() < 0.01) values[n] = 1; // lone voxels: surface on every side
  }
  return values;
}

function volumeOf(values: MaskValues, dims: Dims, affine: Float64Array): VoxelVolume {
  return { version: 1, dims, values, datatype: 'uint8', scaling: null, affine, affineSource: 'sform', spacing: [1, 1, 1], notes: [] };
}

/** An affine with rotation-like entries and a far origin, so that the order of the sums shows in the last bits. */
function awkwardAffine(seed: number): Float64Array {
  const random = rng(seed);
  const a = Float64Array.from({ length: 12 }, () => random() * 2 - 1);
  a[3] = 123456.789 + random();
  a[7] = -98765.4321 + random();
  a[11] = 0.1 + random();
  return a;
}

/** Bitwise equality of two points sets (Float64Array equality would let -0 equal 0). */
function assertSameBits(got: { positions: Float64Array; count: number; foregroundVoxels: number; bounds?: Bounds }, want: MaskPoints, label: string): void {
  assert.equal(got.count, want.count, `${label}: count`);
  // The bounds the library folds: computeBounds of the reference's points, bit for bit (-0 below +0 included).
  if (got.bounds) {
    const b = computeBounds(want.positions);
    for (let axis = 0; axis < 3; axis++) {
      assert.ok(Object.is(got.bounds.min[axis], b.min[axis]) && Object.is(got.bounds.max[axis], b.max[axis]),
        `${label}: bounds on axis ${axis}: ${got.bounds.min[axis]}..${got.bounds.max[axis]}, computeBounds ${b.min[axis]}..${b.max[axis]}`);
    }
  }
  assert.equal(got.foregroundVoxels, want.foregroundVoxels, `${label}: foreground voxels`);
  const g = new BigUint64Array(got.positions.buffer, got.positions.byteOffset, got.positions.length);
  const w = new BigUint64Array(want.positions.buffer, want.positions.byteOffset, want.positions.length);
  assert.equal(g.length, w.length, `${label}: coordinates`);
  for (let n = 0; n < g.length; n++) {
    if (g[n] !== w[n]) assert.fail(`${label}: coordinate ${n} (point ${Math.floor(n / 3)}) is ${got.positions[n]}, the reference has ${want.positions[n]}`);
  }
}

const TYPES: Array<[string, (n: number) => MaskValues]> = [
  ['uint8', (n) => new Uint8Array(n)], ['int8', (n) => new Int8Array(n)], ['uint16', (n) => new Uint16Array(n)],
  ['int16', (n) => new Int16Array(n)], ['uint32', (n) => new Uint32Array(n)], ['int32', (n) => new Int32Array(n)],
  ['float32', (n) => new Float32Array(n)], ['float64', (n) => new Float64Array(n)],
];

const GRIDS: Dims[] = [[23, 17, 11], [1, 9, 7], [9, 1, 7], [9, 7, 1], [1, 1, 1], [2, 2, 2], [64, 3, 5]];
/** undefined: every nonzero voxel. 2.5, 300, -1 and 1e10 are labels some types cannot hold (no foreground there). */
const LABELS = [undefined, 1, 2, 3, 2.5, 300, -1, 1e10];

describe('xhd_mask_points on the CPU library: the TypeScript reference bit for bit', () => {
  for (const [typeName, make] of TYPES) {
    it(`${typeName} volumes, every label and region, 1 to 3 threads`, () => {
      let compared = 0;
      GRIDS.forEach((dims, g) => {
        const values = blobVolume(dims, make, 7 + g);
        if (typeName === 'int8' || typeName === 'int16' || typeName === 'int32' || typeName.startsWith('float')) values[0] = -1;
        const affine = awkwardAffine(g);
        const volume = volumeOf(values, dims, affine);
        for (const label of LABELS) {
          for (const region of ['surface', 'all'] as const) {
            const want = maskToPointsInTs(volume, { label, region });
            for (const threads of [1, 2, 3]) {
              const got = maskPointsOn('cpu', { values, dims, label, affine, surface: region === 'surface', threads });
              assertSameBits(got, want, `${typeName} ${dims.join('×')} label ${label} ${region} ${threads} threads`);
              compared += got.count;
            }
          }
        }
      });
      assert.ok(compared > 1000, `too few points compared (${compared})`);
    });
  }

  it('bounds keep a -0 bound (a corner voxel through negative axes) and are infinite with no points', () => {
    const values = new Uint8Array(27).fill(1);
    const affine = Float64Array.of(-1, -0.5, -0.25, -0, -0.5, -1, -0.25, -0, -0.25, -0.5, -1, -0);
    const volume = volumeOf(values, [3, 3, 3], affine);
    const got = maskPointsOn('cpu', { values, dims: [3, 3, 3], affine, surface: false, threads: 2 });
    assert.ok(Object.is(got.positions[0], -0), 'the first point is -0 on x');
    assert.ok(Object.is(got.bounds.max[0], -0), 'the largest x is that -0, not +0');
    assertSameBits(got, maskToPointsInTs(volume, { region: 'all' }), 'negative axes');
    const none = maskPointsOn('cpu', { values: new Uint8Array(27), dims: [3, 3, 3], affine, surface: true, threads: 1 });
    assert.deepEqual(none.bounds, { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] }, 'no points');
  });

  it('a float label that float32 rounds (0.1) is no float32 voxel, as in the reference', () => {
    const dims: Dims = [4, 4, 4];
    const values = new Float32Array(64).fill(0.1);
    const affine = awkwardAffine(3);
    const got = maskPointsOn('cpu', { values, dims, label: 0.1, affine, surface: true });
    assert.equal(got.count, 0);
    assertSameBits(got, maskToPointsInTs(volumeOf(values, dims, affine), { label: 0.1, region: 'surface' }), 'float32 0.1');
    const exact = maskPointsOn('cpu', { values, dims, label: Math.fround(0.1), affine, surface: true });
    assert.equal(exact.count, 64 - 8, 'label fround(0.1): the surface of a 4³ cube');
  });

  it('refuses a zero dimension, values that do not fill the grid, and a non-finite affine', () => {
    assert.throws(() => maskPointsOn('cpu', { values: new Uint8Array(0), dims: [0, 2, 2], affine: awkwardAffine(1), surface: true }),
      /dimension must be at least 1/);
    assert.throws(() => maskPointsOn('cpu', { values: new Uint8Array(7), dims: [2, 2, 2], affine: awkwardAffine(1), surface: true }),
      /holds 7 values, its 2×2×2 grid needs 8/);
    assert.throws(() => maskPointsOn('cpu', { values: new Uint8Array(8), dims: [2, 2, 2], affine: Float64Array.of(NaN, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0), surface: true }),
      /affine must be finite/);
  });
});

describe('xhd_mask_points on the thread pool (koffi\'s asynchronous call), as `xhd batch` reads masks', () => {
  it('the same points as the synchronous call, for every value type, label and region', async () => {
    for (const [typeName, make] of TYPES) {
      const dims: Dims = [23, 17, 11];
      const values = blobVolume(dims, make, 11);
      const affine = awkwardAffine(5);
      for (const label of [undefined, 2, 300]) {
        for (const surface of [true, false]) {
          const want = maskPointsOn('cpu', { values, dims, label, affine, surface });
          // Several at once, as lanes run them: each gets its own answer.
          const got = await Promise.all([1, 2, 3].map((threads) => maskPointsOnAsync('cpu', { values, dims, label, affine, surface, threads })));
          for (const points of got) assertSameBits(points, { positions: want.positions, count: want.count, foregroundVoxels: want.foregroundVoxels }, `${typeName} label ${label} surface ${surface}`);
        }
      }
    }
  });

  it('the same refusals as the synchronous call', async () => {
    const cases = [
      { values: new Uint8Array(0), dims: [0, 2, 2] as Dims, affine: awkwardAffine(1), surface: true },
      { values: new Uint8Array(7), dims: [2, 2, 2] as Dims, affine: awkwardAffine(1), surface: true },
      { values: new Uint8Array(8), dims: [2, 2, 2] as Dims, affine: Float64Array.of(NaN, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0), surface: true },
      { values: new Uint8Array(8), dims: [2, 2, 2] as Dims, label: Infinity, affine: awkwardAffine(1), surface: true },
    ];
    for (const request of cases) {
      let expected: Error | undefined;
      try {
        maskPointsOn('cpu', request);
      } catch (error) {
        expected = error as Error;
      }
      assert.ok(expected, `${request.dims.join('×')}: refused`);
      await assert.rejects(maskPointsOnAsync('cpu', request), (error: Error) => {
        assert.equal(error.constructor, expected!.constructor);
        assert.equal(error.message, expected!.message);
        return true;
      });
    }
  });
});

for (const backend of ['cuda', 'optix'] as const) {
  const status = probeBackend(backend);
  const skip = status.available ? false : `no usable ${backend} backend (${(status.reason ?? '').split('\n')[0]})`;
  describe(`xhd_mask_points on the ${backend} library: the CPU library's points bit for bit`, { skip }, () => {
    it('every value type, label and region on small grids', () => {
      for (const [typeName, make] of TYPES) {
        GRIDS.forEach((dims, g) => {
          const values = blobVolume(dims, make, 11 + g);
          const affine = awkwardAffine(g + 5);
          for (const label of LABELS) {
            for (const surface of [true, false]) {
              const want = maskPointsOn('cpu', { values, dims, label, affine, surface });
              const got = maskPointsOn(backend, { values, dims, label, affine, surface });
              assert.equal(got.device, 0);
              assertSameBits(got, { ...want }, `${backend} ${typeName} ${dims.join('×')} label ${label} surface ${surface}`);
            }
          }
        });
      }
    });

    it('a BraTS-sized pair of blobs (240×240×155, uint8 and int16), with its timings', () => {
      const dims: Dims = [240, 240, 155];
      for (const make of [(n: number) => new Uint8Array(n), (n: number) => new Int16Array(n)]) {
        const values = blobVolume(dims, make, 99);
        const affine = Float64Array.of(-1, 0, 0, 0, 0, -1, 0, 239, 0, 0, 1, 0);
        const want = maskPointsOn('cpu', { values, dims, affine, surface: true });
        const got = maskPointsOn(backend, { values, dims, affine, surface: true });
        assert.ok(want.count > 10000);
        assertSameBits(got, want, `${backend} BraTS-sized`);
        assert.ok(got.peakDeviceBytes > 0 && got.computeMs >= 0);
      }
    });

    if (backend === 'cuda') {
      it('a mask read for --backend cuda (maskToPointsAsync with a device): the CPU library\'s points and bounds', async () => {
        const dims: Dims = [37, 29, 23];
        const volume = volumeOf(blobVolume(dims, (n) => new Uint8Array(n), 7), dims, awkwardAffine(3));
        for (const label of [undefined, 2]) {
          const want = maskToPoints(volume, { region: 'surface', label });
          const got = await maskToPointsAsync(volume, { region: 'surface', label, device: 0 });
          assert.ok(want.count > 100);
          assert.equal(got.count, want.count);
          assert.equal(got.foregroundVoxels, want.foregroundVoxels);
          assert.deepEqual(got.bounds, want.bounds);
          assert.ok(Buffer.from(got.positions.buffer, got.positions.byteOffset, got.positions.byteLength)
            .equals(Buffer.from(want.positions.buffer, want.positions.byteOffset, want.positions.byteLength)), `label ${label}`);
        }
      });
    }
  });
}
