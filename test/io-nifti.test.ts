// NIfTI-1/NIfTI-2 voxel masks: header parsing, values, affines, errors, mask-to-points and space checks.
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';

import { gunzipDeclared, gunzipDeclaredAsync, gunzipNifti, gzipOutputLimit, parseNifti, parseNiftiAsync, quickGzipOutputLimit, readNifti, type VoxelVolume } from '../src/io/nifti.js';
import { niftiAffine, parseNiftiHeader, qformAffine, sformAffine } from '../src/io/nifti-header.js';
import { maskToPoints, spaceDifference, volumeDiagonal, voxelToPhysical } from '../src/io/voxel-mask.js';
import { readGeometry, readGeometryAsync } from '../src/io/read.js';
import type { Geometry, ReadOptions } from '../src/io/geometry.js';
import { sharedData } from './helpers.js';
import { assertInputError } from './io-expect.js';
import { datatypeBytes, niftiBytes, writeNifti, type NiftiSpec, type NiftiTestDatatype } from './nifti-writer.js';

function assertClose(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number, what = 'values'): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let n = 0; n < expected.length; n++) {
    assert.ok(Math.abs(actual[n] - expected[n]) <= tolerance, `${what}[${n}] is ${actual[n]}, expected ${expected[n]} ± ${tolerance}`);
  }
}

function parse(spec: NiftiSpec, name = 'mask.nii'): VoxelVolume {
  return parseNifti(niftiBytes(spec), name);
}

