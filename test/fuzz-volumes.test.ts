// A mutation fuzzer for the volume readers, which fuzz-readers.test.ts cannot reach (no fixture is a volume): masks
// written here as NIfTI-1 and NIfTI-2 (plain and gzip), NRRD (attached and detached, raw and gzip), MetaImage (.mha
// and .mhd + data, raw and zlib) and DICOM-SEG (explicit, implicit, deflated, RLE), then mutated: byte flips,
// truncation, spliced garbage, absurd NIfTI header fields at their offsets, NRRD and MetaImage header values
// replaced, lines dropped or repeated, and gzip streams with garbage, cut or followed by more. Each case is read as
// the CLI reads a mask (readGeometryAsync: the volume, then its surface points) and must end as a geometry of finite
// coordinates or as an input (or usage) error of one line naming the file, quickly. Some cases also go through the
// CLI: exit 0 or 2, one line, no stack trace, and a bounded peak memory (a lying header must not be allocated).
//   A longer campaign: XHD_FUZZ_CASES=2000 XHD_FUZZ_SEED=7 node --test dist/test/fuzz-volumes.test.js
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';

import { readGeometryAsync } from '../src/io/read-async.js';
import { hasStackTrace, PRINTED_CONTROLS, scratchDir } from './cli-run.js';
import { segFile, UID } from './dicom-seg-writer.js';
import { xhdBin } from './helpers.js';
import { niftiBytes } from './nifti-writer.js';
import { rng } from './random-points.js';
import { expectBenignRead } from './reader-test-tools.js';
import { at, flipBytes, garbage, pick, splice, spliceGarbage, truncate } from './byte-mutations.js';
import { writeMetaImage, writeNrrd, type TestVolume } from './volume-writers.js';

/** Cases a base file (about 12 × 40 = 480, a few seconds): the same every CI run unless XHD_FUZZ_SEED varies them. */
const CASES = Number(process.env.XHD_FUZZ_CASES ?? 40);
const SEED = Number(process.env.XHD_FUZZ_SEED ?? 0);
/** No reader may take this long on a volume of a few hundred voxels, whatever its bytes claim. */
const SLOW_MS = 2000;
/** The CLI's peak resident memory on these inputs: Node and xhd take about 100 MB; a lying header would take GBs. */
const PEAK_RSS_MB = 600;

type Vec3 = [number, number, number];
const DIMS: Vec3 = [9, 8, 7];

/** Two balls of labels 1 and 2 in a small volume. */
function labels(): Int16Array {
  const [nx, ny, nz] = DIMS;
  const values = new Int16Array(nx * ny * nz);
  let n = 0;
  for (let k = 0; k < nz; k++) for (let j = 0; j < ny; j++) for (let i = 0; i < nx; i++, n++) {
    if (Math.hypot(i - 3, j - 3, k - 3) <= 2.5) values[n] = 1;
    else if (Math.hypot(i - 6, j - 5, k - 4) <= 2) values[n] = 2;
  }
  return values;
}

const VOLUME: TestVolume = { dims: DIMS, values: labels(), type: 'int16', axes: [[0.9, 0, 0], [0, 1.1, 0], [0, 0, 1.5]], origin: [-10.5, 20.25, 3] };
const SFORM = [0.9, 0, 0, -10.5, 0, 1.1, 0, 20.25, 0, 0, 1.5, 3];

/** A base file: the path xhd reads, and the file among its files that the case mutates (a detached header's data too). */
interface Base {
  name: string;
  read: string;
  mutated: string;
  kind: 'nifti1' | 'nifti2' | 'text-header' | 'dicom' | 'data';
  /** The mutated file is gzip as a whole (the NIfTI header mutations then go inside it). */
  gzipped?: boolean;
}

