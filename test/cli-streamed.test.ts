// `xhd compare A B --memory-limit SIZE` on the CPU backend with binary PLY point clouds, uncompressed LAS
// files or LAZ files that need more memory than SIZE: streamed from the files in slabs and tiles (xhd_points_compare_files),
// with the in-memory answer bit for bit (distances, witnesses, their points, a LAS file's CRS and notes);
// options that need every point in memory refused with the reason; a bad record named as the whole-file
// reader names it.
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { LAS_HEADER_PROBE, parseLasHeader } from '../src/io/las-header.js';
import { readLasVlrs } from '../src/io/las-vlrs.js';
import { readLazLayout } from '../src/io/laz-chunks.js';
import { lazPointFile } from '../src/io/laz-point-file.js';
import { writeLaz } from '../src/io/laz-write.js';
import { runXhd, scratchDir } from './cli-run.js';
import { chunkSizes, layeredLaz, scanRecords } from './laz-layered-writer.js';
import { geoKeys, lasBytes, type LasPoint } from './las-writer.js';
import { rng, uniform } from './random-points.js';

const dir = scratchDir();

/** A binary little-endian PLY point cloud (an int id before x, y, z; z left out for 2D). */
function writePointPly(name: string, xyz: ArrayLike<number>, options: { double?: boolean; twoD?: boolean } = {}): string {
  const type = options.double ? 'double' : 'float', width = options.double ? 8 : 4;
  const axes = options.twoD ? ['x', 'y'] : ['x', 'y', 'z'];
  const n = xyz.length / 3;
  const header = ['ply', 'format binary_little_endian 1.0', `element vertex ${n}`, 'property int id',
    ...axes.map((p) => `property ${type} ${p}`), 'end_header', ''].join('\n');
  const stride = 4 + axes.length * width;
  const body = Buffer.alloc(n * stride);
  for (let i = 0; i < n; i++) {
    body.writeInt32LE(i, i * stride);
    axes.forEach((_, k) => (options.double ? body.writeDoubleLE(xyz[3 * i + k], i * stride + 4 + 8 * k) : body.writeFloatLE(xyz[3 * i + k], i * stride + 4 + 4 * k)));
  }
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([Buffer.from(header, 'latin1'), body]));
  return path;
}

function shifted(p: Float32Array, dx: number): Float32Array {
  const q = p.slice();
  for (let i = 0; i < q.length; i += 3) q[i] += dx;
  return q;
}

const ANSWER_KEYS = ['hd', 'hd_ab', 'hd_ba', 'witness_ab', 'witness_ba', 'bbox_diagonal'];