/** Escapes a file name or phrase for use inside a RegExp. */
function re(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Overwrites part of a written (uncompressed) file. */
function patched(bytes: Uint8Array, edit: (view: DataView) => void): Uint8Array {
  edit(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return bytes;
}

const SFORM = [0.5, 0, 0, -10, 0, 2, 0, 20, 0, 0, 3, 30.25];

describe('NIfTI versions, byte orders and gzip', () => {
  for (const version of [1, 2] as const) {
    for (const littleEndian of [true, false]) {
      for (const gzip of [false, true]) {
        const label = `NIfTI-${version}, ${littleEndian ? 'little' : 'big'}-endian${gzip ? ', gzipped' : ''}`;
        it(label, () => {
          const values = [0, 1, -2, 300, 4, -32768, 32767, 7, 8, 9, 10, 11];
          const v = parse({ version, littleEndian, gzip, dims: [3, 2, 2], datatype: 'int16', values, sform: { rows: SFORM } },
            gzip ? 'mask.nii.gz' : 'mask.nii');
          assert.equal(v.version, version);
          assert.deepEqual(v.dims, [3, 2, 2]);
          assert.equal(v.datatype, 'int16');
          assert.ok(v.values instanceof Int16Array);
          assert.deepEqual(Array.from(v.values), values);
          assert.equal(v.affineSource, 'sform');
          assert.deepEqual(Array.from(v.affine), SFORM);
          assert.deepEqual(v.spacing, [0.5, 2, 3]);
          assert.equal(v.scaling, null);
        });
      }
    }
  }

  it('data at an offset the typed array cannot use in place is copied, and still read right', () => {
    const values = [1.5, -2.25, 1e-3, 42];
    const v = parse({ dims: [4], datatype: 'float32', values, voxOffset: 355 });
    assert.deepEqual(Array.from(v.values), values.map(Math.fround));
    assert.deepEqual(v.dims, [4, 1, 1]);
  });

  it('a 2D file has nz = 1, and pixdim for the missing axis is not needed', () => {
    const v = parse({ dims: [2, 3], spacing: [0.5, 0.25, 0], values: [1, 2, 3, 4, 5, 6] });
    assert.deepEqual(v.dims, [2, 3, 1]);
    assert.deepEqual(Array.from(v.affine), [0.5, 0, 0, 0, 0, 0.25, 0, 0, 0, 0, 1, 0]);
  });

  it('a 4D file with dim[4] = 1 is one volume', () => {
    const v = parse({ dims: [2, 2, 2, 1], values: [1, 2, 3, 4, 5, 6, 7, 8] });
    assert.deepEqual(v.dims, [2, 2, 2]);
    assert.equal(v.values.length, 8);
  });
});

describe('datatypes', () => {
  const cases: Record<NiftiTestDatatype, { values: (number | bigint)[]; expected: number[]; array: string }> = {
    uint8: { values: [0, 1, 200, 255], expected: [0, 1, 200, 255], array: 'Uint8Array' },
    int8: { values: [-128, -1, 0, 127], expected: [-128, -1, 0, 127], array: 'Int8Array' },
    int16: { values: [-32768, -2, 0, 32767], expected: [-32768, -2, 0, 32767], array: 'Int16Array' },
    uint16: { values: [0, 1, 40000, 65535], expected: [0, 1, 40000, 65535], array: 'Uint16Array' },
    int32: { values: [-(2 ** 31), -5, 0, 2 ** 31 - 1], expected: [-(2 ** 31), -5, 0, 2 ** 31 - 1], array: 'Int32Array' },
    uint32: { values: [0, 7, 3e9, 2 ** 32 - 1], expected: [0, 7, 3e9, 2 ** 32 - 1], array: 'Uint32Array' },
    int64: { values: [-(2n ** 53n), -3n, 2n ** 32n + 5n, 2n ** 53n], expected: [-(2 ** 53), -3, 2 ** 32 + 5, 2 ** 53], array: 'Float64Array' },
    uint64: { values: [0n, 5n, 2n ** 40n + 1n, 2n ** 53n], expected: [0, 5, 2 ** 40 + 1, 2 ** 53], array: 'Float64Array' },
    float32: { values: [-1.5, 0, 3.25, 3.4028234663852886e38], expected: [-1.5, 0, 3.25, 3.4028234663852886e38], array: 'Float32Array' },
    float64: { values: [-1e300, 0, 0.1, 5e-324], expected: [-1e300, 0, 0.1, 5e-324], array: 'Float64Array' },
  };
  for (const [datatype, { values, expected, array }] of Object.entries(cases) as [NiftiTestDatatype, typeof cases.uint8][]) {
    it(`${datatype}: NIfTI-1 and -2, both byte orders`, () => {
      for (const version of [1, 2] as const) {
        for (const littleEndian of [true, false]) {
          const v = parse({ version, littleEndian, dims: [2, 2], datatype, values });
          assert.equal(v.datatype, datatype);
          assert.equal(v.values.constructor.name, array);
          assert.deepEqual(Array.from(v.values), expected, `NIfTI-${version} ${littleEndian ? 'LE' : 'BE'}`);
        }
      }
    });
  }

  it('64-bit integers beyond 2^53 are refused at their byte', () => {
    assertInputError(() => parse({ dims: [3], datatype: 'int64', values: [0n, 1n, 2n ** 53n + 1n] }, 'big.nii'),
      /^big\.nii \(byte 368\): int64 value 9007199254740993 at voxel \(2, 0, 0\) is beyond ±2\^53/);
    assertInputError(() => parse({ dims: [2], datatype: 'int64', values: [-(2n ** 53n) - 1n, 0n], littleEndian: false }, 'neg.nii'),
      /^neg\.nii \(byte 352\): int64 value -9007199254740993 at voxel \(0, 0, 0\)/);
    assertInputError(() => parse({ version: 2, dims: [2], datatype: 'uint64', values: [1n, 2n ** 64n - 1n] }, 'u.nii'),
      /^u\.nii \(byte 552\): uint64 value 18446744073709551615 at voxel \(1, 0, 0\)/);
  });

  it('complex, RGB, 1-bit and unknown codes are refused, naming the code', () => {
    assertInputError(() => parse({ dims: [2], datatype: 32, values: [0, 0] }, 'c.nii'),
      /^c\.nii \(byte 70\): unsupported datatype 32 \(complex64\); supported: uint8, int16/);
    assertInputError(() => parse({ dims: [2], datatype: 128 }, 'rgb.nii'), /^rgb\.nii \(byte 70\): unsupported datatype 128 \(rgb24\)/);
    assertInputError(() => parse({ dims: [2], datatype: 1 }, 'bit.nii'), /^bit\.nii \(byte 70\): unsupported datatype 1 \(binary \(1 bit\)\)/);
    assertInputError(() => parse({ version: 2, dims: [2], datatype: 9999 }, 'odd.nii'), /^odd\.nii \(byte 12\): unsupported datatype 9999; supported/);
  });
});

describe('scl_slope and scl_inter', () => {
  it('values become slope·v + inter', () => {
    const v = parse({ dims: [4], datatype: 'int16', values: [0, 1, 2, -3], sclSlope: 0.5, sclInter: 10 });
    assert.ok(v.values instanceof Float64Array);
    assert.deepEqual(Array.from(v.values), [10, 10.5, 11, 8.5]);
    assert.deepEqual(v.scaling, { slope: 0.5, inter: 10 });
  });

  it('slope 0, slope NaN and (1, 0) leave the stored values as they are', () => {
    for (const [sclSlope, sclInter] of [[0, 5], [NaN, 5], [1, 0]]) {
      const v = parse({ dims: [3], datatype: 'int16', values: [0, 1, 2], sclSlope, sclInter });
      assert.ok(v.values instanceof Int16Array, `slope ${sclSlope}`);
      assert.deepEqual(Array.from(v.values), [0, 1, 2]);
      assert.equal(v.scaling, null);
    }
  });

  it('labels select scaled values: label 1 with slope 0.5 is stored value 2', () => {
    const v = parse({ dims: [4], values: [0, 1, 2, 2], sclSlope: 0.5 });
    assert.deepEqual(maskToPoints(v, { label: 1, region: 'all', voxelSpace: true }).positions, Float64Array.of(2, 0, 0, 3, 0, 0));
  });

  it('an infinite slope, or a non-finite inter while scaling, is refused at its field', () => {
    assertInputError(() => parse({ dims: [1], sclSlope: Infinity }, 's.nii'), /^s\.nii \(byte 112\): scl_slope is Infinity/);
    assertInputError(() => parse({ version: 2, dims: [1], sclSlope: 2, sclInter: NaN }, 's.nii'), /^s\.nii \(byte 184\): scl_inter is NaN/);
  });

  it('scaling that overflows to infinity is refused at the voxel', () => {
    assertInputError(() => parse({ version: 2, dims: [2], datatype: 'float64', values: [1, 1e300], sclSlope: 1e10 }, 'o.nii'),
      /^o\.nii \(byte 552\): Infinity voxel value at voxel \(1, 0, 0\) after scl_slope\/scl_inter scaling/);
  });
});

describe('affines', () => {
  it('sform wins over qform; qform is used when sform_code is 0', () => {
    const qform = { quatern: [0, 0, 0] as [number, number, number], offset: [1, 2, 3] as [number, number, number] };
    const both = parse({ dims: [2, 2, 2], sform: { rows: SFORM }, qform, spacing: [4, 4, 4] });
    assert.equal(both.affineSource, 'sform');
    assert.deepEqual(Array.from(both.affine), SFORM);
    const qOnly = parse({ dims: [2, 2, 2], sform: { rows: SFORM, code: 0 }, qform, spacing: [4, 5, 6] });
    assert.equal(qOnly.affineSource, 'qform');
    assert.deepEqual(Array.from(qOnly.affine), [4, 0, 0, 1, 0, 5, 0, 2, 0, 0, 6, 3]);
  });

  it('qform: 90° about z, qfac = -1; voxel (1, 2, 3) lands where the quaternion formula says', () => {
    // a = d = √½: the rotation maps x to y and y to -x; qfac = -1 flips k. Hand-computed:
    // x = -dy·j + ox = -3·2 + 10 = 4, y = dx·i + oy = 2·1 + 20 = 22, z = -dz·k + oz = -4·3 + 30 = 18.
    for (const version of [1, 2] as const) {
      const v = parse({ version, dims: [2, 3, 4], qform: { quatern: [0, 0, Math.SQRT1_2], offset: [10, 20, 30] }, spacing: [2, 3, 4], qfac: -1 });
      assert.equal(v.affineSource, 'qform');
      assertClose(voxelToPhysical(v.affine, 1, 2, 3), [4, 22, 18], 1e-5, `NIfTI-${version} position`);
      assertClose(v.spacing, [2, 3, 4], 1e-6, 'spacing');
    }
  });

  it('qform: 120° about (1, 1, 1) (a = b = c = d = ½) permutes the axes, qfac = -1', () => {
    // Rotation rows [0 0 1; 1 0 0; 0 1 0]: x = -dz·k + ox, y = dx·i + oy, z = dy·j + oz.
    const v = parse({ dims: [2, 3, 4], qform: { quatern: [0.5, 0.5, 0.5], offset: [-5, 6, 7] }, spacing: [1, 2, 3], qfac: -1 });
    assert.deepEqual(voxelToPhysical(v.affine, 1, 2, 3), [-14, 7, 11]);
    assert.deepEqual(Array.from(v.affine, (x) => x + 0), [0, 0, -3, -5, 1, 0, 0, 6, 0, 2, 0, 7]); // + 0 turns -0 into 0
  });

  it('qform: qfac 0 counts as +1; a quaternion a hair longer than 1 (float32 rounding) is a 180° turn', () => {
    const v = parse({ dims: [2, 2, 2], qform: { quatern: [0, 1.0000001, 0] }, qfac: 0, spacing: [1, 2, 3] });
    assertClose(v.affine, [-1, 0, 0, 0, 0, 2, 0, 0, 0, 0, -3, 0], 1e-12, 'affine');
  });

  it('a singular sform falls back to the qform with a note, and is refused when there is none', () => {
    const zero = new Array(12).fill(0);
    const qform = { quatern: [0, 0, 0] as [number, number, number], offset: [1, 2, 3] as [number, number, number] };
    const v = parse({ dims: [2, 2, 2], sform: { rows: zero }, qform, spacing: [4, 5, 6] });
    assert.equal(v.affineSource, 'qform');
    assert.deepEqual(Array.from(v.affine), [4, 0, 0, 1, 0, 5, 0, 2, 0, 0, 6, 3]);
    assert.ok(v.notes.some((n) => n.includes('sform is singular')), v.notes.join('; '));
    for (const version of [1, 2] as const) {
      const at = version === 1 ? 280 : 400;
      assertInputError(() => parse({ version, dims: [2, 2, 2], sform: { rows: zero } }, 'zero.nii'),
        new RegExp(`^zero\\.nii \\(byte ${at}\\): the sform \\(srow_x, srow_y, srow_z\\) is singular`));
    }
    // Two columns along one line: voxels (1, 0, 0) and (0, 1, 0) meet.
    assertInputError(() => parse({ dims: [2, 2, 2], sform: { rows: [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0] } }, 'flat.nii'), /is singular/);
    // A 2D slice (one voxel along k) needs no third column, and tiny voxels are not a collapse.
    const slice = parse({ dims: [3, 3, 1], sform: { rows: [1e-6, 0, 0, 0, 0, 1e-6, 0, 0, 0, 0, 0, 0] } });
    assert.equal(slice.affineSource, 'sform');
  });

  it('pixdim fallback (no sform, no qform): x = i·dx, y = j·dy, z = k·dz', () => {
    const v = parse({ dims: [2, 2, 2], spacing: [0.5, 0.75, 2.5] });
    assert.equal(v.affineSource, 'pixdim');
    assert.deepEqual(Array.from(v.affine), [0.5, 0, 0, 0, 0, 0.75, 0, 0, 0, 0, 2.5, 0]);
    assert.deepEqual(v.spacing, [0.5, 0.75, 2.5]);
  });

  it('units: metre ×1000, micron ×0.001, unknown as millimetres; for sform, qform and pixdim alike', () => {
    const metre = parse({ dims: [2, 2, 2], spacing: [0.002, 0.001, 0.003], xyztUnits: 1 | 8 }); // 8: seconds, ignored
    assertClose(metre.affine, [2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 3, 0], 1e-6, 'metre'); // pixdim is float32
    const micron = parse({ version: 2, dims: [2, 2, 2], sform: { rows: [500, 0, 0, 1000, 0, 500, 0, 0, 0, 0, 2000, -3000] }, xyztUnits: 3 });
    assertClose(micron.affine, [0.5, 0, 0, 1, 0, 0.5, 0, 0, 0, 0, 2, -3], 1e-12, 'micron');
    assertClose(micron.spacing, [0.5, 0.5, 2], 1e-12, 'micron spacing');
    const metreQform = parse({ dims: [2, 2, 2], qform: { quatern: [0, 0, 0], offset: [0.1, 0, 0] }, spacing: [0.001, 0.001, 0.001], xyztUnits: 1 });
    assertClose(metreQform.affine, [1, 0, 0, 100, 0, 1, 0, 0, 0, 0, 1, 0], 1e-5, 'metre qform');
    const unknown = parse({ dims: [2, 2, 2], spacing: [3, 3, 3], xyztUnits: 0 });
    assert.deepEqual(Array.from(unknown.affine), [3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 3, 0]);
  });

  it('pixdim that is used must be positive and finite; unused pixdim may be anything', () => {
    assertInputError(() => parse({ dims: [2, 2, 2], spacing: [0, 1, 1] }, 'p.nii'),
      /^p\.nii \(byte 80\): pixdim\[1\] is 0; voxel sizes used by the pixdim must be positive/);
    assertInputError(() => parse({ dims: [2, 2, 2], spacing: [1, NaN, 1] }, 'p.nii'), /^p\.nii \(byte 84\): pixdim\[2\] is NaN/);
    assertInputError(() => parse({ dims: [2, 2, 2], spacing: [1, 1, -2], qform: { quatern: [0, 0, 0] } }, 'p.nii'),
      /^p\.nii \(byte 88\): pixdim\[3\] is -2; voxel sizes used by the qform must be positive/);
    assertInputError(() => parse({ version: 2, dims: [2, 2, 2], spacing: [1, 1, Infinity] }, 'p.nii'), /^p\.nii \(byte 128\): pixdim\[3\] is Infinity/);
    assert.equal(parse({ dims: [2, 2, 2], spacing: [0, -1, NaN], sform: { rows: SFORM } }).affineSource, 'sform');
  });

  it('non-finite sform or qform entries and overlong quaternions are refused at their field', () => {
    const rows = [...SFORM];
    rows[7] = NaN;
    assertInputError(() => parse({ dims: [2, 2, 2], sform: { rows } }, 'a.nii'), /^a\.nii \(byte 308\): srow_y\[3\] is NaN; the sform must be finite/);
    assertInputError(() => parse({ version: 2, dims: [2, 2, 2], sform: { rows } }, 'a.nii'), /^a\.nii \(byte 456\): srow_y\[3\] is NaN/);
    assertInputError(() => parse({ dims: [2, 2, 2], qform: { quatern: [0, 0, 0], offset: [0, Infinity, 0] } }, 'q.nii'),
      /^q\.nii \(byte 272\): qoffset_y is Infinity; the qform must be finite/);
    assertInputError(() => parse({ dims: [2, 2, 2], qform: { quatern: [0, 2, 0] } }, 'q.nii'),
      /^q\.nii \(byte 256\): quaternion \(b, c, d\) = \(0, 2, 0\) is longer than 1/);
    assertInputError(() => parse({ version: 2, dims: [2, 2, 2], sform: { rows: [1e306, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0] }, xyztUnits: 1 }, 'u.nii'),
      /^u\.nii \(byte 500\): the sform affine is not finite after unit scaling/);
  });
});

describe('header and data errors name the file and the byte', () => {
  const good = () => niftiBytes({ dims: [3, 2, 2], datatype: 'int16', values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] });

  it('too short for a header', () => {
    assertInputError(() => parseNifti(new Uint8Array(0), 'empty.nii'), /^empty\.nii \(byte 0\): too short for a NIfTI header \(0 bytes/);
    assertInputError(() => parseNifti(good().subarray(0, 200), 'cut.nii'),
      /^cut\.nii \(byte 200\): too short for a NIfTI-1 header \(200 bytes, need 348\)/);
    const nifti2 = niftiBytes({ version: 2, dims: [1], littleEndian: false });
    assertInputError(() => parseNifti(nifti2.subarray(0, 400), 'cut2.nii'), /^cut2\.nii \(byte 400\): too short for a NIfTI-2 header \(400 bytes, need 540\)/);
  });

  it('bad sizeof_hdr, bad magic, and .hdr/.img pairs', () => {
    assertInputError(() => parseNifti(new TextEncoder().encode('x'.repeat(400)), 'text.nii'),
      /^text\.nii \(byte 0\): not a NIfTI file: sizeof_hdr is \d+, expected 348 \(NIfTI-1\) or 540/);
    assertInputError(() => parse({ dims: [1], magic: 'abc\0' }, 'm.nii'), /^m\.nii \(byte 344\): bad NIfTI-1 magic "abc\\x00", expected "n\+1\\x00"/);
    // A NIfTI-2 magic damaged by a text-mode transfer (\r\n became \n).
    assertInputError(() => parse({ version: 2, dims: [1], magic: 'n+2\0\n\x1a\n' }, 'm2.nii'), /^m2\.nii \(byte 4\): bad NIfTI-2 magic/);
    assertInputError(() => parse({ dims: [1], magic: 'ni1\0' }, 'pair.hdr'),
      /^pair\.hdr \(byte 344\): this is the header of a NIfTI-1 \.hdr\/\.img pair; only single-file \.nii or \.nii\.gz volumes are supported/);
    assertInputError(() => parse({ version: 2, dims: [1], magic: 'ni2\0\r\n\x1a\n', littleEndian: false }, 'pair2.hdr'),
      /^pair2\.hdr \(byte 4\): this is the header of a NIfTI-2 \.hdr\/\.img pair/);
  });

  it('4D and higher volumes are refused', () => {
    assertInputError(() => parse({ dims: [2, 2, 2, 3], values: [] }, 'four.nii'),
      /^four\.nii \(byte 48\): 4D volumes are not supported \(dim\[4\] is 3\)/);
    assertInputError(() => parse({ version: 2, dims: [2, 2, 2, 1, 2], values: [] }, 'five.nii'),
      /^five\.nii \(byte 56\): 4D volumes are not supported \(dim\[5\] is 2\)/);
    // dims beyond dim[0] are ignored, as the standard says.
    assert.deepEqual(parse({ dims: [2, 2, 2, 5], rank: 3, values: new Array(8).fill(1) }).dims, [2, 2, 2]);
  });

  it('dim[0] outside 1..7, sizes below 1 and absurd sizes', () => {
    assertInputError(() => parse({ dims: [2, 2, 2], rank: 0, values: [] }, 'd.nii'), /^d\.nii \(byte 40\): dim\[0\] is 0; the number of dimensions must be 1 to 7/);
    assertInputError(() => parse({ dims: [2, 2, 2], rank: 8, values: [] }, 'd.nii'), /^d\.nii \(byte 40\): dim\[0\] is 8/);
    assertInputError(() => parse({ dims: [2, 0, 2], values: [] }, 'd.nii'), /^d\.nii \(byte 44\): dim\[2\] is 0; every size must be at least 1/);
    assertInputError(() => parse({ version: 2, dims: [2, 2, -7], values: [] }, 'd.nii'), /^d\.nii \(byte 40\): dim\[3\] is -7/);
    assertInputError(() => parse({ version: 2, dims: [2 ** 40, 1, 1], values: [] }, 'd.nii'),
      /^d\.nii \(byte 24\): dim\[1\] is 1099511627776, not a plausible volume size/);
  });

  it('vox_offset inside the header, not whole, or beyond the file', () => {
    assertInputError(() => parseNifti(patched(good(), (v) => v.setFloat32(108, 100, true)), 'o.nii'),
      /^o\.nii \(byte 108\): vox_offset is 100; it must be a whole number of at least 348/);
    assertInputError(() => parseNifti(patched(good(), (v) => v.setFloat32(108, 352.5, true)), 'o.nii'), /^o\.nii \(byte 108\): vox_offset is 352\.5/);
    assertInputError(() => parseNifti(patched(good(), (v) => v.setFloat32(108, 10000, true)), 'o.nii'),
      /^o\.nii \(byte 108\): vox_offset 10000 is beyond the end of the file \(376 bytes\)/);
    assertInputError(() => parse({ version: 2, dims: [1], values: [], voxOffset: 500 }, 'o2.nii'),
      /^o2\.nii \(byte 168\): vox_offset is 500; it must be a whole number of at least 540/);
    assertInputError(() => parseNifti(patched(niftiBytes({ version: 2, dims: [1], littleEndian: false }), (v) => v.setBigInt64(168, 2n ** 62n, false)), 'o2.nii'),
      /^o2\.nii \(byte 168\): vox_offset 4611686018427388000 is beyond the end of the file/);
  });

  it('truncated voxel data', () => {
    assertInputError(() => parseNifti(good().subarray(0, 370), 'short.nii'),
      /^short\.nii \(byte 370\): truncated voxel data: 3×2×2 int16 voxels need 24 bytes after vox_offset 352, the file has 18 bytes/);
  });

  it('a header claiming terabytes fails at once, before anything is allocated', () => {
    const started = performance.now();
    assertInputError(() => parse({ dims: [32767, 32767, 32767], datatype: 'float64', values: [1, 2, 3] }, 'liar.nii'),
      /^liar\.nii \(byte 376\): truncated voxel data: 32767×32767×32767 float64 voxels need 281449207693304 bytes \(256\.0 TiB\) after vox_offset 352, the file has 24 bytes/);
    assertInputError(() => parse({ version: 2, dims: [2 ** 30, 2 ** 30, 2 ** 30], datatype: 'uint64', values: [] }, 'liar2.nii'),
      /^liar2\.nii \(byte 544\): truncated voxel data: .* EiB\)/);
    assert.ok(performance.now() - started < 200, 'lying headers must be refused without reading or allocating');
  });

  it('NaN and infinite values name the byte of the first one', () => {
    const values = [0, 1, 2, 3, 4, NaN, 6, Infinity, 8, 9, 10, 11];
    assertInputError(() => parse({ dims: [3, 2, 2], datatype: 'float32', values }, 'nan.nii'),
      /^nan\.nii \(byte 372\): NaN voxel value at voxel \(2, 1, 0\)$/);
    const inf = values.map((v) => (Number.isNaN(v) ? 5 : v));
    assertInputError(() => parse({ version: 2, littleEndian: false, dims: [3, 2, 2], datatype: 'float64', values: inf }, 'inf.nii'),
      /^inf\.nii \(byte 600\): Infinity voxel value at voxel \(1, 0, 1\)$/);
    assertInputError(() => parse({ dims: [3, 2, 2], datatype: 'float32', values, gzip: true }, 'nan.nii.gz'),
      /^nan\.nii\.gz \(byte 372\): NaN voxel value at voxel \(2, 1, 0\) \(offset in the decompressed data\)$/);
  });

  it('corrupt, truncated and oversized gzip streams', () => {
    const gz = niftiBytes({ dims: [8, 8, 8], values: Array.from({ length: 512 }, (_, n) => n % 7), gzip: true });
    const badMethod = Uint8Array.from(gz);
    badMethod[2] = 7; // compression method must be 8 (deflate)
    assertInputError(() => parseNifti(badMethod, 'bad.nii.gz'), /^bad\.nii\.gz: corrupt gzip stream \(/);
    const badCrc = Uint8Array.from(gz);
    badCrc[gz.length - 6] ^= 0xff;
    assertInputError(() => parseNifti(badCrc, 'crc.nii.gz'), /^crc\.nii\.gz: corrupt gzip stream \(incorrect data check\)/);
    assertInputError(() => parseNifti(gz.subarray(0, 60), 'cut.nii.gz'), /^cut\.nii\.gz \(byte 60\): gzip stream ends early \(truncated file\)/);
    assertInputError(() => gunzipNifti(gzipSync(new Uint8Array(100_000)), 'bomb.nii.gz', 10_000),
      /^bomb\.nii\.gz: decompresses to more than 10000 bytes \(9\.8 KiB\)/);

    // A header that declares 32767³ voxels is refused from the stream's first bytes, before any inflating.
    const huge = patched(niftiBytes({ dims: [4, 4, 4], values: new Array(64).fill(1) }), (view) => {
      for (let axis = 1; axis <= 3; axis++) view.setInt16(40 + 2 * axis, 32767, true);
    });
    const started = performance.now();
    assertInputError(() => parseNifti(gzipSync(huge), 'huge.nii.gz'),
      /^huge\.nii\.gz \(byte 40\): the header declares 32767×32767×32767 uint8 voxels, .* decompressed; volumes over .* are not supported \(offset in the decompressed data\)$/);
    assert.ok(performance.now() - started < 200, 'refused from the header, not after inflating');
    // Far more data than the header declares: the stream stops at what was declared (plus 1 MiB).
    const padded = new Uint8Array(352 + 512 + (3 << 20));
    padded.set(niftiBytes({ dims: [8, 8, 8], values: new Array(512).fill(1) }));
    assertInputError(() => parseNifti(gzipSync(padded), 'padded.nii.gz'), /^padded\.nii\.gz: decompresses to more than /);
  });
});

describe('the gzip output limit from a few hundred compressed bytes', () => {
  /** The same stream with a file name of `length` bytes in its gzip header (FNAME), which precedes the deflated data. */
  function withFileName(gz: Uint8Array, length: number): Uint8Array {
    const named = new Uint8Array(gz.length + length + 1);
    named.set(gz.subarray(0, 10));
    named[3] |= 0x08;
    named.fill(0x61, 10, 10 + length); // 'a'…, then the NUL already there
    named.set(gz.subarray(10), 11 + length);
    return named;
  }
  // Mostly empty slices first, as in a segmentation: the first 4096 compressed bytes inflate to far more than the header.
  const values = Array.from({ length: 48 * 48 * 40 }, (_, n) => (n > 48 * 48 * 30 && n % 7 !== 0 ? 1 : 0));
  const streams: Array<[string, Uint8Array, boolean]> = [];
  for (const version of [1, 2] as const) {
    for (const littleEndian of [true, false]) {
      const gz = niftiBytes({ version, littleEndian, gzip: true, dims: [48, 48, 40], values, sform: { rows: SFORM } });
      streams.push([`NIfTI-${version} ${littleEndian ? 'LE' : 'BE'}`, gz, true]);
      streams.push([`NIfTI-${version} ${littleEndian ? 'LE' : 'BE'}, a 600-byte file name`, withFileName(gz, 600), true]);
      streams.push([`NIfTI-${version} ${littleEndian ? 'LE' : 'BE'}, a 5000-byte file name`, withFileName(gz, 5000), false]);
    }
  }
  // A whole stream shorter than the first prefix; a 4D volume, whose header the full parse refuses.
  for (const [file, quickExpected] of [['voxels/standard.nii.gz', true], ['voxels/example_nifti2.nii.gz', false]] as const) {
    const path = sharedData(file);
    if (path) streams.push([file.includes('nifti2') ? `${file} (4D)` : file, new Uint8Array(readFileSync(path)), quickExpected]);
  }

  it('is the one the first 4096 bytes give, wherever it gives one', () => {
    for (const [name, gz, quickExpected] of streams) {
      const quick = quickGzipOutputLimit(gz, name);
      assert.equal(quick !== undefined, quickExpected, `${name}: a quick limit`);
      if (quick !== undefined) assert.equal(quick, gzipOutputLimit(gz, name), name);
      if (name.includes('4D')) continue;
      const v = parseNifti(gz, name);
      assert.deepEqual(Array.from(v.values), Array.from(parseNifti(new Uint8Array(gunzipSync(gz)), name).values), `${name}: values`);
    }
  });

  const gz = streams[0][1];
  const badMethod = Uint8Array.from(gz);
  badMethod[2] = 7;
  const badCrc = Uint8Array.from(gz);
  badCrc[gz.length - 6] ^= 0xff;
  const huge = patched(niftiBytes({ dims: [4, 4, 4], values: new Array(64).fill(1) }), (view) => {
    for (let axis = 1; axis <= 3; axis++) view.setInt16(40 + 2 * axis, 32767, true);
  });
  const padded = new Uint8Array(352 + 512 + (3 << 20));
  padded.set(niftiBytes({ dims: [8, 8, 8], values: new Array(512).fill(1) }));
  const nan = niftiBytes({ dims: [3, 2, 2], datatype: 'float32', values: [0, 1, 2, 3, 4, NaN, 6, 7, 8, 9, 10, 11], gzip: true });
  const niftiRaw = niftiBytes({ dims: [48, 48, 40], values, sform: { rows: SFORM } });
  const random = (seed => () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32)(7);
  const noisy = niftiBytes({ dims: [40, 40, 20], values: Array.from({ length: 32000 }, () => Math.floor(random() * 4)), gzip: true });
  assert.ok(noisy.length > 8192, `the noisy stream has ${noisy.length} bytes`);
  /** Every stream above, and streams the reader refuses, each for its own reason. */
  const cases: Array<[string, Uint8Array]> = [
    ...streams.map(([name, bytes]): [string, Uint8Array] => [name, bytes]),
    ['plain.nii', niftiBytes({ dims: [3, 2, 2], values: new Array(12).fill(1) })],
    ['bad.nii.gz', badMethod], ['crc.nii.gz', badCrc], ['cut.nii.gz', gz.subarray(0, 60)], ['late-cut.nii.gz', gz.subarray(0, gz.length - 9)],
    ['huge.nii.gz', new Uint8Array(gzipSync(huge))], ['padded.nii.gz', new Uint8Array(gzipSync(padded))], ['nan.nii.gz', nan],
    ['gzip-header-only.nii.gz', gz.subarray(0, 10)],
    // Two gzip members (zlib reads on into the second), and bytes after the stream (ignored).
    ['two-members.nii.gz', Buffer.concat([gzipSync(niftiRaw.subarray(0, 1000)), gzipSync(niftiRaw.subarray(1000))])],
    ['trailing.nii.gz', Buffer.concat([gzipSync(niftiRaw), Buffer.from('trailing bytes')])],
    // Longer than 4096 compressed bytes, whole and cut late.
    ['noisy.nii.gz', noisy], ['noisy-cut.nii.gz', noisy.subarray(0, noisy.length - 100)],
  ];

  it('the fast paths inflate what gzipOutputLimit and gunzipNifti inflate, or refuse with their words', async () => {
    let refused = 0;
    for (const [name, bytes] of cases) {
      if (!bytes.subarray(0, 2).every((b, i) => b === [0x1f, 0x8b][i])) continue;
      const outcome = async (inflate: () => Uint8Array | Promise<Uint8Array>) => {
        try {
          return Buffer.from(await inflate()).toString('base64');
        } catch (error) {
          return `${(error as Error).constructor.name}: ${(error as Error).message}`;
        }
      };
      const reference = await outcome(() => gunzipNifti(bytes, name, gzipOutputLimit(bytes, name)));
      if (reference.startsWith('InputError')) refused++;
      assert.equal(await outcome(() => gunzipDeclared(bytes, name)), reference, `${name}: synchronous`);
      assert.equal(await outcome(() => gunzipDeclaredAsync(bytes, name)), reference, `${name}: on the thread pool`);
    }
    assert.ok(refused >= 6, `${refused} streams refused`);
  });

  it('parseNiftiAsync (inflating on the thread pool) gives the volume, or the error, parseNifti gives', async () => {
    let failures = 0;
    for (const [name, bytes] of cases) {
      let want: VoxelVolume | Error;
      try {
        want = parseNifti(bytes, name);
      } catch (error) {
        want = error as Error;
      }
      let got: VoxelVolume | Error;
      try {
        got = await parseNiftiAsync(bytes, name);
      } catch (error) {
        got = error as Error;
      }
      if (want instanceof Error) {
        failures++;
        assert.ok(got instanceof Error, `${name}: ${want.message}, but the asynchronous parse succeeded`);
        assert.equal(got.constructor, want.constructor, name);
        assert.equal(got.message, want.message, name);
      } else {
        assert.ok(!(got instanceof Error), `${name}: ${(got as Error).message}`);
        assert.deepEqual({ ...got, values: Array.from(got.values) }, { ...want, values: Array.from(want.values) }, name);
        assert.equal(got.values.constructor, want.values.constructor, name);
      }
    }
    assert.ok(failures >= 8, `${failures} of the cases failed`);
  });

  it('leaves a header that declares too much, and streams it cannot read, to the full probe', () => {
    const huge = patched(niftiBytes({ dims: [4, 4, 4], values: new Array(64).fill(1) }), (view) => {
      for (let axis = 1; axis <= 3; axis++) view.setInt16(40 + 2 * axis, 32767, true);
    });
    assert.equal(quickGzipOutputLimit(gzipSync(huge), 'huge.nii.gz'), undefined);
    assert.throws(() => gzipOutputLimit(gzipSync(huge), 'huge.nii.gz'), /the header declares 32767×32767×32767 uint8 voxels/);
    const gz = streams[0][1];
    const badMethod = Uint8Array.from(gz);
    badMethod[2] = 7;
    assert.equal(quickGzipOutputLimit(badMethod, 'bad.nii.gz'), undefined);
    assert.equal(quickGzipOutputLimit(gz.subarray(0, 40), 'cut.nii.gz'), undefined);
  });
});

describe('readNifti', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xhd-nifti-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads .nii and .nii.gz files (gzip recognised by content)', () => {
    const spec: NiftiSpec = { dims: [2, 2, 1], values: [0, 1, 2, 3], sform: { rows: SFORM } };
    writeNifti(join(dir, 'plain.nii'), spec);
    writeNifti(join(dir, 'packed.nii.gz'), { ...spec, gzip: true });
    for (const name of ['plain.nii', 'packed.nii.gz']) {
      const v = readNifti(join(dir, name));
      assert.deepEqual(Array.from(v.values), [0, 1, 2, 3]);
      assert.deepEqual(Array.from(v.affine), SFORM);
    }
  });

  it('readGeometryAsync (inflating and points off the main thread) reads what readGeometry reads, or refuses alike', async () => {
    const spec: NiftiSpec = { dims: [6, 5, 4], values: Array.from({ length: 120 }, (_, n) => (n % 5 === 0 ? 0 : 1 + (n % 3))), sform: { rows: SFORM } };
    writeNifti(join(dir, 'async.nii.gz'), { ...spec, gzip: true });
    writeNifti(join(dir, 'async.nii'), spec);
    const gz = readFileSync(join(dir, 'async.nii.gz'));
    writeFileSync(join(dir, 'async-cut.nii.gz'), gz.subarray(0, gz.length - 5));
    const bad = Uint8Array.from(gz);
    bad[2] = 7;
    writeFileSync(join(dir, 'async-bad.nii.gz'), bad);
    writeFileSync(join(dir, 'async-empty.nii.gz'), new Uint8Array(0));
    mkdirSync(join(dir, 'async-folder.nii.gz'));
    const options = [{}, { mask: { label: 2 } }, { mask: { label: 9 } }, { mask: { region: 'all' as const, voxelSpace: true } }, { mask: { region: 'inside' as 'all' } },
      { filters: { bbox: { min: [-10, 20, 30], max: [-8, 30, 40] }, every: 2 } } as ReadOptions];
    const files = ['async.nii.gz', 'async.nii', 'async-cut.nii.gz', 'async-bad.nii.gz', 'async-empty.nii.gz', 'async-folder.nii.gz', 'absent.nii.gz'];
    let refused = 0;
    for (const file of files) {
      for (const option of options) {
        const what = `${file} ${JSON.stringify(option)}`;
        let want: Geometry | Error;
        try {
          want = readGeometry(join(dir, file), option);
        } catch (error) {
          want = error as Error;
        }
        let got: Geometry | Error;
        try {
          got = await readGeometryAsync(join(dir, file), option);
        } catch (error) {
          got = error as Error;
        }
        if (want instanceof Error) {
          refused++;
          assert.ok(got instanceof Error, `${what}: ${want.message}, but it was read off the main thread`);
          assert.equal(got.constructor, want.constructor, what);
          assert.equal(got.message, want.message, what);
        } else {
          assert.deepEqual(got, want, what);
        }
      }
    }
    assert.ok(refused >= 5 * options.length, `${refused} refusals`);
  });

  it('refuses directories and missing files', () => {
    mkdirSync(join(dir, 'folder.nii'));
    assertInputError(() => readNifti(join(dir, 'folder.nii')), new RegExp(`^${re(join(dir, 'folder.nii'))}: is a directory, expected a NIfTI file$`));
    assertInputError(() => readNifti(join(dir, 'absent.nii')), /absent\.nii: no such file$/);
  });

  it('refuses files over 4 GiB before reading them', () => {
    const path = join(dir, 'huge.nii');
    const fd = openSync(path, 'w');
    try {
      ftruncateSync(fd, 2 ** 32 + 1); // sparse: takes no disk space
    } finally {
      closeSync(fd);
    }
    try {
      assertInputError(() => readNifti(path), /huge\.nii: file is 4\.0 GiB; files over 4 GiB are read only as PLY, OFF, OBJ, STL, CSV or XYZ \(in pieces\), not as a NIfTI file$/);
    } finally {
      rmSync(path);
    }
  });
});

