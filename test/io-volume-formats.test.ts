// NRRD and MetaImage masks against the same masks saved as NIfTI: every variant of each format (attached and
// detached data, raw and compressed, both byte orders, RAS and LPS spaces, space directions and spacings) gives the
// NIfTI file's points bit for bit, and so every metric of `xhd compare` equal; bad headers exit 2 with one line
// naming the file and the field.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';

import { compareFiles } from '../src/jobs/compare.js';
import { readGeometry, readGeometryAsync } from '../src/io/read.js';
import { expectInfoRefused, lcg, maskMetrics, MASK_COMPARE_OPTIONS, sameBits } from './volume-test-helpers.js';
import { hasStackTrace, runXhd, scratchDir } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';
import { volumeBytes, writeMetaImage, writeNrrd, type TestVolume } from './volume-writers.js';

type Vec3 = [number, number, number];
const dir = scratchDir();

/** Balls of labels 1, 2 and 5 and scattered voxels: surfaces, interiors, and a ball the grid's face cuts. */
function blobs(dims: Vec3, seed: number): Int16Array {
  const random = lcg(seed);
  const [nx, ny, nz] = dims;
  const values = new Int16Array(nx * ny * nz);
  const balls: Array<[Vec3, number, number]> = [[[0, ny / 2, nz / 2], 5, 1]];
  for (let b = 0; b < 4; b++) balls.push([[random() * nx, random() * ny, random() * nz], 2 + 4 * random(), [1, 2, 5][b % 3]]);
  let n = 0;
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, n++) {
    for (const [c, r, label] of balls) if (Math.hypot(i - c[0], j - c[1], k - c[2]) <= r) values[n] = label;
  }
  for (let s = 0; s < 30; s++) values[Math.floor(random() * values.length)] = 2;
  return values;
}

interface GeometryCase {
  name: string;
  axes: [number[], number[], number[]];
  origin: number[];
  /** NIfTI-2 stores its sform in double; NIfTI-1 in float32 (these cases' numbers are exact in it). */
  niftiVersion: 1 | 2;
  /** The MetaImage split of the axes into spacing and directions (their products are the axes exactly). */
  split?: { spacing: number[]; directions: number[][] };
  spacingsOnly?: boolean;
}

const c30 = Math.cos(Math.PI / 6), s30 = Math.sin(Math.PI / 6);
const rotated = { spacing: [0.8, 0.8, 1.2], directions: [[c30, s30, 0], [-s30, c30, 0], [0, 0, 1]] };
const CASES: GeometryCase[] = [
  { name: 'anisotropic, axis-aligned', axes: [[0.9375, 0, 0], [0, 0.9375, 0], [0, 0, 1.5]], origin: [-112.5, -100.25, 30.5], niftiVersion: 1 },
  { name: 'permuted and flipped axes', axes: [[0, -1, 0], [1.25, 0, 0], [0, 0, 2]], origin: [10, 20.5, -7.25], niftiVersion: 1,
    split: { spacing: [1, 1.25, 2], directions: [[0, -1, 0], [1, 0, 0], [0, 0, 1]] } },
  { name: 'rotated 30° about z (NIfTI-2, double sform)', niftiVersion: 2, origin: [-90.123, 126.5, -72.25], split: rotated,
    axes: rotated.directions.map((d, c) => d.map((x) => x * rotated.spacing[c])) as [number[], number[], number[]] },
  { name: 'spacings only (origin 0)', axes: [[0.5, 0, 0], [0, 0.75, 0], [0, 0, 3]], origin: [0, 0, 0], niftiVersion: 1, spacingsOnly: true },
];

const DIMS: Vec3 = [31, 27, 19];
const NRRD_VARIANTS = [
  { tag: 'nrrd raw little RAS', variant: {} },
  { tag: 'nrrd gzip big LPS', variant: { gzip: true, littleEndian: false, space: 'LPS' as const } },
  { tag: 'nhdr raw LPS', variant: { detached: true, space: 'left-posterior-superior' as const } },
  { tag: 'nhdr gzip big', variant: { detached: true, gzip: true, littleEndian: false } },
];
const MHA_VARIANTS = [
  { tag: 'mha raw', variant: {} },
  { tag: 'mha zlib MSB', variant: { compressed: true, msb: true } },
  { tag: 'mhd raw MSB', variant: { detached: true, msb: true } },
  { tag: 'mhd zlib', variant: { detached: true, compressed: true } },
];