function compareJson(a: string, b: string, extra: string[] = []) {
  const run = runXhd(['compare', a, b, '--backend', 'cpu', '--json', ...extra]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('compare --memory-limit streams binary PLY point clouds from the files (CPU)', () => {
  const cloud = uniform(30_000, 3, rng(301));
  const cases: Array<[string, string, string]> = [
    ['float32, overlapping', writePointPly('a.ply', cloud), writePointPly('b.ply', shifted(cloud, 0.004))],
    ['doubles', writePointPly('a64.ply', cloud, { double: true }), writePointPly('b64.ply', uniform(20_000, 3, rng(302)), { double: true })],
    ['2D', writePointPly('a2.ply', uniform(30_000, 2, rng(303)), { twoD: true }), writePointPly('b2.ply', uniform(25_000, 2, rng(304)), { twoD: true })],
  ];
  for (const [label, a, b] of cases) {
    it(`${label}: the in-memory answer, witnesses and their points included`, () => {
      const whole = compareJson(a, b);
      assert.equal(whole.streamed, undefined);
      const streamed = compareJson(a, b, ['--memory-limit', '1M']);
      assert.ok(streamed.streamed.slabs > 1, `slabs ${streamed.streamed.slabs}`);
      for (const key of ANSWER_KEYS) assert.deepEqual(streamed[key], whole[key], `${label}: ${key}`);
      const directed = compareJson(a, b, ['--memory-limit', '1M', '--directed']);
      assert.deepEqual([directed.hd, directed.witness_ab], [whole.hd_ab, whole.witness_ab]);
    });
  }

  it('a far outlier, or a far cluster, costs its own slab the slow search: the in-memory answer, said in the note', () => {
    const withOutlier = cloud.slice();
    withOutlier.set([1e9, 0.5, 0.5], 0);  // first, so that the plan's sample holds it
    const withCluster = cloud.slice();
    for (let i = 0; i < 600; i++) withCluster.set([1e7 + 0.001 * (i % 10), 0.5, 0.5 + 0.001 * (i % 7)], 3 * i);  // 2%
    const [, plain, b] = cases[0];
    assert.equal(compareJson(plain, b, ['--memory-limit', '2M']).streamed.slow_slabs, 0);
    for (const [label, points] of [['outlier', withOutlier], ['cluster', withCluster]] as const) {
      const a = writePointPly(`far-${label}.ply`, points);
      const whole = compareJson(a, b);
      // 2 MiB: the plain pair's every slab is proven by its halo (at 1 MiB the halos outgrow the tiles).
      const streamed = compareJson(a, b, ['--memory-limit', '2M']);
      for (const key of ANSWER_KEYS) assert.deepEqual(streamed[key], whole[key], `${label}: ${key}`);
      assert.ok(streamed.streamed.slabs > 2, `${label}: slabs ${streamed.streamed.slabs}`);
      // The far points' slab of A -> B alone: B -> A's guesses are measured over the bulk of the sample.
      assert.equal(streamed.streamed.slow_directions, 1, label);
      assert.equal(streamed.streamed.slow_slabs, 1, label);
      const text = runXhd(['compare', a, b, '--backend', 'cpu', '--memory-limit', '2M']);
      assert.match(text.stdout, /1 slab of 1 direction searched again query by query/);
    }
  });

  it('says so in the text output; a limit the inputs fit is read whole, with a note', () => {
    const [, a, b] = cases[0];
    const run = runXhd(['compare', a, b, '--backend', 'cpu', '--memory-limit', '1M']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /streamed from the files within --memory-limit 1\.00 MiB: \d+ slabs, \d+ passes over the files/);
    const roomy = compareJson(a, b, ['--memory-limit', '1G']);
    assert.equal(roomy.streamed, undefined);
    assert.ok(roomy.notes.some((n: string) => /these were read whole/.test(n)), roomy.notes.join('\n'));
  });

  it('options that need every point in memory are refused with the reason (exit 2)', () => {
    const [, a, b] = cases[0];
    for (const [extra, why] of [[['--stats'], /statistics/], [['--method', 'eb'], /--method eb runs in memory/],
      [['--every', '2'], /point filters \(--classes, --returns, --bbox, --every\) select the points in memory/],
      [['--bbox', '0,0,0,0.5,0.5,0.5'], /point filters/]] as const) {
      const run = runXhd(['compare', a, b, '--backend', 'cpu', '--memory-limit', '1M', ...extra]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /need about [\d.]+ MiB in memory, more than --memory-limit 1\.00 MiB/);
      assert.match(run.stderr, why);
    }
  });

  it('a bad record is named by file and byte, as when the file is read whole', () => {
    const bad = uniform(30_000, 3, rng(305));
    bad[3 * 12_345 + 2] = Number.NaN;
    const path = writePointPly('bad.ply', bad);
    const [, a] = cases[0];
    const whole = runXhd(['compare', a, path, '--backend', 'cpu', '--quiet']);
    const streamed = runXhd(['compare', a, path, '--backend', 'cpu', '--quiet', '--memory-limit', '1M']);
    assert.equal(whole.code, 2, whole.stderr);
    assert.equal(streamed.code, 2, streamed.stderr);
    assert.match(streamed.stderr, /bad\.ply \(byte \d+\): non-finite coordinate \(NaN\) in vertex 12345/);
    assert.equal(streamed.stderr, whole.stderr);
    assert.equal(streamed.stdout, '');
  });
});

/** An uncompressed LAS file of points on a survey grid: integers X, Y, Z from `seed`, `jitter` added to X. */
function writeSurveyLas(name: string, n: number, seed: number, options: { format: number; minor: number; shift?: number; scale?: [number, number, number] }): string {
  const random = rng(seed);
  const points: LasPoint[] = [];
  for (let i = 0; i < n; i++) {
    points.push({ X: Math.floor(random() * 100_000) + (options.shift ?? 0), Y: Math.floor(random() * 100_000), Z: Math.floor(random() * 5_000), classification: 1 + (i % 3) });
  }
  const epsg = { userId: 'LASF_Projection', recordId: 34735, payload: geoKeys([[1024, 0, 1, 1], [3072, 0, 1, 32633]]) };
  const path = join(dir, name);
  writeFileSync(path, lasBytes(points, { format: options.format, minor: options.minor, scale: options.scale ?? [0.001, 0.001, 0.001], offset: [500_000, 4_200_000, 100], vlrs: [epsg] }));
  return path;
}


/** A streamed compare of two LAS or LAZ files against the in-memory one: answers, formats, CRS, counts and notes. */
function assertStreamedLidar(a: string, b: string, format: 'las' | 'laz') {
  const whole = compareJson(a, b);
  assert.equal(whole.streamed, undefined);
  const streamed = compareJson(a, b, ['--memory-limit', '1M']);
  assert.ok(streamed.streamed.slabs > 1, `slabs ${streamed.streamed.slabs}`);
  for (const key of ANSWER_KEYS) assert.deepEqual(streamed[key], whole[key], key);
  for (const side of ['a', 'b']) {
    assert.equal(streamed[side].format, format);
    assert.deepEqual(streamed[side].crs, whole[side].crs);
    assert.equal(streamed[side].points, whole[side].points);
  }
  assert.ok(streamed.a.crs, 'the CRS the VLR states');
  assert.deepEqual(streamed.notes.filter((n: string) => !/^streamed from the files/.test(n)), whole.notes);
  assert.ok(streamed.witness_ab.a_point[0] > 500_000, JSON.stringify(streamed.witness_ab));
  return whole;
}

describe('compare --memory-limit streams uncompressed LAS files too (CPU)', () => {
  // Different point formats and versions (record lengths 28 and 30), at UTM coordinates with millimetre steps.
  const a = writeSurveyLas('a.las', 30_000, 311, { format: 1, minor: 2 });
  const b = writeSurveyLas('b.las', 25_000, 312, { format: 6, minor: 4, shift: 7 });

  it('the in-memory answer, witnesses, CRS and notes included', () => {
    assertStreamedLidar(a, b, 'las');
  });

  it('a LAS file against a binary PLY: the in-memory answer', () => {
    const cloud = uniform(20_000, 3, rng(313)).map((v, i) => (i % 3 === 0 ? 500_000 + 100 * v : i % 3 === 1 ? 4_200_000 + 100 * v : 100 + 5 * v));
    const ply = writePointPly('survey.ply', cloud, { double: true });
    const whole = compareJson(a, ply);
    const streamed = compareJson(a, ply, ['--memory-limit', '1M']);
    assert.ok(streamed.streamed.slabs > 1);
    for (const key of ANSWER_KEYS) assert.deepEqual(streamed[key], whole[key], key);
  });

  it('point filters need the points in memory: refused with the reason (exit 2)', () => {
    const run = runXhd(['compare', a, b, '--backend', 'cpu', '--memory-limit', '1M', '--classes', '2']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /point filters \(--classes, --returns, --bbox, --every\) select the points in memory/);
  });

  it('a coordinate scaled past 1e15 is named by file, byte and point, as when the file is read whole', () => {
    const bad = writeSurveyLas('bad.las', 30_000, 314, { format: 1, minor: 2, scale: [0.001, 1e12, 0.001] });
    const whole = runXhd(['compare', a, bad, '--backend', 'cpu', '--quiet']);
    const streamed = runXhd(['compare', a, bad, '--backend', 'cpu', '--quiet', '--memory-limit', '1M']);
    assert.equal(whole.code, 2, whole.stderr);
    assert.equal(streamed.code, 2, streamed.stderr);
    assert.match(streamed.stderr, /bad\.las \(byte \d+\)/);
    assert.equal(streamed.stderr, whole.stderr);
    assert.equal(streamed.stdout, '');
  });
});

/** The LAS file's points of writeSurveyLas as a LAZ file of chunks of `chunkSize` points (the native writer). */
function writeSurveyLaz(name: string, n: number, seed: number, options: { chunkSize: number; gpsTime?: boolean; shift?: number }): string {
  const random = rng(seed);
  const xyz = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    xyz[3 * i] = 500_000 + (Math.floor(random() * 100_000) + (options.shift ?? 0)) / 1000;
    xyz[3 * i + 1] = 4_200_000 + Math.floor(random() * 100_000) / 1000;
    xyz[3 * i + 2] = 100 + Math.floor(random() * 5_000) / 1000;
  }
  const epsg = { userId: 'LASF_Projection', recordId: 34735, payload: geoKeys([[1024, 0, 1, 1], [3072, 0, 1, 32633]]) };
  const path = join(dir, name);
  writeLaz(path, { xyz, ...(options.gpsTime ? { gpsTime: Float64Array.from({ length: n }, (_, i) => i / 10) } : {}) },
    { scale: [0.001, 0.001, 0.001], offset: [500_000, 4_200_000, 100], chunkSize: options.chunkSize, vlrs: [epsg] });
  return path;
}

/** The chunk table's entries of a LAZ file, as the whole-file reader finds them. */
function lazChunks(path: string) {
  const size = statSync(path).size;
  const fd = openSync(path, 'r');
  try {
    const prefix = Buffer.alloc(Math.min(size, LAS_HEADER_PROBE));
    readSync(fd, prefix, 0, prefix.length, 0);
    const header = parseLasHeader(new Uint8Array(prefix), size, path);
    return readLazLayout(fd, path, size, header, readLasVlrs(fd, header, size, path)).chunks;
  } finally {
    closeSync(fd);
  }
}

describe('compare --memory-limit streams LAZ files too, a run of chunks at a time (CPU)', () => {
  // Point formats 0 and 1, chunks of 3,000 and 2,500 points at UTM coordinates with millimetre steps (a chunk is
  // decoded whole, so it must fit a quarter of the limit: 3,000 points in 1 MiB).
  const a = writeSurveyLaz('a.laz', 30_000, 321, { chunkSize: 3_000 });
  const b = writeSurveyLaz('b.laz', 25_000, 322, { chunkSize: 2_500, gpsTime: true, shift: 7 });
  const streams = (path: string) => assert.ok(lazPointFile(path), `${path} is streamed, not read whole`);

  it('the in-memory answer, witnesses, CRS and notes included', () => {
    assert.ok(lazChunks(a).length >= 8, `${lazChunks(a).length} chunks`);
    const whole = assertStreamedLidar(a, b, 'laz');
    const directed = compareJson(a, b, ['--memory-limit', '1M', '--directed']);
    assert.deepEqual([directed.hd, directed.witness_ab], [whole.hd_ab, whole.witness_ab]);
  });

  it('a LAZ file against an uncompressed LAS file: the in-memory answer', () => {
    const las = writeSurveyLas('c.las', 20_000, 323, { format: 1, minor: 2 });
    const whole = compareJson(a, las);
    const streamed = compareJson(a, las, ['--memory-limit', '1M']);
    assert.ok(streamed.streamed.slabs > 1);
    for (const key of ANSWER_KEYS) assert.deepEqual(streamed[key], whole[key], key);
  });

  it('point format 7 (the layered items of LAS 1.4) against format 0: the in-memory answer', () => {
    const layered = join(dir, 'layered.laz');
    writeFileSync(layered, layeredLaz(scanRecords(30_000, 7), { format: 7, chunks: chunkSizes(30_000, 3000) }).bytes);
    const whole = compareJson(layered, a);
    const streamed = compareJson(layered, a, ['--memory-limit', '1M']);
    assert.ok(streamed.streamed.slabs > 1);
    assert.equal(streamed.a.format, 'laz');
    for (const key of ANSWER_KEYS) assert.deepEqual(streamed[key], whole[key], key);
  });

  it('a damaged chunk is named by file and byte, as when the file is read whole', () => {
    const bytes = readFileSync(a);
    const third = lazChunks(a)[2];
    // Garbage over the middle of the third chunk's compressed bytes: it decodes to nothing LASzip writes, or to
    // points far outside the header's bounds; either way the file is refused, and the same way both times.
    for (let i = 0; i < 64; i++) bytes[third.offset + Math.floor(third.bytes / 2) + i] = (i * 151 + 7) & 0xff;
    const damaged = join(dir, 'damaged.laz');
    writeFileSync(damaged, bytes);
    streams(damaged);
    const whole = runXhd(['compare', damaged, b, '--backend', 'cpu', '--quiet']);
    const streamed = runXhd(['compare', damaged, b, '--backend', 'cpu', '--quiet', '--memory-limit', '1M']);
    assert.equal(whole.code, 2, whole.stderr);
    assert.equal(streamed.code, 2, streamed.stderr);
    assert.match(streamed.stderr, /damaged\.laz \(byte \d+\): LAZ chunk 3 of \d+/);
    assert.equal(streamed.stderr, whole.stderr);
    assert.equal(streamed.stdout, '');
  });

  it('a coordinate scaled past 1e15 is refused as when the file is read whole: by the header\'s bounds, or without them by value', () => {
    const scaled = readFileSync(b);
    scaled.writeDoubleLE(1e12, 139); // y's scale factor
    const outside = join(dir, 'scaled.laz');
    writeFileSync(outside, scaled);
    const unbounded = Buffer.from(scaled);
    unbounded.fill(0, 179, 227); // the header's max and min x, y, z: never filled in, so not checked
    const beyond = join(dir, 'unbounded.laz');
    writeFileSync(beyond, unbounded);
    streams(outside);
    streams(beyond);
    for (const [path, line] of [[outside, /scaled\.laz \(byte \d+\): LAZ chunk 1 of \d+ decodes to y from/], [beyond, /unbounded\.laz \(byte 131\): .*beyond ±1e15/]] as const) {
      const whole = runXhd(['compare', a, path, '--backend', 'cpu', '--quiet']);
      const streamed = runXhd(['compare', a, path, '--backend', 'cpu', '--quiet', '--memory-limit', '1M']);
      assert.equal(whole.code, 2, whole.stderr);
      assert.equal(streamed.code, 2, streamed.stderr);
      assert.match(streamed.stderr, line);
      assert.equal(streamed.stderr, whole.stderr);
    }
  });

  it('chunks too large for a quarter of the limit are refused, saying why (exit 2)', () => {
    const one = writeSurveyLaz('one-chunk.laz', 30_000, 324, { chunkSize: 30_000 });
    streams(one);
    const run = runXhd(['compare', one, b, '--backend', 'cpu', '--memory-limit', '1M']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /one-chunk\.laz holds LAZ chunks of up to 30000 points, which are decoded whole: .* raise the limit/);
  });
});