/** The 3×3×3 block of ones at (1..3, 1..3, 1..3) in a 5×5×5 volume. */
function cubeInFive(): number[] {
  const values: number[] = [];
  for (let k = 0; k < 5; k++) for (let j = 0; j < 5; j++) for (let i = 0; i < 5; i++) {
    values.push(i >= 1 && i <= 3 && j >= 1 && j <= 3 && k >= 1 && k <= 3 ? 1 : 0);
  }
  return values;
}

/** Straightforward surface test, for comparison with the fast one. */
function naiveSurface(values: ArrayLike<number>, [nx, ny, nz]: number[], isForeground: (v: number) => boolean): number[] {
  const at = (i: number, j: number, k: number) =>
    i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz && isForeground(values[i + nx * (j + ny * k)]);
  const found: number[] = [];
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++) {
    if (!at(i, j, k)) continue;
    if (!at(i - 1, j, k) || !at(i + 1, j, k) || !at(i, j - 1, k) || !at(i, j + 1, k) || !at(i, j, k - 1) || !at(i, j, k + 1)) {
      found.push(i, j, k);
    }
  }
  return found;
}

describe('maskToPoints', () => {
  it('a 3×3×3 cube inside 5×5×5: 26 surface voxels, 27 in all', () => {
    const v = parse({ dims: [5, 5, 5], values: cubeInFive() });
    const surface = maskToPoints(v, { region: 'surface', voxelSpace: true });
    assert.equal(surface.count, 26);
    assert.equal(surface.foregroundVoxels, 27);
    assert.equal(surface.positions.length, 78);
    const points = Array.from({ length: 26 }, (_, n) => Array.from(surface.positions.subarray(3 * n, 3 * n + 3)));
    assert.ok(!points.some(([i, j, k]) => i === 2 && j === 2 && k === 2), 'the centre voxel is interior');
    assert.deepEqual(points.slice(0, 2), [[1, 1, 1], [2, 1, 1]], 'increasing linear index, i fastest');
    const all = maskToPoints(v, { region: 'all', voxelSpace: true });
    assert.equal(all.count, 27);
    assert.deepEqual(Array.from(all.positions.subarray(39, 42)), [2, 2, 2]);
  });

  it('outside the volume counts as background: a mask filling the volume', () => {
    const full = parse({ dims: [4, 4, 4], values: new Array(64).fill(3) });
    assert.equal(maskToPoints(full, { region: 'surface' }).count, 64 - 8);
    const slab = parse({ dims: [5, 5, 1], values: new Array(25).fill(1) });
    assert.equal(maskToPoints(slab, { region: 'surface' }).count, 25);
    const cube = parse({ dims: [3, 3, 3], values: new Array(27).fill(1) });
    assert.equal(maskToPoints(cube, { region: 'surface' }).count, 26);
  });

  it('label selects one value; without it every nonzero voxel is foreground', () => {
    const values = [0, 1, 2, 2, -1, 2, 0, 1];
    const v = parse({ dims: [8], datatype: 'int8', values });
    const two = maskToPoints(v, { label: 2, region: 'all', voxelSpace: true });
    assert.deepEqual(Array.from(two.positions), [2, 0, 0, 3, 0, 0, 5, 0, 0]);
    assert.equal(two.foregroundVoxels, 3);
    assert.equal(maskToPoints(v, { region: 'all' }).count, 6);
    assert.equal(maskToPoints(v, { label: 7, region: 'surface' }).count, 0);
    assert.equal(maskToPoints(v, { label: 7, region: 'surface' }).positions.length, 0);
  });

  it('points are voxel centres through the affine, or indices with voxelSpace', () => {
    const values = [0, 0, 0, 0, 0, 0, 0, 5];
    const v = parse({ dims: [2, 2, 2], values, sform: { rows: SFORM } });
    const physical = maskToPoints(v, { region: 'all' });
    assert.deepEqual(Array.from(physical.positions), [0.5 - 10, 2 + 20, 3 + 30.25]);
    assert.deepEqual(Array.from(maskToPoints(v, { region: 'all', voxelSpace: true }).positions), [1, 1, 1]);
    const rotated = parse({ dims: [2, 3, 4], values: Array.from({ length: 24 }, (_, n) => (n === 23 ? 1 : 0)),
      qform: { quatern: [0.5, 0.5, 0.5], offset: [-5, 6, 7] }, spacing: [1, 2, 3], qfac: -1 });
    assert.deepEqual(Array.from(maskToPoints(rotated, { region: 'surface' }).positions), [-14, 7, 11]);
  });

  it('agrees with a straightforward neighbour test on random masks', () => {
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (const dims of [[13, 11, 7], [1, 9, 9], [6, 1, 1], [9, 8, 3]]) {
      const count = dims[0] * dims[1] * dims[2];
      const values = Array.from({ length: count }, () => (random() < 0.7 ? 1 + Math.floor(random() * 2) : 0));
      const v = parse({ dims, values });
      const surface = maskToPoints(v, { region: 'surface', voxelSpace: true });
      assert.deepEqual(Array.from(surface.positions), naiveSurface(values, dims, (x) => x !== 0), `dims ${dims.join('×')}`);
      const labelTwo = maskToPoints(v, { label: 2, region: 'surface', voxelSpace: true });
      assert.deepEqual(Array.from(labelTwo.positions), naiveSurface(values, dims, (x) => x === 2), `label 2, dims ${dims.join('×')}`);
    }
  });

  it('rejects an unknown region and a non-finite label', () => {
    const v = parse({ dims: [1] });
    assert.throws(() => maskToPoints(v, { region: 'edges' as 'all' }), /unknown mask region 'edges'/);
    assert.throws(() => maskToPoints(v, { region: 'all', label: NaN }), /mask label must be a finite number/);
  });

  it('a BraTS-sized 240×240×155 int16 mask reads and converts quickly', () => {
    const [nx, ny, nz] = [240, 240, 155];
    const values = new Int16Array(nx * ny * nz);
    let inBall = 0;
    for (let k = 0, n = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, n++) {
      if ((i - 120) ** 2 + (j - 110) ** 2 + (k - 77) ** 2 <= 50 ** 2) { values[n] = 1; inBall++; }
    }
    const bytes = niftiBytes({ dims: [nx, ny, nz], datatype: 'int16', values, sform: { rows: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0] } });
    let started = performance.now();
    const v = parseNifti(bytes, 'brats.nii');
    const readMs = performance.now() - started;
    started = performance.now();
    const surface = maskToPoints(v, { label: 1, region: 'surface' });
    const surfaceMs = performance.now() - started;
    assert.equal(surface.foregroundVoxels, inBall);
    assert.ok(surface.count > 0.03 * inBall && surface.count < 0.1 * inBall, `surface ${surface.count} of ${inBall}`);
    assert.equal(maskToPoints(v, { region: 'all' }).count, inBall);
    // Generous bounds, for a loaded machine; typical times are a few ms to read and tens of ms to convert.
    assert.ok(readMs < 1000, `read took ${readMs.toFixed(0)} ms`);
    assert.ok(surfaceMs < 2000, `maskToPoints took ${surfaceMs.toFixed(0)} ms`);
  });
});

