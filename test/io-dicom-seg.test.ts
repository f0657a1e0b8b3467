// DICOM-SEG masks against the same masks saved as NIfTI-2 (whose sform is double): BINARY, FRACTIONAL and
// LABELMAP segmentations, in every transfer syntax read, with frames omitted where empty and shuffled, anisotropic
// spacing, an oblique orientation and geometry in the shared or the per-frame groups, give the NIfTI file's points
// bit for bit and so every metric of `xhd compare` equal; --label picks one segment (and settles overlaps);
// every bad input exits 2 with one line naming the file and the tag.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { compareFiles } from '../src/jobs/compare.js';
import { XhdError } from '../src/core/errors.js';
import { parseGeometry, readGeometry, readGeometryAsync } from '../src/io/read.js';
import { sniffFormat } from '../src/io/detect-format.js';
import { unpackBits } from '../src/io/dicom-seg-pixels.js';
import { expectInfoRefused, lcg, maskMetrics, MASK_COMPARE_OPTIONS, sameBits } from './volume-test-helpers.js';
import { hasStackTrace, runXhd, scratchDir } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';
import { el, packBits, removeElement, segFile, setElement, UID, type DicomElement, type SegSpec, type Vec3 } from './dicom-seg-writer.js';

const dir = scratchDir();

/**
 * Balls of the given labels and scattered voxels; a voxel of the first label in the first slice and of the second in
 * the last, so that the frames span every slice (the SEG grid then is the NIfTI one).
 */
function blobs(dims: Vec3, seed: number, labels = [1, 2, 3]): Int16Array {
  const random = lcg(seed);
  const [nx, ny, nz] = dims;
  const values = new Int16Array(nx * ny * nz);
  const balls: Array<[Vec3, number, number]> = [[[0, ny / 2, nz / 2], 4, labels[0]]];
  for (let b = 0; b < 4; b++) balls.push([[random() * nx, random() * ny, random() * nz], 2 + 3 * random(), labels[b % labels.length]]);
  let n = 0;
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, n++) {
    for (const [c, r, label] of balls) if (Math.hypot(i - c[0], j - c[1], k - c[2]) <= r) values[n] = label;
  }
  for (let s = 0; s < 20; s++) values[Math.floor(random() * values.length)] = labels[1 % labels.length];
  values[3] = labels[0];
  values[values.length - 5] = labels[1 % labels.length];
  return values;
}

/** Where a test's frames lie: the SEG's geometry, named. */
type Placement = Pick<SegSpec, 'row' | 'column' | 'normal' | 'pixelSpacing' | 'sliceStep' | 'origin'> & { name: string };

const PLACEMENTS: Placement[] = [
  { name: 'axial, anisotropic', row: [1, 0, 0], column: [0, 1, 0], normal: [0, 0, 1], pixelSpacing: [0.75, 0.5], sliceStep: 1.5, origin: [-112.5, -100.25, 30.5] },
  { name: 'sagittal, flipped', row: [0, 1, 0], column: [0, 0, -1], normal: [-1, 0, 0], pixelSpacing: [1.25, 1], sliceStep: 2, origin: [10, 20.5, -7.25] },
  // Oblique yet orthogonal: the row direction turned in the x-y plane (0.6, 0.8), the column direction along -z.
  { name: 'oblique (3-4-5)', row: [0.6, 0.8, 0], column: [0, 0, -1], normal: [-0.8, 0.6, 0], pixelSpacing: [0.5, 0.8], sliceStep: 2, origin: [-90.125, 126.5, -72.25] },
];

const DIMS: Vec3 = [23, 19, 13];

/** The NIfTI-2 file of the same voxels: the sform is DICOM's affine with x and y negated (LPS → RAS). */
function writeNiftiOf(path: string, p: Placement, values: Int16Array, dims: Vec3 = DIMS): string {
  const axes = [p.row.map((x) => x * p.pixelSpacing[1]), p.column.map((x) => x * p.pixelSpacing[0]), p.normal.map((x) => x * p.sliceStep)];
  const sign = [-1, -1, 1];
  const rows = [0, 1, 2].flatMap((r) => [axes[0][r], axes[1][r], axes[2][r], p.origin[r]].map((x) => sign[r] * x));
  writeNifti(path, { dims: [...dims], values, datatype: 'int16', version: 2, spacing: axes.map((a) => Math.hypot(a[0], a[1], a[2])), sform: { rows } });
  return path;
}