function writeBases(dir: string): Base[] {
  const file = (name: string) => join(dir, name);
  writeFileSync(file('mask.nii'), niftiBytes({ dims: [...DIMS], values: VOLUME.values, datatype: 'int16', spacing: [0.9, 1.1, 1.5], sform: { rows: SFORM } }));
  writeFileSync(file('mask2.nii.gz'), niftiBytes({ dims: [...DIMS], values: VOLUME.values, datatype: 'uint8', version: 2, gzip: true, sform: { rows: SFORM } }));
  writeNrrd(file('raw'), VOLUME);
  writeNrrd(file('gz'), VOLUME, { gzip: true, littleEndian: false });
  writeNrrd(file('detached'), VOLUME, { detached: true, gzip: true });
  writeMetaImage(file('raw'), VOLUME);
  writeMetaImage(file('zlib'), VOLUME, { compressed: true, msb: true });
  writeMetaImage(file('detached'), VOLUME, { detached: true });
  const seg = (name: string, transferSyntax: string, type: 'BINARY' | 'LABELMAP' = 'BINARY') =>
    writeFileSync(file(name), segFile({ dims: DIMS, labels: VOLUME.values, type, transferSyntax, row: [1, 0, 0], column: [0, 1, 0], normal: [0, 0, 1], pixelSpacing: [1.1, 0.9], sliceStep: 1.5, origin: [10.5, -20.25, 3] }));
  seg('explicit.dcm', UID.explicit);
  seg('implicit-labelmap.dcm', UID.implicit, 'LABELMAP');
  seg('deflated.dcm', UID.deflated);
  seg('rle.dcm', UID.rle);
  const data = readdirSync(dir).find((f) => f.startsWith('detached.raw'))!;
  const mhdData = readdirSync(dir).find((f) => f.startsWith('detached.') && f !== data && !f.endsWith('.nhdr') && !f.endsWith('.mhd'))!;
  return [
    { name: 'NIfTI-1', read: file('mask.nii'), mutated: file('mask.nii'), kind: 'nifti1' },
    { name: 'NIfTI-2, gzip', read: file('mask2.nii.gz'), mutated: file('mask2.nii.gz'), kind: 'nifti2', gzipped: true },
    { name: 'NRRD, raw', read: file('raw.nrrd'), mutated: file('raw.nrrd'), kind: 'text-header' },
    { name: 'NRRD, gzip, big-endian', read: file('gz.nrrd'), mutated: file('gz.nrrd'), kind: 'text-header' },
    { name: 'NRRD, detached header', read: file('detached.nhdr'), mutated: file('detached.nhdr'), kind: 'text-header' },
    { name: 'NRRD, detached gzip data', read: file('detached.nhdr'), mutated: file(data), kind: 'data', gzipped: true },
    { name: 'MetaImage, raw', read: file('raw.mha'), mutated: file('raw.mha'), kind: 'text-header' },
    { name: 'MetaImage, zlib, MSB', read: file('zlib.mha'), mutated: file('zlib.mha'), kind: 'text-header' },
    { name: 'MetaImage, detached header', read: file('detached.mhd'), mutated: file('detached.mhd'), kind: 'text-header' },
    { name: 'MetaImage, detached data', read: file('detached.mhd'), mutated: file(mhdData), kind: 'data' },
    { name: 'DICOM-SEG, explicit', read: file('explicit.dcm'), mutated: file('explicit.dcm'), kind: 'dicom' },
    { name: 'DICOM-SEG, implicit label map', read: file('implicit-labelmap.dcm'), mutated: file('implicit-labelmap.dcm'), kind: 'dicom' },
    { name: 'DICOM-SEG, deflated', read: file('deflated.dcm'), mutated: file('deflated.dcm'), kind: 'dicom' },
    { name: 'DICOM-SEG, RLE', read: file('rle.dcm'), mutated: file('rle.dcm'), kind: 'dicom' },
  ];
}


type Mutation = (bytes: Uint8Array, random: () => number, base: Base) => Uint8Array;

/** NIfTI header fields and the absurd values written into them: [offset, type] by version. */
type Field = [number, 'i16' | 'i32' | 'i64' | 'f32' | 'f64' | 'u8'];
const NIFTI_FIELDS: Record<'nifti1' | 'nifti2', Record<string, Field[]>> = {
  nifti1: {
    sizeof_hdr: [[0, 'i32']], dim: [40, 42, 44, 46, 48, 50].map((o): Field => [o, 'i16']), datatype: [[70, 'i16']], bitpix: [[72, 'i16']],
    pixdim: [76, 80, 84, 88].map((o): Field => [o, 'f32']), vox_offset: [[108, 'f32']], scaling: [[112, 'f32'], [116, 'f32']],
    units: [[123, 'u8']], codes: [[252, 'i16'], [254, 'i16']], quatern: [256, 260, 264, 268, 272, 276].map((o): Field => [o, 'f32']),
    srow: Array.from({ length: 12 }, (_, i): Field => [280 + 4 * i, 'f32']),
  },
  nifti2: {
    sizeof_hdr: [[0, 'i32']], datatype: [[12, 'i16']], bitpix: [[14, 'i16']], dim: [16, 24, 32, 40, 48].map((o): Field => [o, 'i64']),
    pixdim: [104, 112, 120, 128].map((o): Field => [o, 'f64']), vox_offset: [[168, 'i64']], scaling: [[176, 'f64'], [184, 'f64']],
    codes: [[344, 'i32'], [348, 'i32']], quatern: [352, 360, 368, 376, 384, 392].map((o): Field => [o, 'f64']),
    srow: Array.from({ length: 12 }, (_, i): Field => [400 + 8 * i, 'f64']), units: [[500, 'i32']],
  },
};
const ABSURD_INTS = [0, -1, 1, 2, 3, 7, 8, 255, 256, 32767, -32768, 65535, 0x7fffffff, -0x80000000, 2 ** 40, 2 ** 53];
const ABSURD_FLOATS = [NaN, Infinity, -Infinity, 0, -0, -1, 1e-45, 3.4e38, 1e300, 5e-324, 1e30];