function writeAll(c: GeometryCase, which: 'a' | 'b', values: Int16Array): Array<{ tag: string; path: string }> {
  const v: TestVolume = { dims: DIMS, values, type: 'int16', axes: c.axes, origin: c.origin };
  const base = join(dir, `${c.name.replace(/\W+/g, '-')}-${which}`);
  const rows = [0, 1, 2].flatMap((r) => [c.axes[0][r], c.axes[1][r], c.axes[2][r], c.origin[r]]);
  const nifti = `${base}.nii.gz`;
  writeNifti(nifti, c.spacingsOnly
    ? { dims: [...DIMS], values, datatype: 'int16', version: c.niftiVersion, gzip: true, spacing: c.axes.map((a, k) => a[k]) }
    : { dims: [...DIMS], values, datatype: 'int16', version: c.niftiVersion, gzip: true, spacing: c.axes.map((a) => Math.hypot(a[0], a[1], a[2])), sform: { rows } });
  const files = [{ tag: 'nifti', path: nifti }];
  for (const { tag, variant } of NRRD_VARIANTS) {
    files.push({ tag, path: writeNrrd(`${base}-${tag.replace(/\W+/g, '-')}`, v, { ...variant, spacingsOnly: c.spacingsOnly }) });
  }
  for (const { tag, variant } of MHA_VARIANTS) files.push({ tag, path: writeMetaImage(`${base}-${tag.replace(/\W+/g, '-')}`, v, variant, c.split) });
  return files;
}

const OPTIONS = MASK_COMPARE_OPTIONS;
const metrics = maskMetrics;

describe('NRRD and MetaImage masks give the NIfTI file\'s points and metrics', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const filesA = writeAll(c, 'a', blobs(DIMS, 1));
      const filesB = writeAll(c, 'b', blobs(DIMS, 2));
      const reference = readGeometry(filesA[0].path);
      assert.ok(reference.count > 200, `the mask has surface points (${reference.count})`);
      for (const label of [undefined, 2]) {
        const want = metrics(await compareFiles(filesA[0].path, filesB[0].path, { ...OPTIONS, mask: { label } }));
        assert.ok(want.stats && want.stats.percentile!.value > 0);
        for (let f = 1; f < filesA.length; f++) {
          const got = readGeometry(filesA[f].path, { mask: { label } });
          const ref = label === undefined ? reference : readGeometry(filesA[0].path, { mask: { label } });
          assert.equal(got.count, ref.count, `${filesA[f].tag}: points`);
          assert.ok(sameBits(got.positions, ref.positions), `${filesA[f].tag}: the NIfTI file's points bit for bit`);
          assert.deepEqual(got.grid!.dims, ref.grid!.dims);
          assert.deepEqual(await readGeometryAsync(filesA[f].path, { mask: { label } }), got, `${filesA[f].tag}: read off the main thread`);
          // Each format against itself, and against NIfTI on the other side.
          assert.deepEqual(metrics(await compareFiles(filesA[f].path, filesB[f].path, { ...OPTIONS, mask: { label } })), want, `${filesA[f].tag} label ${label}`);
          const mixed = await compareFiles(filesA[0].path, filesB[f].path, { ...OPTIONS, mask: { label } });
          assert.deepEqual(metrics(mixed), want, `nifti against ${filesB[f].tag}`);
          assert.ok(!mixed.notes.some((n) => /grid|affine|spacing/.test(n) && /differ|against/.test(n)), `no space warning: ${mixed.notes.join('; ')}`);
        }
      }
    });
  }

  it('--labels all and --components read them as they read NIfTI', async () => {
    const c = CASES[CASES.length - 1];
    const filesA = writeAll(c, 'a', blobs(DIMS, 3));
    const filesB = writeAll(c, 'b', blobs(DIMS, 4));
    const run = (a: string, b: string, option: string[]) => {
      const r = runXhd(['compare', a, b, ...option, '--percentile', '95', '--backend', 'cpu', '--json']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).labels; // per label (and with --components, per lesion within it)
    };
    for (const option of [['--labels', 'all'], ['--label', '2', '--components']]) {
      const want = run(filesA[0].path, filesB[0].path, option);
      assert.ok(Object.keys(want).length > 0, `${option.join(' ')}: labels measured`);
      for (let f = 1; f < filesA.length; f++) {
        assert.deepEqual(run(filesA[f].path, filesB[f].path, option), want, `${filesA[f].tag} ${option.join(' ')}`);
      }
    }
  });

  it('NRRD line skip and byte skip (raw, -1 for the last bytes, and of the decompressed bytes for gzip)', () => {
    const v: TestVolume = { dims: DIMS, values: blobs(DIMS, 4), type: 'int16', axes: CASES[0].axes, origin: CASES[0].origin };
    const plain = readGeometry(writeNrrd(join(dir, 'skip-none'), v, {}));
    const raw = volumeBytes(v, true);
    const prefix = Buffer.from('a text line\nanother one\n');
    const variants: Array<[string, Parameters<typeof writeNrrd>[2]]> = [
      ['byte skip 16', { detached: true, byteSkip: 16, data: Buffer.concat([Buffer.alloc(16, 7), raw]) }],
      ['byte skip -1', { detached: true, byteSkip: -1, data: Buffer.concat([Buffer.alloc(33, 1), raw]) }],
      ['line skip 2', { detached: true, fields: { 'line skip': 'line skip: 2' }, data: Buffer.concat([prefix, raw]) }],
      ['line skip 2 and byte skip 3', { detached: true, byteSkip: 3, fields: { 'line skip': 'line skip: 2' }, data: Buffer.concat([prefix, Buffer.alloc(3), raw]) }],
      ['gzip, byte skip 5 of the decompressed bytes', { gzip: true, byteSkip: 5, data: gzipSync(Buffer.concat([Buffer.alloc(5), raw])) }],
    ];
    for (const [label, variant] of variants) {
      const got = readGeometry(writeNrrd(join(dir, `skip-${label.replace(/\W+/g, '-')}`), v, variant));
      assert.equal(got.count, plain.count, label);
      assert.ok(sameBits(got.positions, plain.positions), `${label}: the same points`);
    }
  });

  it('xhd info reads them, and the format is detected from the contents without an extension', () => {
    const v: TestVolume = { dims: DIMS, values: blobs(DIMS, 3), type: 'int16', axes: CASES[0].axes, origin: CASES[0].origin };
    const nrrd = writeNrrd(join(dir, 'info'), v, { gzip: true });
    const mha = writeMetaImage(join(dir, 'info'), v, { compressed: true });
    for (const [path, format] of [[nrrd, 'nrrd'], [mha, 'metaimage']] as const) {
      const r = runXhd(['info', path, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const info = JSON.parse(r.stdout);
      assert.equal(info.format, format);
      assert.equal(info.points, readGeometry(nrrd).count);
      const renamed = join(dir, `no-extension-${format}`);
      writeFileSync(renamed, readFileSync(path));
      assert.equal(JSON.parse(runXhd(['info', renamed, '--json']).stdout).format, format);
    }
  });
});