function writeSeg(path: string, p: Placement, values: Int16Array, spec: Partial<SegSpec>, dims: Vec3 = DIMS): string {
  writeFileSync(path, segFile({ dims, labels: values, type: 'BINARY', transferSyntax: UID.explicit, ...p, ...spec }));
  return path;
}

const OPTIONS = MASK_COMPARE_OPTIONS;
const metrics = maskMetrics;

const VARIANTS: Array<{ tag: string; spec: Partial<SegSpec> }> = [
  { tag: 'BINARY explicit', spec: {} },
  { tag: 'BINARY implicit, undefined lengths', spec: { transferSyntax: UID.implicit, undefinedLengths: true } },
  { tag: 'BINARY deflated, sparse and shuffled', spec: { transferSyntax: UID.deflated, omitEmpty: true, shuffle: 7 } },
  { tag: 'BINARY RLE, per-frame geometry', spec: { transferSyntax: UID.rle, perFrameGeometry: true, spacingBetweenSlices: true } },
  { tag: 'BINARY RLE one byte a pixel, shuffled', spec: { transferSyntax: UID.rle, rleUnpacked: true, shuffle: 3, omitEmpty: true } },
  { tag: 'FRACTIONAL (0 and max) implicit', spec: { type: 'FRACTIONAL', maxFraction: 100, transferSyntax: UID.implicit } },
  { tag: 'LABELMAP 8 explicit', spec: { type: 'LABELMAP' } },
  { tag: 'LABELMAP 16 RLE, sparse, shuffled', spec: { type: 'LABELMAP', bits: 16, transferSyntax: UID.rle, omitEmpty: true, shuffle: 5 } },
  { tag: 'LABELMAP 8 deflated, undefined lengths', spec: { type: 'LABELMAP', transferSyntax: UID.deflated, undefinedLengths: true } },
];