function writeField(view: DataView, [offset, type]: Field, random: () => number): void {
  const int = pick(ABSURD_INTS, random), float = pick(ABSURD_FLOATS, random);
  switch (type) {
    case 'u8': view.setUint8(offset, int & 0xff); break;
    case 'i16': view.setInt16(offset, int, true); break;
    case 'i32': view.setInt32(offset, int | 0, true); break;
    case 'i64': view.setBigInt64(offset, BigInt(int), true); break;
    case 'f32': view.setFloat32(offset, float, true); break;
    case 'f64': view.setFloat64(offset, float, true); break;
  }
}

/** The text of NRRD and MetaImage header values replaced. */
const TOKENS = ['nan', 'inf', '-inf', '-1', '0', '1e999', '4294967297', '18446744073709551617', '99999999999999999999', '', ' ', 'garbage',
  '(nan,0,0)', '(0,0,0) (0,0,0) (0,0,0)', '(1,0,0) (1,0,0) (0,0,1)', 'none', 'gzip', 'bzip2', 'hex', 'text', 'raw', 'big', 'MET_DOUBLE', 'True',
  'LOCAL', '../../../../etc/passwd', '1 2', '1 2 3 4 5', '3 3 3', '0.5 0.5', 'double', 'unsigned char', '2000 2000 2000'];

/** The header's lines: NRRD up to its blank line, MetaImage up to ElementDataFile (included); [start, end) byte ranges. */
function headerLines(bytes: Uint8Array): Array<[number, number]> {
  const lines: Array<[number, number]> = [];
  let start = 0;
  for (let i = 0; i < bytes.length && lines.length < 64; i++) {
    if (bytes[i] !== 10) continue;
    if (i === start) break; // NRRD's blank line: the data follows
    lines.push([start, i]);
    const line = Buffer.from(bytes.subarray(start, i)).toString('latin1');
    start = i + 1;
    if (line.startsWith('ElementDataFile')) break;
  }
  return lines;
}

const MUTATIONS: Record<string, Mutation> = {
  'flip bytes': flipBytes,
  truncate,
  'splice garbage': spliceGarbage,
  'absurd header field': (b, r, base) => {
    if (base.kind === 'nifti1' || base.kind === 'nifti2') {
      const inner = Uint8Array.from(base.gzipped ? gunzipSync(b) : b);
      const fields = NIFTI_FIELDS[base.kind];
      const group = fields[pick(Object.keys(fields), r)];
      for (let k = 0; k < 1 + Math.floor(r() * 2); k++) writeField(new DataView(inner.buffer), pick(group, r), r);
      return base.gzipped ? new Uint8Array(gzipSync(inner)) : inner;
    }
    if (base.kind === 'text-header') {
      const lines = headerLines(b);
      if (lines.length === 0) return b;
      const [start, end] = pick(lines.slice(1), r) ?? lines[0]; // the magic line is left to the byte mutations
      const line = Buffer.from(b.subarray(start, end)).toString('latin1');
      const separator = /:=|: | = /.exec(line);
      const valueAt = separator ? separator.index + separator[0].length : line.length;
      return splice(b, start + valueAt, end - start - valueAt, Buffer.from(pick(TOKENS, r), 'latin1'));
    }
    return MUTATIONS['flip bytes'](b, r, base);
  },
  'drop or repeat a header line': (b, r, base) => {
    if (base.kind !== 'text-header') return MUTATIONS.truncate(b, r, base);
    const lines = headerLines(b);
    if (lines.length < 2) return b;
    const [start, end] = pick(lines.slice(1), r);
    const line = b.subarray(start, end + 1);
    return r() < 0.5 ? splice(b, start, end + 1 - start, new Uint8Array(0)) : splice(b, start, 0, Uint8Array.from([...line, ...line]));
  },
  'gzip garbage': (b, r) => {
    // Where a gzip stream starts (a whole .nii.gz, attached gzip data, a .raw.gz): keep its header, ruin the rest.
    let start = -1;
    for (let i = 0; i + 2 < b.length; i++) if (b[i] === 0x1f && b[i + 1] === 0x8b && b[i + 2] === 8) { start = i; break; }
    if (start < 0) return splice(b, at(b, r), 0, gzipSync(garbage(r, 64)));
    const deflate = start + 10;
    switch (Math.floor(r() * 4)) {
      case 0: return Uint8Array.from([...b.subarray(0, deflate), ...garbage(r, Math.max(1, b.length - deflate))]); // garbage deflate data
      case 1: return b.subarray(0, deflate + Math.floor(r() * (b.length - deflate))); // the stream cut
      case 2: return Uint8Array.from([...b, ...gzipSync(garbage(r, 1 + Math.floor(r() * 4096)))]); // a second member
      default: return Uint8Array.from([...b, ...garbage(r, 1 + Math.floor(r() * 64))]); // trailing garbage
    }
  },
};