/** A volume with the given grid and affine, for the space helpers. */
function volumeWith(dims: [number, number, number], affine: number[]): Pick<VoxelVolume, 'dims' | 'affine'> {
  return { dims, affine: Float64Array.from(affine) };
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0];

describe('volumeDiagonal', () => {
  it('is the longest distance between mapped corner-voxel centres', () => {
    assert.equal(volumeDiagonal(volumeWith([3, 4, 5], IDENTITY)), Math.hypot(2, 3, 4));
    assertClose([volumeDiagonal(volumeWith([3, 4, 5], [0, -3, 0, 9, 2, 0, 0, 1, 0, 0, 4, 0]))], [Math.hypot(4, 9, 16)], 1e-12, 'rotated');
    assert.equal(volumeDiagonal(volumeWith([1, 1, 1], IDENTITY)), 0);
  });

  it('with a sheared affine the (0,0,0)–(n-1,n-1,n-1) diagonal is not the longest', () => {
    // Columns (1,0,0), (0,1,0), (-1,0,1): corner edges (10,0,0), (0,1,0), (-10,0,10).
    const sheared = volumeWith([11, 2, 11], [1, 0, -1, 0, 0, 1, 0, 0, 0, 0, 1, 0]);
    assertClose([volumeDiagonal(sheared)], [Math.hypot(20, 1, 10)], 1e-12, 'sheared');
  });
});