/** expectInfoRefused, naming the file (a detached header's name, not its .raw data). */
const expectRefused = (path: string, ...parts: Array<string | RegExp>) => expectInfoRefused(path, path.replace(/\.raw$/, ''), ...parts);

describe('bad NRRD and MetaImage headers: exit 2, one line naming the file and the field', () => {
  const v: TestVolume = { dims: [4, 3, 2], values: Int16Array.from({ length: 24 }, (_, n) => n % 3), type: 'int16', axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], origin: [0, 0, 0] };
  const nrrd = (name: string, variant: Parameters<typeof writeNrrd>[2]) => writeNrrd(join(dir, `bad-${name}`), v, variant);
  const mha = (name: string, variant: Parameters<typeof writeMetaImage>[2]) => writeMetaImage(join(dir, `bad-${name}`), v, variant);

  it('NRRD: unknown and unsupported encodings', () => {
    expectRefused(nrrd('enc-bz2', { fields: { encoding: 'encoding: bzip2' } }), 'encoding', 'bzip2', '.nrrd:10: encoding: "bzip2" is not supported');
    expectRefused(nrrd('enc-what', { fields: { encoding: 'encoding: lz4' } }), 'encoding', /unknown/);
  });
  it('NRRD: sizes that disagree with the data', () => {
    expectRefused(nrrd('short', { data: new Uint8Array(40) }), 'sizes', '48 bytes');
    expectRefused(nrrd('long', { data: new Uint8Array(50) }), 'sizes');
    expectRefused(nrrd('gz-short', { gzip: true, data: gzipSync(new Uint8Array(40)) }), 'sizes');
    expectRefused(nrrd('gz-long', { gzip: true, data: gzipSync(new Uint8Array(4800)) }), 'sizes', /holds more/);
    expectRefused(nrrd('detached-short', { detached: true, data: new Uint8Array(10) }), 'sizes');
    expectRefused(nrrd('sizes-count', { fields: { sizes: 'sizes: 4 3' } }), 'sizes');
  });
  it('NRRD: non-orthogonal and degenerate space directions, bad origin and spaces', () => {
    expectRefused(nrrd('skew', { fields: { 'space directions': 'space directions: (1,0,0) (0.2,1,0) (0,0,1)' } }), 'space directions', /right angles/);
    expectRefused(nrrd('zero', { fields: { 'space directions': 'space directions: (1,0,0) (0,0,0) (0,0,1)' } }), 'space directions', /zero length/);
    expectRefused(nrrd('parallel', { fields: { 'space directions': 'space directions: (1,0,0) (2,0,0) (0,0,1)' } }), 'space directions', /parallel/);
    expectRefused(nrrd('none', { fields: { 'space directions': 'space directions: (1,0,0) none (0,0,1)' } }), 'space directions', 'axis 2');
    expectRefused(nrrd('nan-origin', { fields: { 'space origin': 'space origin: (0,nan,0)' } }), 'space origin');
    expectRefused(nrrd('space', { fields: { space: 'space: right-anterior-superior-time' } }), 'space', /not a 3D space/);
  });
  it('NRRD: a missing data file, data split over files, 4D, unknown types and endianness', () => {
    expectRefused(nrrd('no-data', { detached: true, fields: { 'data file': 'data file: missing.raw' } }), 'data file', 'missing.raw');
    expectRefused(nrrd('list', { detached: true, fields: { 'data file': 'data file: slice%03d.raw 1 2 1' } }), 'data file', /several files/);
    expectRefused(nrrd('4d', { fields: { dimension: 'dimension: 4', sizes: 'sizes: 4 3 2 1' } }), 'dimension');
    expectRefused(nrrd('block', { fields: { type: 'type: block' } }), 'type', 'block');
    expectRefused(nrrd('endian', { fields: { endian: '' } }), 'endian');
    expectRefused(nrrd('magic', { fields: { magic: 'NRRD0009' } }), 'NRRD0001 to NRRD0005');
  });

  it('MetaImage: types, channels, ASCII data', () => {
    expectRefused(mha('type', { fields: { ElementType: 'ElementType = MET_FLOAT_ARRAY' } }), 'ElementType', 'MET_FLOAT_ARRAY');
    expectRefused(mha('channels', { fields: { ElementNumberOfChannels: 'ElementNumberOfChannels = 3' } }), 'ElementNumberOfChannels');
    expectRefused(mha('ascii', { fields: { BinaryData: 'BinaryData = False' } }), 'BinaryData');
    expectRefused(mha('ndims', { fields: { NDims: 'NDims = 4', DimSize: 'DimSize = 4 3 2 1' } }), 'NDims');
  });
  it('MetaImage: sizes that disagree with the data', () => {
    expectRefused(mha('short', { data: new Uint8Array(40) }), 'DimSize', '48 bytes');
    expectRefused(mha('long', { detached: true, data: new Uint8Array(60) }), 'DimSize');
    expectRefused(mha('z-short', { compressed: true, data: deflateSync(new Uint8Array(40)) }), 'DimSize');
    expectRefused(mha('z-long', { compressed: true, data: deflateSync(new Uint8Array(480)) }), 'DimSize', /holds more/);
    expectRefused(mha('z-size', { compressed: true, fields: { CompressedDataSize: 'CompressedDataSize = 100000' } }), 'CompressedDataSize');
    expectRefused(mha('dimsize', { fields: { DimSize: 'DimSize = 4 3' } }), 'DimSize');
  });
  it('MetaImage: non-orthogonal and degenerate TransformMatrix, bad spacing, a missing data file', () => {
    expectRefused(mha('skew', { fields: { TransformMatrix: 'TransformMatrix = 1 0 0 0.3 1 0 0 0 1' } }), 'TransformMatrix', /right angles/);
    expectRefused(mha('zero', { fields: { TransformMatrix: 'TransformMatrix = 1 0 0 0 0 0 0 0 1' } }), 'TransformMatrix', /zero length/);
    expectRefused(mha('parallel', { fields: { TransformMatrix: 'TransformMatrix = 1 0 0 1 0 0 0 0 1' } }), 'TransformMatrix', /parallel/);
    expectRefused(mha('spacing', { fields: { ElementSpacing: 'ElementSpacing = 1 0 1' } }), 'ElementSpacing');
    expectRefused(mha('offset', { fields: { Offset: 'Offset = 1 2' } }), 'Offset');
    expectRefused(mha('missing', { detached: true, fields: { ElementDataFile: 'ElementDataFile = nowhere.raw' } }), 'ElementDataFile', 'nowhere.raw');
    expectRefused(mha('no-data-line', { fields: { ElementDataFile: '' } }), /ElementDataFile/);
  });
});