describe('DICOM-SEG masks give the NIfTI file\'s points and metrics', () => {
  for (const p of PLACEMENTS) {
    it(p.name, async () => {
      const base = join(dir, p.name.replace(/\W+/g, '-'));
      const a = blobs(DIMS, 1), b = blobs(DIMS, 2);
      const niiA = writeNiftiOf(`${base}-a.nii`, p, a), niiB = writeNiftiOf(`${base}-b.nii`, p, b);
      for (const label of [undefined, 2]) {
        const reference = readGeometry(niiA, { mask: { label } });
        assert.ok(reference.count > 50, `the mask has surface points (${reference.count})`);
        const want = metrics(await compareFiles(niiA, niiB, { ...OPTIONS, mask: { label } }));
        for (const { tag, spec } of VARIANTS) {
          const segA = writeSeg(`${base}-${tag.replace(/\W+/g, '-')}-a.dcm`, p, a, spec);
          const segB = writeSeg(`${base}-${tag.replace(/\W+/g, '-')}-b.dcm`, p, b, spec);
          const got = readGeometry(segA, { mask: { label } });
          assert.equal(got.format, 'dicom-seg');
          assert.equal(got.count, reference.count, `${tag}: points`);
          assert.deepEqual(got.grid!.dims, reference.grid!.dims, `${tag}: grid`);
          assert.ok(sameBits(got.positions, reference.positions), `${tag}: the NIfTI file's points bit for bit`);
          assert.deepEqual(await readGeometryAsync(segA, { mask: { label } }), got, `${tag}: read off the main thread`);
          assert.deepEqual(metrics(await compareFiles(segA, segB, { ...OPTIONS, mask: { label } })), want, `${tag} label ${label}`);
          const mixed = await compareFiles(niiA, segB, { ...OPTIONS, mask: { label } });
          assert.deepEqual(metrics(mixed), want, `nifti against ${tag}`);
          assert.ok(!mixed.notes.some((n) => /grid|affine|spacing/.test(n) && /differ|against/.test(n)), `no space warning: ${mixed.notes.join('; ')}`);
        }
      }
    });
  }

  it('a label over 255 (LABELMAP 16 bits) reads as uint16', () => {
    const p = PLACEMENTS[0];
    const values = blobs(DIMS, 4, [7, 300, 1000]);
    const nii = writeNiftiOf(join(dir, 'wide.nii'), p, values);
    const seg = writeSeg(join(dir, 'wide.dcm'), p, values, { type: 'LABELMAP', bits: 16, transferSyntax: UID.implicit });
    for (const label of [300, 1000, undefined]) {
      const got = readGeometry(seg, { mask: { label } }), want = readGeometry(nii, { mask: { label } });
      assert.ok(want.count > 0);
      assert.ok(sameBits(got.positions, want.positions), `label ${label}`);
    }
    const binary = writeSeg(join(dir, 'wide-binary.dcm'), p, values, { transferSyntax: UID.rle });
    assert.ok(sameBits(readGeometry(binary, { mask: { label: 1000 } }).positions, readGeometry(nii, { mask: { label: 1000 } }).positions));
  });

  it('frames that span fewer slices than the volume: the grid starts at the lowest frame', () => {
    const p = PLACEMENTS[0];
    const values = new Int16Array(DIMS[0] * DIMS[1] * DIMS[2]);
    const slice = DIMS[0] * DIMS[1];
    for (let k = 3; k <= 8; k++) for (let n = 40; n < 90; n++) values[k * slice + n] = k % 2 === 0 ? 1 : 2;
    const nii = writeNiftiOf(join(dir, 'span.nii'), p, values);
    const seg = writeSeg(join(dir, 'span.dcm'), p, values, { omitEmpty: true, shuffle: 1, transferSyntax: UID.deflated });
    const got = readGeometry(seg), want = readGeometry(nii);
    assert.deepEqual(got.grid!.dims, [DIMS[0], DIMS[1], 6]);
    assert.ok(sameBits(got.positions, want.positions), 'the same points (the numbers are exact in binary)');
  });

  it('--label settles overlapping segments; without it they are refused', async () => {
    const p = PLACEMENTS[0];
    const values = blobs(DIMS, 5);
    const slice = DIMS[0] * DIMS[1];
    // Segment 2 also covers voxels of segment 1 (and some background) in slice 6.
    const covered = Array.from({ length: slice }, (_, n) => n).filter((n) => values[6 * slice + n] === 1 || n % 7 === 0);
    const seg = writeSeg(join(dir, 'overlap.dcm'), p, values, { extraFrames: [{ segment: 2, slice: 6, pixels: covered }] });
    const only1 = Int16Array.from(values, (v) => (v === 1 ? 1 : 0));
    const with2 = Int16Array.from(values, (v) => (v === 2 ? 2 : 0));
    for (const n of covered) with2[6 * slice + n] = 2;
    const nii1 = writeNiftiOf(join(dir, 'overlap-1.nii'), p, only1), nii2 = writeNiftiOf(join(dir, 'overlap-2.nii'), p, with2);
    assert.ok(sameBits(readGeometry(seg, { mask: { label: 1 } }).positions, readGeometry(nii1).positions), 'segment 1 whole');
    const two = readGeometry(seg, { mask: { label: 2 } });
    assert.ok(sameBits(two.positions, readGeometry(nii2).positions), 'segment 2 whole, overlap included');
    assert.ok(two.notes.some((n) => /segments overlap in \d+ voxels; segment 2's are kept/.test(n)), two.notes.join('; '));
    assert.throws(() => readGeometry(seg), /overlap\.dcm: segments 1 and 2 overlap: frame \d+ sets voxel \(\d+, \d+, 6\).*--label/);

    const cli = runXhd(['compare', seg, nii2, '--label', '2', '--json']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout).hd, 0);
    const refused = runXhd(['compare', seg, nii2]);
    assert.equal(refused.code, 2);
    assert.ok(!hasStackTrace(refused.stderr), refused.stderr);
    assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
    assert.match(refused.stderr, /overlap\.dcm: segments 1 and 2 overlap/);
  });

  it('the CLI: compare, --format dicom-seg, detection by contents, info; --labels all as on the NIfTI files', () => {
    const p = PLACEMENTS[1];
    const a = blobs(DIMS, 8), b = blobs(DIMS, 9);
    const segA = writeSeg(join(dir, 'cli-a.dcm'), p, a, { transferSyntax: UID.rle });
    const segB = writeSeg(join(dir, 'cli-b.seg'), p, b, {});
    const niiA = writeNiftiOf(join(dir, 'cli-a.nii'), p, a), niiB = writeNiftiOf(join(dir, 'cli-b.nii'), p, b);
    const want = runXhd(['compare', niiA, niiB, '--label', '3', '--json']);
    assert.equal(want.code, 0, want.stderr);
    const got = runXhd(['compare', segA, segB, '--label', '3', '--json']);
    assert.equal(got.code, 0, got.stderr);
    const pick = (s: string) => {
      const r = JSON.parse(s);
      return { hd: r.hd, hd_ab: r.hd_ab, hd_ba: r.hd_ba, stats: r.stats };
    };
    assert.deepEqual(pick(got.stdout), pick(want.stdout));
    assert.equal(sniffFormat(segFile({ dims: DIMS, labels: a, type: 'BINARY', transferSyntax: UID.explicit, ...p })), 'dicom-seg');
    const forced = runXhd(['compare', segA, segB, '--format', 'dicom-seg', '--json']);
    assert.equal(forced.code, 0, forced.stderr);
    const info = runXhd(['info', segB, '--json']);
    assert.equal(info.code, 0, info.stderr);
    assert.equal(JSON.parse(info.stdout).format, 'dicom-seg');
    const labels = runXhd(['compare', segA, segB, '--labels', 'all', '--percentile', '95', '--json']);
    const niftiLabels = runXhd(['compare', niiA, niiB, '--labels', 'all', '--percentile', '95', '--json']);
    assert.equal(labels.code, 0, labels.stderr);
    assert.equal(niftiLabels.code, 0, niftiLabels.stderr);
    const map = JSON.parse(labels.stdout).labels;
    assert.ok(Object.keys(map).length >= 2, 'several labels');
    assert.deepEqual(map, JSON.parse(niftiLabels.stdout).labels, 'every label as from the NIfTI files');
  });

  it('PackBits: runs, literals and a no-op round trip; decoding writes no byte past its output', () => {
    const data = Uint8Array.from({ length: 1000 }, (_, n) => (n < 300 ? 0 : n < 310 ? n : n % 3 === 0 ? 5 : 1));
    const out = new Uint8Array(1000);
    assert.equal(unpackBits(packBits(data), out), 1000);
    assert.deepEqual(out, data);
    const small = new Uint8Array(10);
    assert.equal(unpackBits(Uint8Array.of(129, 7, 127, ...new Uint8Array(128)), small), 10);
    assert.deepEqual(small, new Uint8Array(10).fill(7, 0, 10));
  });
});

/** expectInfoRefused, naming the file. */
const expectRefused = (path: string, ...parts: Array<string | RegExp>) => expectInfoRefused(path, path, ...parts);

describe('bad DICOM-SEG files: exit 2, one line naming the file and the tag', () => {
  const p = PLACEMENTS[0];
  const dims: Vec3 = [6, 5, 4];
  const values = Int16Array.from({ length: 120 }, (_, n) => (n % 5 === 0 ? 1 : n % 7 === 0 ? 2 : 0));
  const bad = (name: string, spec: Partial<SegSpec>) => writeSeg(join(dir, `bad-${name}.dcm`), p, values, spec, dims);
  const edit = (fn: (top: DicomElement[]) => void) => ({ edit: fn });
  /** The items of a top-level sequence. */
  const itemsOf = (top: DicomElement[], tag: number) => top.find((e) => e.tag === tag)!.value as DicomElement[][];

  it('not DICOM, or not a segmentation', () => {
    expectRefused(bad('magic', { file: { magic: 'DICX' } }), /"DICM"/);
    expectRefused(bad('ct', { sopClass: UID.ct }), '(0008,0016) SOPClassUID', UID.ct, 'is not a segmentation');
    expectRefused(bad('type', edit((top) => setElement(top, el(0x00620001, 'CS', 'SURFACE')))), '(0062,0001) SegmentationType', 'SURFACE');
    expectRefused(bad('no-type', edit((top) => removeElement(top, 0x00620001))), '(0062,0001) SegmentationType', 'missing');
  });

  it('transfer syntaxes not read, and a missing one', () => {
    expectRefused(bad('jpeg', { file: { transferSyntax: UID.jpegBaseline } }), '(0002,0010) TransferSyntaxUID', `${UID.jpegBaseline} (JPEG baseline) is not read`);
    expectRefused(bad('big', { file: { transferSyntax: '1.2.840.10008.1.2.2' } }), 'TransferSyntaxUID', 'big endian');
    expectRefused(bad('unknown-ts', { file: { transferSyntax: '1.2.3.4' } }), 'TransferSyntaxUID', '1.2.3.4 is not read');
    expectRefused(bad('no-ts', { file: { noTransferSyntax: true } }), '(0002,0010) TransferSyntaxUID', 'missing');
  });

  it('pixel sizes: zero, missing, a BitsAllocated the type does not have, PixelData of the wrong length', () => {
    expectRefused(bad('rows0', edit((top) => setElement(top, el(0x00280010, 'US', [0])))), '(0028,0010) Rows', 'at least 1');
    expectRefused(bad('no-columns', edit((top) => removeElement(top, 0x00280011))), '(0028,0011) Columns', 'missing');
    expectRefused(bad('frames0', edit((top) => setElement(top, el(0x00280008, 'IS', '0')))), '(0028,0008) NumberOfFrames', 'at least 1');
    expectRefused(bad('frames-text', edit((top) => setElement(top, el(0x00280008, 'IS', 'many')))), '(0028,0008) NumberOfFrames', '"many"');
    expectRefused(bad('bits', edit((top) => setElement(top, el(0x00280100, 'US', [8])))), '(0028,0100) BitsAllocated', 'BINARY segmentation has 1');
    expectRefused(bad('label-bits', { type: 'LABELMAP', edit: (top) => setElement(top, el(0x00280100, 'US', [32])) }), 'BitsAllocated', '8 or 16');
    expectRefused(bad('samples', edit((top) => setElement(top, el(0x00280002, 'US', [3])))), '(0028,0002) SamplesPerPixel');
    // Rows × Columns lie: 65535 × 65535 × frames would need gigabytes; nothing that size is allocated.
    expectRefused(bad('huge-rows', edit((top) => {
      setElement(top, el(0x00280010, 'US', [65535]));
      setElement(top, el(0x00280011, 'US', [65535]));
    })), '(7FE0,0010) PixelData', /bytes, but Rows × Columns × NumberOfFrames \(65535 × 65535 × \d+\) at BitsAllocated 1 need \d+/);
    expectRefused(bad('short-pixels', edit((top) => setElement(top, el(0x7fe00010, 'OB', new Uint8Array(4))))), '(7FE0,0010) PixelData', '4 bytes');
    expectRefused(bad('no-pixels', edit((top) => removeElement(top, 0x7fe00010))), '(7FE0,0010) PixelData', 'missing');
  });

  it('NumberOfFrames against the per-frame items, functional groups missing or inconsistent', () => {
    // 8 frames more than the per-frame items, with the PixelData of 8 more 6×5 frames (240 bits): only the items lack.
    expectRefused(bad('frames-more', edit((top) => {
      const pixels = top.find((e) => e.tag === 0x7fe00010)!.value as Uint8Array;
      setElement(top, el(0x00280008, 'IS', String(itemsOf(top, 0x52009230).length + 8)));
      setElement(top, el(0x7fe00010, 'OB', Buffer.concat([pixels, new Uint8Array(30)])));
    })), '(5200,9230) PerFrameFunctionalGroupsSequence', /\d+ items, but \(0028,0008\) NumberOfFrames is \d+ \(one item a frame\)/);
    expectRefused(bad('no-position', edit((top) => {
      for (const item of itemsOf(top, 0x52009230).slice(2, 3)) removeElement(item, 0x00209113);
    })), 'PerFrameFunctionalGroupsSequence', 'frame 3 has no (0020,9113) PlanePositionSequence');
    expectRefused(bad('no-orientation', edit((top) => removeElement(itemsOf(top, 0x52009229)[0], 0x00209116))), 'frame 1 has no (0020,9116) PlaneOrientationSequence');
    expectRefused(bad('spacing-0', edit((top) => {
      const measures = itemsOf(top, 0x52009229)[0].find((e) => e.tag === 0x00289110)!.value as DicomElement[][];
      setElement(measures[0], el(0x00280030, 'DS', '0\\0.5'));
    })), '(0028,9110) PixelMeasuresSequence item 1 > (0028,0030) PixelSpacing', 'positive');
    expectRefused(bad('position-2', edit((top) => {
      const position = itemsOf(top, 0x52009230)[1].find((e) => e.tag === 0x00209113)!.value as DicomElement[][];
      setElement(position[0], el(0x00200032, 'DS', '1\\2'));
    })), '(5200,9230) PerFrameFunctionalGroupsSequence item 2 > (0020,9113) PlanePositionSequence item 1 > (0020,0032) ImagePositionPatient', 'not 3 finite numbers');
    expectRefused(bad('no-segment-ref', edit((top) => removeElement(itemsOf(top, 0x52009230)[0], 0x0062000a))), 'frame 1 has no (0062,000A) SegmentIdentificationSequence');
    expectRefused(bad('unknown-segment', edit((top) => {
      const id = itemsOf(top, 0x52009230)[0].find((e) => e.tag === 0x0062000a)!.value as DicomElement[][];
      setElement(id[0], el(0x0062000b, 'US', [9]));
    })), '(0062,000B) ReferencedSegmentNumber', 'frame 1 is segment 9, which no item of (0062,0002) SegmentSequence describes');
    expectRefused(bad('no-segments', edit((top) => removeElement(top, 0x00620002))), '(0062,0002) SegmentSequence', 'missing');
  });

  it('geometry: frames off the grid, orientations and spacings that differ, non-unit and parallel cosines', () => {
    const perFrame = { perFrameGeometry: true };
    expectRefused(bad('off-grid', edit((top) => {
      const position = itemsOf(top, 0x52009230)[2].find((e) => e.tag === 0x00209113)!.value as DicomElement[][];
      const xyz = String(position[0][0].value).split('\\').map(Number);
      setElement(position[0], el(0x00200032, 'DS', [xyz[0], xyz[1], xyz[2] + 0.4].join('\\')));
    })), '(0020,0032) ImagePositionPatient', /frame \d+ at .* lies 0\.\d+ of a step off the grid/);
    // A frame 2·10^8 steps away: a grid of 2·10^8 slices is refused before it is allocated; 2·10^9 steps, at once.
    for (const [name, steps, message] of [['far', 2e8, /6×5×200000001 uint8 voxels need .* not supported/], ['farther', 2e9, /too many slices/]] as const) {
      expectRefused(bad(name, edit((top) => {
        const position = itemsOf(top, 0x52009230)[0].find((e) => e.tag === 0x00209113)!.value as DicomElement[][];
        const xyz = String(position[0][0].value).split('\\').map(Number);
        setElement(position[0], el(0x00200032, 'DS', [xyz[0], xyz[1], xyz[2] + 1.5 * steps].join('\\')));
      })), message);
    }
    expectRefused(bad('in-plane', edit((top) => {
      const position = itemsOf(top, 0x52009230)[1].find((e) => e.tag === 0x00209113)!.value as DicomElement[][];
      const xyz = String(position[0][0].value).split('\\').map(Number);
      setElement(position[0], el(0x00200032, 'DS', [xyz[0] + 0.1, xyz[1], xyz[2]].join('\\')));
    })), '(0020,0032) ImagePositionPatient', /frame 2 .* off the grid/);
    expectRefused(bad('between', { spacingBetweenSlices: true, edit: (top) => {
      const measures = itemsOf(top, 0x52009229)[0].find((e) => e.tag === 0x00289110)!.value as DicomElement[][];
      setElement(measures[0], el(0x00180088, 'DS', '1'));
    } }), '(0020,0032) ImagePositionPatient', /off the grid .* slice step of 1 mm make \(SpacingBetweenSlices\)/);
    expectRefused(bad('orientations', { ...perFrame, edit: (top) => {
      const item = itemsOf(top, 0x52009230)[3];
      setElement(item, el(0x00209116, 'SQ', [[el(0x00200037, 'DS', '0\\1\\0\\1\\0\\0')]]));
    } }), '(0020,0037) ImageOrientationPatient', 'frame 4 has 0\\1\\0\\1\\0\\0', 'share one orientation');
    expectRefused(bad('spacings', { ...perFrame, edit: (top) => {
      const item = itemsOf(top, 0x52009230)[1];
      setElement(item, el(0x00289110, 'SQ', [[el(0x00280030, 'DS', '0.75\\0.6')]]));
    } }), '(0028,0030) PixelSpacing', 'frame 2 has 0.75\\0.6', 'share one pixel spacing');
    expectRefused(bad('non-unit', edit((top) => {
      setElement(itemsOf(top, 0x52009229)[0], el(0x00209116, 'SQ', [[el(0x00200037, 'DS', '2\\0\\0\\0\\1\\0')]]));
    })), '(0020,0037) ImageOrientationPatient', 'row direction has length 2');
    expectRefused(bad('parallel', edit((top) => {
      setElement(itemsOf(top, 0x52009229)[0], el(0x00209116, 'SQ', [[el(0x00200037, 'DS', '1\\0\\0\\1\\0\\0')]]));
    })), '(0020,0037) ImageOrientationPatient', 'parallel');
    expectRefused(bad('skew', edit((top) => {
      setElement(itemsOf(top, 0x52009229)[0], el(0x00209116, 'SQ', [[el(0x00200037, 'DS', '1\\0\\0\\0.6\\0.8\\0')]]));
    })), '(0020,0037) ImageOrientationPatient', 'right angles');
  });

  it('pixel values: FRACTIONAL values between 0 and the maximum, LABELMAP values no segment has', () => {
    expectRefused(bad('fraction', { type: 'FRACTIONAL', maxFraction: 200, fractionValue: 100 }), '(7FE0,0010) PixelData', 'FRACTIONAL value 100 lies between 0 and MaximumFractionalValue 200', 'chooses no threshold');
    expectRefused(bad('no-max', { type: 'FRACTIONAL', edit: (top) => removeElement(top, 0x0062000e) }), '(0062,000E) MaximumFractionalValue');
    expectRefused(bad('labelmap-value', { type: 'LABELMAP', segments: [1] }), '(7FE0,0010) PixelData', 'value 2 is no segment of (0062,0002) SegmentSequence');
  });

  it('RLE: fragment count, segment counts, offsets and lengths that lie', () => {
    const rle = { transferSyntax: UID.rle };
    const frag = (fn: (fragments: Uint8Array[]) => void) => ({ ...rle, edit: (top: DicomElement[]) => fn(top.find((e) => e.tag === 0x7fe00010)!.fragments!) });
    expectRefused(bad('rle-count', frag((f) => f.pop())), '(7FE0,0010) PixelData', /fragments for \d+ frames/);
    expectRefused(bad('rle-segments', frag((f) => { f[0] = Buffer.from(f[0]); Buffer.from(f[0].buffer, f[0].byteOffset).writeUInt32LE(3, 0); })), 'frame 1\'s RLE fragment has 3 segments');
    expectRefused(bad('rle-offset', frag((f) => { f[1] = Buffer.from(f[1]); Buffer.from(f[1].buffer, f[1].byteOffset).writeUInt32LE(99999, 4); })), 'frame 2\'s RLE fragment: segment 1 spans bytes 99999');
    expectRefused(bad('rle-short', frag((f) => { f[0] = f[0].subarray(0, 66); })), 'frame 1\'s RLE fragment: segment 1 decodes to');
    expectRefused(bad('rle-header', frag((f) => { f[0] = f[0].subarray(0, 10); })), 'shorter than the 64-byte RLE header');
    expectRefused(bad('rle-native', { edit: (top) => setElement(top, el(0x7fe00010, 'OB', new Uint8Array(0), { fragments: [new Uint8Array(8)] })) }), 'encapsulated (fragments), but the transfer syntax is native');
    expectRefused(bad('native-rle', { ...rle, edit: (top) => setElement(top, el(0x7fe00010, 'OB', new Uint8Array(16))) }), 'not encapsulated');
  });

  it('truncated files, lying lengths, a corrupt deflate stream', () => {
    const whole = bad('whole', {});
    const size = segFile({ dims, labels: values, type: 'BINARY', transferSyntax: UID.explicit, ...p }).length;
    expectRefused(bad('truncated', { file: { truncate: size - 3 } }), /cannot be parsed|past the end|PixelData/);
    expectRefused(bad('truncated-meta', { file: { truncate: 150 } }), 'the file ends inside its file meta information');
    expectRefused(bad('truncated-implicit', { transferSyntax: UID.implicit, file: { truncate: size - 200 } }), /past the end|cannot be parsed/);
    expectRefused(bad('lying-length', edit((top) => setElement(top, el(0x7fe00010, 'OB', new Uint8Array(6), { length: 0x7ffffff0 })))), /PixelData|cannot be parsed/);
    expectRefused(bad('lying-implicit', { transferSyntax: UID.implicit, edit: (top) => setElement(top, el(0x7fe00010, 'OB', new Uint8Array(6), { length: 0x7ffffff0 })) }), '(7FE0,0010) PixelData', 'runs past the end');
    expectRefused(bad('item-tag', edit((top) => setElement(top, el(0x00620002, 'SQ', new Uint8Array(16).fill(0x41) as unknown as DicomElement[][], { length: 16 })))), /cannot be parsed|SegmentSequence/);
    const deflated = bad('deflated', { transferSyntax: UID.deflated });
    const bytes = Buffer.from(segFile({ dims, labels: values, type: 'BINARY', ...p, transferSyntax: UID.deflated }));
    bytes.fill(0xff, bytes.length - 40);
    writeFileSync(deflated, bytes);
    expectRefused(deflated, 'the deflated dataset');
    const cut = Buffer.from(segFile({ dims, labels: values, type: 'BINARY', ...p, transferSyntax: UID.deflated }));
    writeFileSync(deflated, cut.subarray(0, cut.length - 20));
    expectRefused(deflated, 'the deflated dataset ends early');
    assert.equal(runXhd(['info', whole]).code, 0);
  });
});

describe('mutated DICOM-SEG files: a volume or one line naming the file, quickly', () => {
  it('byte flips, truncations and spliced garbage in every transfer syntax', () => {
    const p = PLACEMENTS[2];
    const dims: Vec3 = [9, 8, 6];
    const values = blobs(dims, 11);
    const random = lcg(12345);
    let refused = 0, read = 0;
    for (const spec of [{}, { transferSyntax: UID.implicit, undefinedLengths: true }, { transferSyntax: UID.deflated }, { transferSyntax: UID.rle },
      { type: 'LABELMAP' as const, bits: 16 as const, transferSyntax: UID.rle, omitEmpty: true }]) {
      const good = segFile({ dims, labels: values, type: 'BINARY', transferSyntax: UID.explicit, ...p, ...spec });
      for (let n = 0; n < 150; n++) {
        const bytes = Uint8Array.from(good);
        const kind = n % 3;
        let mutated: Uint8Array = bytes;
        if (kind === 0) for (let k = 0; k < 1 + Math.floor(random() * 6); k++) bytes[132 + Math.floor(random() * (bytes.length - 132))] ^= 1 << Math.floor(random() * 8);
        else if (kind === 1) mutated = bytes.subarray(0, 132 + Math.floor(random() * (bytes.length - 132)));
        else {
          const at = 132 + Math.floor(random() * (bytes.length - 132));
          mutated = Uint8Array.from([...bytes.subarray(0, at), ...Array.from({ length: 1 + Math.floor(random() * 12) }, () => Math.floor(random() * 256)), ...bytes.subarray(at + 4)]);
        }
        const started = performance.now();
        try {
          const g = parseGeometry(mutated, 'mutant.dcm', { format: 'dicom-seg' });
          assert.ok(Array.from(g.positions).every(Number.isFinite));
          read++;
        } catch (error) {
          assert.ok(error instanceof XhdError, `case ${n}: ${String(error)} ${(error as Error).stack ?? ''}`);
          assert.equal(error.exitCode, 2);
          assert.ok(error.message.startsWith('mutant.dcm'), error.message);
          assert.ok(!error.message.includes('\n'), error.message);
          refused++;
        }
        assert.ok(performance.now() - started < 1000, `case ${n} took ${performance.now() - started} ms`);
      }
    }
    assert.ok(refused > 100 && read > 10, `${refused} refused, ${read} read`);
  });
});