describe('spaceDifference', () => {
  it('null for the same space, including float32 noise', () => {
    assert.equal(spaceDifference(volumeWith([3, 4, 5], IDENTITY), volumeWith([3, 4, 5], IDENTITY)), null);
    const noisy = IDENTITY.map((v, n) => v + (n === 3 ? 2e-5 : 1e-7));
    assert.equal(spaceDifference(volumeWith([3, 4, 5], IDENTITY), volumeWith([3, 4, 5], noisy)), null);
  });

  it('the same geometry stored as sform in one file and qform in another is the same space', () => {
    const rotated = parse({ dims: [20, 30, 40], qform: { quatern: [0, 0, Math.SQRT1_2], offset: [10, 20, 30] }, spacing: [2, 3, 4], qfac: -1 });
    const asSform = parse({ dims: [20, 30, 40], sform: { rows: Array.from(rotated.affine) } });
    assert.equal(spaceDifference(rotated, asSform), null);
  });

  it('names a different grid, different spacing, or a shifted or turned affine', () => {
    assert.equal(spaceDifference(volumeWith([240, 240, 155], IDENTITY), volumeWith([256, 256, 160], IDENTITY)),
      'grid 240×240×155 against 256×256×160');
    assert.equal(spaceDifference(volumeWith([8, 8, 8], IDENTITY), volumeWith([8, 8, 8], [0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 2, 0])),
      'spacing 1×1×1 mm against 0.5×0.5×2 mm');
    assert.equal(spaceDifference(volumeWith([8, 8, 8], IDENTITY), volumeWith([4, 4, 4], [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0])),
      'grid 8×8×8 against 4×4×4, spacing 1×1×1 mm against 2×2×2 mm');
    assert.equal(spaceDifference(volumeWith([256, 8, 8], IDENTITY), volumeWith([256, 8, 8], [1.0001, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0])),
      'spacing 1×1×1 mm against 1.0001×1×1 mm');
    assert.equal(spaceDifference(volumeWith([8, 8, 8], IDENTITY), volumeWith([8, 8, 8], [1, 0, 0, 3.2, 0, 1, 0, 0, 0, 0, 1, 0])),
      'affines differ by up to 3.2 mm (origin or orientation)');
    // Left-right flip about the volume's centre: corners move by up to 7 mm.
    assert.equal(spaceDifference(volumeWith([8, 8, 8], IDENTITY), volumeWith([8, 8, 8], [-1, 0, 0, 7, 0, 1, 0, 0, 0, 0, 1, 0])),
      'affines differ by up to 7 mm (origin or orientation)');
  });
});