/**
 * Whether an error names the file read, the file mutated, or the data file a header named (a mutated header may name
 * another file, even one outside the folder: MetaImage and NRRD data paths are relative to the header, as in ITK).
 */
function namesAFile(message: string, base: Base): boolean {
  if (message.includes(basename(base.read)) || message.includes(basename(base.mutated))) return true;
  const named = /^(.+?): /.exec(message);
  return named !== null && existsSync(named[1]);
}

/** A fresh copy of the base's files in its own folder, with the mutated file replaced. */
function caseFiles(dir: string, originals: string, base: Base, bytes: Uint8Array, k: number): Base {
  const folder = join(dir, `${base.name.replace(/[^a-z0-9]+/gi, '-')}-${k}`);
  mkdirSync(folder, { recursive: true });
  for (const f of readdirSync(originals)) copyFileSync(join(originals, f), join(folder, f));
  writeFileSync(join(folder, basename(base.mutated)), bytes);
  return { ...base, read: join(folder, basename(base.read)), mutated: join(folder, basename(base.mutated)) };
}

describe('mutation fuzzing of the volume readers', () => {
  const originals = scratchDir();
  const bases = writeBases(originals);

  it('every base file reads as a mask (the mutations start from valid files)', async () => {
    for (const base of bases) {
      const g = await readGeometryAsync(base.read, {});
      assert.ok(g.count > 20, `${base.name}: ${g.count} surface points`);
    }
  });

  bases.forEach((base, b) => {
    it(base.name, async () => {
      const dir = scratchDir();
      const original = readFileSync(base.mutated);
      const random = rng(SEED * 1000 + b + 1);
      const names = Object.keys(MUTATIONS);
      for (let k = 0; k < CASES; k++) {
        const mutation = names[k % names.length];
        const mutated = caseFiles(dir, originals, base, MUTATIONS[mutation](original, random, base), k);
        await expectBenignRead(() => readGeometryAsync(mutated.read, {}), `${base.name}, case ${k} (${mutation})`,
          (message) => namesAFile(message, mutated), SLOW_MS);
      }
    });
  });

  it('through the CLI: exit 0 or 2, one line naming the file, no stack trace, bounded peak memory', () => {
    const dir = scratchDir();
    const probe = join(dir, 'peak.cjs');
    writeFileSync(probe, "process.on('exit', () => process.stderr.write(`peak-rss-kb ${process.resourceUsage().maxRSS}\\n`));\n");
    const random = rng(SEED * 1000 + 777);
    const names = Object.keys(MUTATIONS);
    let k = 0;
    for (const base of bases) {
      for (let c = 0; c < 3; c++, k++) {
        const mutation = names[(k * 5) % names.length];
        const mutated = caseFiles(dir, originals, base, MUTATIONS[mutation](readFileSync(base.mutated), random, base), 1000 + k);
        const r = spawnSync(process.execPath, ['--require', probe, xhdBin, 'compare', mutated.read, bases[0].read, '--backend', 'cpu', '--percentile', '95', '--json'],
          { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
        const label = `${base.name}, CLI case ${k} (${mutation})`;
        const peak = /peak-rss-kb (\d+)\n$/.exec(r.stderr);
        const stderr = r.stderr.replace(/peak-rss-kb \d+\n$/, '');
        assert.ok(r.status === 0 || r.status === 2, `${label}: exit ${r.status} (signal ${r.signal}): ${stderr}`);
        assert.ok(!hasStackTrace(stderr), `${label}: ${stderr}`);
        assert.doesNotMatch(stderr, PRINTED_CONTROLS, `${label}: a control character printed`);
        if (r.status === 2) {
          assert.match(stderr, /^xhd: [^\n]*\n$/, `${label}: one line`);
          assert.ok(namesAFile(stderr.replace(/^xhd: /, '').trimEnd(), mutated), `${label}: names the file: ${stderr}`);
        }
        assert.ok(peak, `${label}: the probe reported`);
        assert.ok(Number(peak[1]) / 1024 < PEAK_RSS_MB, `${label}: peak ${(Number(peak[1]) / 1024).toFixed(0)} MB`);
      }
    }
  });
});