describe('shared voxel files', () => {
  it('anatomical.nii: big-endian NIfTI-1 int16, sform (qform agrees)', (t) => {
    const path = sharedData('voxels/anatomical.nii');
    if (!path) return t.skip('shared data absent');
    const v = readNifti(path);
    assert.equal(v.version, 1);
    assert.deepEqual(v.dims, [33, 41, 25]);
    assert.equal(v.datatype, 'int16');
    assert.equal(v.affineSource, 'sform');
    assert.deepEqual(Array.from(v.affine), [-2, 0, 0, 32, 0, 2, 0, -40, 0, 0, 2, -16]);
    assert.deepEqual(v.spacing, [2, 2, 2]);
    const header = parseNiftiHeader(readFileSync(path), path);
    assert.equal(header.littleEndian, false);
    assertClose(qformAffine(header), sformAffine(header), 1e-6, 'qform against sform');
    // Every voxel is nonzero, so "nonzero" is the whole box; a threshold makes a real mask.
    const nonzero = maskToPoints(v, { region: 'surface' });
    assert.equal(nonzero.foregroundVoxels, 33 * 41 * 25);
    assert.equal(nonzero.count, 33 * 41 * 25 - 31 * 39 * 23);
    assert.deepEqual(Array.from(nonzero.positions.subarray(0, 3)), [32, -40, -16]);
    const thresholded = { ...v, values: Uint8Array.from(v.values, (x) => (x > 100 ? 1 : 0)) };
    const mask = maskToPoints(thresholded, { region: 'surface' });
    assert.equal(mask.foregroundVoxels, 33792);
    assert.equal(mask.count, 6188);
    assert.equal(maskToPoints(thresholded, { region: 'all' }).count, 33792);
    assertClose([volumeDiagonal(v)], [Math.hypot(64, 80, 48)], 1e-9, 'diagonal');
  });

  it('standard.nii.gz: little-endian NIfTI-1 uint8, sform, unknown units read as mm', (t) => {
    const path = sharedData('voxels/standard.nii.gz');
    if (!path) return t.skip('shared data absent');
    const v = readNifti(path);
    assert.equal(v.version, 1);
    assert.deepEqual(v.dims, [4, 5, 7]);
    assert.equal(v.datatype, 'uint8');
    assert.equal(v.affineSource, 'sform');
    assert.deepEqual(Array.from(v.affine), [1, 0, 0, 0, 0, 3, 0, 0, 0, 0, 2, 0]);
    assert.deepEqual(v.spacing, [1, 3, 2]);
    const points = maskToPoints(v, { label: 255, region: 'surface' });
    assert.equal(points.foregroundVoxels, 30);
    assert.equal(points.count, 30); // scattered voxels: none has six foreground neighbours
    assert.deepEqual(Array.from(points.positions.subarray(0, 9)), [1, 0, 0, 0, 3, 0, 3, 3, 0]);
  });

  it('example_nifti2.nii.gz: little-endian NIfTI-2 int16, 4D (two volumes) so refused; its first volume reads', (t) => {
    const path = sharedData('voxels/example_nifti2.nii.gz');
    if (!path) return t.skip('shared data absent');
    const name = 'example_nifti2.nii.gz';
    assertInputError(() => readNifti(path), /example_nifti2\.nii\.gz \(byte 48\): 4D volumes are not supported \(dim\[4\] is 2\).*decompressed data/);
    // Declare the file 3D to read its first volume: the second is then trailing data, which is ignored.
    const data = gunzipSync(readFileSync(path));
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    assert.equal(view.getBigInt64(16, true), 4n);
    assert.equal(view.getBigInt64(48, true), 2n);
    view.setBigInt64(16, 3n, true);
    view.setBigInt64(48, 1n, true);
    const header = parseNiftiHeader(data, name, { decompressed: true });
    assert.equal(header.version, 2);
    assert.equal(header.littleEndian, true);
    assert.deepEqual(header.dim, [3, 32, 20, 12, 1, 1, 1, 1]);
    assert.equal(header.datatype, 4);
    assert.equal(header.voxOffset, 608);
    assert.equal(header.sformCode, 1);
    assert.equal(header.qformCode, 1);
    assert.equal(header.xyztUnits, 10); // mm and seconds
    const { affine, source } = niftiAffine(header);
    assert.equal(source, 'sform');
    assertClose(affine, [-2, 0, 0, 117.8551025390625, 0, 1.9737114906311035, -0.35552823543548584, -35.72294235229492,
      0, 0.3232076168060303, 2.171081781387329, -7.248798370361328], 1e-12, 'sform');
    // Its quaternion is a 180° turn whose a² float32 noise leaves at about 2e-9: read as a = 0, the qform matches.
    assertClose(qformAffine(header), affine, 1e-6, 'qform against sform');
    const v = parseNifti(data, name);
    assert.equal(v.version, 2);
    assert.deepEqual(v.dims, [32, 20, 12]);
    assert.equal(v.datatype, 'int16');
    assertClose(v.spacing, [2, 2, 2.2], 1e-5, 'spacing');
    const box = maskToPoints(v, { region: 'surface' }); // every voxel of the first volume is nonzero
    assert.equal(box.foregroundVoxels, 32 * 20 * 12);
    assert.equal(box.count, 32 * 20 * 12 - 30 * 18 * 10);
    const thresholded = { ...v, values: Uint8Array.from(v.values, (x) => (x > 300 ? 1 : 0)) };
    const points = maskToPoints(thresholded, { region: 'surface' });
    assert.equal(points.foregroundVoxels, 7436);
    assert.equal(points.count, 2637);
    assertClose(points.positions.subarray(0, 3), voxelToPhysical(v.affine, 0, 0, 0), 1e-5, 'first point');
  });
});

test('datatypeBytes in the test writer matches bitpix/8', () => {
  const bytes = niftiBytes({ dims: [1], datatype: 'uint64' });
  assert.equal(new DataView(bytes.buffer).getInt16(72, true), 8 * datatypeBytes('uint64'));
});
