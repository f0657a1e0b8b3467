// Reader throughput: writes synthetic point and mesh files to a temp dir, times readGeometry (best of
// --runs, default 3, the file in the page cache), prints MB/s and Mpoints/s, the CPU seconds of that best read
// (every thread) and Mpoints per CPU second, and deletes the files. Each file
// below 1 GiB is also timed read in 64 MiB pieces (forced with XHD_READ_PIECE_BYTES), the path files over
// 1 GiB take (LAS, LAZ and E57 always read from the file in pieces: no second column). LAZ files are written by
// xhd's own LAZ writer (src/io/laz-write.ts: LASzip's 50,000-point chunks, generated scan-line points of
// test/laz-points.ts) and timed with xhd's native decoder (all cores and one thread), its TypeScript
// decoder, laz-perf's chunk decoder, and beside laz-perf's own whole-file decoder on one thread (the peer);
// layered LAZ (point formats 6 and 7) by the CPU library's layered encoder (test/laz-layered-writer.ts).
// Usage: scripts/bench-readers [--size-mb N] [--only LABEL,...] [--runs N]
// (--size-mb 4500 --only OBJ --runs 1 reads a real text file over 4 GiB.)
// XHD_NATIVE_READ=0 times the TypeScript readers alone (what xhd read with before the native readers).
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { nativeReader } from '../src/io/native-reader.js';
import { readGeometry } from '../src/io/read.js';
import { lasBytes, writeRecord } from '../test/las-writer.js';
import { e57File, type E57FieldSpec } from '../test/helpers/e57-writer.js';
import { writeLaz } from '../src/io/laz-write.js';
import { generateLidarPoints } from '../test/laz-points.js';
import { chunkSizes, layeredLaz, scanRecords } from '../test/laz-layered-writer.js';

const CHUNK_POINTS = 1 << 16;

function numberOption(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  if (!(value > 0)) throw new Error(`${name} needs a positive number`);
  return value;
}

/** The --only labels (case-insensitive prefixes of a case's label), or undefined for every case. */
function onlyLabels(args: string[]): string[] | undefined {
  const at = args.indexOf('--only');
  return at < 0 ? undefined : (args[at + 1] ?? '').split(',').map((l) => l.trim().toLowerCase()).filter((l) => l !== '');
}

/** Deterministic coordinates in [-100, 100), so every run reads the same bytes. */
function makeRandom(): () => number {
  let state = 0x2545f491;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) / 2 ** 32) * 200 - 100;
  };
}

/** Writes `points` points in chunks; `chunk(n)` returns the bytes for the next n points. */
function writeFile(path: string, header: string | Uint8Array, points: number, chunk: (n: number) => Uint8Array | string, footer = ''): void {
  const fd = openSync(path, 'w');
  try {
    if (typeof header === 'string') writeSync(fd, header);
    else writeSync(fd, header);
    for (let done = 0; done < points; done += CHUNK_POINTS) {
      const data = chunk(Math.min(CHUNK_POINTS, points - done));
      if (typeof data === 'string') writeSync(fd, data);
      else writeSync(fd, data);
    }
    writeSync(fd, footer);
  } finally {
    closeSync(fd);
  }
}

/** `floats` float32 values a point: x, y, z and (for 6) a normal, which the reader skips. */
function binaryChunk(random: () => number, floats = 3): (n: number) => Uint8Array {
  return (n) => {
    const values = new Float32Array(floats * n);
    for (let i = 0; i < values.length; i++) values[i] = random();
    return new Uint8Array(values.buffer);
  };
}

function textChunk(random: () => number, separator = ' '): (n: number) => string {
  return (n) => {
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(`${random().toFixed(6)}${separator}${random().toFixed(6)}${separator}${random().toFixed(6)}\n`);
    return lines.join('');
  };
}

/** Text mesh records: `n` vertices (random coordinates) per call, then faces over them (see meshText). */
function vertexLines(random: () => number, prefix: string): (n: number) => string {
  return (n) => {
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(`${prefix}${random().toFixed(6)} ${random().toFixed(6)} ${random().toFixed(6)}\n`);
    return lines.join('');
  };
}

/** Faces (i, i+1, i+2) over `vertices` vertices, numbered from `base` (0 for OFF, 1 for OBJ). */
function faceLines(prefix: string, base: number): (first: number, n: number) => string {
  return (first, n) => {
    const lines: string[] = [];
    for (let i = first; i < first + n; i++) lines.push(`${prefix}${i + base} ${i + base + 1} ${i + base + 2}\n`);
    return lines.join('');
  };
}

/** A text mesh: a header, `vertices` vertex lines, then vertices - 2 face lines. */
function writeTextMesh(path: string, header: string, vertices: number, vertex: (n: number) => string, face: (first: number, n: number) => string): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header);
    for (let done = 0; done < vertices; done += CHUNK_POINTS) writeSync(fd, vertex(Math.min(CHUNK_POINTS, vertices - done)));
    for (let done = 0; done < vertices - 2; done += CHUNK_POINTS) writeSync(fd, face(done, Math.min(CHUNK_POINTS, vertices - 2 - done)));
  } finally {
    closeSync(fd);
  }
}

/** Ascii STL facets of random corners (about 250 bytes each). */
function stlFacets(random: () => number): (n: number) => string {
  return (n) => {
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      lines.push('facet normal 0 0 1\nouter loop\n');
      for (let k = 0; k < 3; k++) lines.push(`vertex ${random().toFixed(6)} ${random().toFixed(6)} ${random().toFixed(6)}\n`);
      lines.push('endloop\nendfacet\n');
    }
    return lines.join('');
  };
}

/** Binary STL records: a zero normal, three random corners, no attribute bytes. */
function stlRecords(random: () => number): (n: number) => Uint8Array {
  return (n) => {
    const bytes = new Uint8Array(50 * n);
    const view = new DataView(bytes.buffer);
    for (let t = 0; t < n; t++) {
      for (let k = 0; k < 9; k++) view.setFloat32(50 * t + 12 + 4 * k, random(), true);
    }
    return bytes;
  };
}

function binaryStlHeader(triangles: number): Uint8Array {
  const header = new Uint8Array(84);
  new DataView(header.buffer).setUint32(80, triangles, true);
  return header;
}

function plyHeader(encoding: string, points: number, normals = false): string {
  const properties = ['x', 'y', 'z', ...(normals ? ['nx', 'ny', 'nz'] : [])].map((p) => `property float ${p}\n`).join('');
  return `ply\nformat ${encoding} 1.0\nelement vertex ${points}\n${properties}end_header\n`;
}

interface Case {
  label: string;
  file: string;
  write: (path: string) => void;
  /** False for readers that always read in pieces (LAS, LAZ): the forced-pieces column would repeat the first. */
  pieces?: boolean;
  /** Set in the environment while this case is read. */
  env?: Record<string, string>;
  /** Times something else on the file instead of readGeometry (the LAZ peer). */
  read?: (path: string) => number;
}

/** A LAS 1.4 point format 6 file of `points` survey-sized points (scale 0.001, offsets 500000 / 4200000). */
function writeLas6(path: string, points: number): void {
  const random = makeRandom();
  const header = lasBytes([], { format: 6, minor: 4, pointCount: points, scale: [0.001, 0.001, 0.001], offset: [500000, 4200000, 0] });
  const view = new DataView(header.buffer, header.byteOffset);
  [179, 195, 211].forEach((at) => view.setFloat64(at, [500100, 4200100, 100][(at - 179) / 16], true));
  [187, 203, 219].forEach((at) => view.setFloat64(at, [499900, 4199900, -100][(at - 187) / 16], true));
  writeFile(path, header, points, (n) => {
    const bytes = new Uint8Array(30 * n);
    const records = new DataView(bytes.buffer);
    const noise = () => 0x55;
    for (let i = 0; i < n; i++) {
      writeRecord(records, 30 * i, 6, 30, { X: Math.round(random() * 1e3), Y: Math.round(random() * 1e3), Z: Math.round(random() * 1e3), classification: 2 }, noise);
    }
    return bytes;
  });
}

/**
 * An E57 file of one scan of `points` survey-sized points: float64 x, y, z (24 bytes a point), or
 * ScaledInteger x, y, z of 0.1 mm over 2 km (25 bits each) beside a 12-bit intensity, as scanners write them.
 */
function writeE57(path: string, points: number, kind: 'float64' | 'scaled'): void {
  const random = makeRandom();
  const fields: E57FieldSpec[] = ['cartesianX', 'cartesianY', 'cartesianZ'].map((name, axis) => {
    const values = new Float64Array(points);
    const base = [500000, 4200000, 0][axis];
    if (kind === 'float64') {
      for (let i = 0; i < points; i++) values[i] = base + random();
      return { name, kind, values };
    }
    for (let i = 0; i < points; i++) values[i] = Math.round((random() + 100) * 1e4); // 0 to 2,000,000 tenths of a millimetre
    return { name, kind: 'scaled', minimum: 0n, maximum: 20_000_000n, scale: 1e-4, offset: base - 100, values };
  });
  if (kind === 'scaled') fields.push({ name: 'intensity', kind: 'integer', minimum: 0n, maximum: 4095n, values: new Float64Array(points).map((_, i) => i % 4096) });
  writeFileSync(path, e57File([{ name: 'bench', fields, packetRecords: kind === 'float64' ? 2700 : 4800 }]).bytes);
}

/** A LAZ file of `points` generated scan-line points of point format `format`, by xhd's writer. */
function writeLazPoints(path: string, points: number, format: 1 | 3): void {
  const scale = [0.001, 0.001, 0.001] as [number, number, number], offset = [500000, 4200000, 0] as [number, number, number];
  const g = generateLidarPoints(points, 1, scale, offset, 0.0001);
  writeLaz(path, {
    xyz: g.xyz, intensity: g.intensity, returnNumber: g.returnNumber, returnCount: g.returnCount, classification: g.classification,
    gpsTime: g.gpsTime, rgb: format === 3 ? g.rgb : undefined,
  }, { scale, offset, pointFormat: format });
}

/**
 * A layered LAZ file (point format 6 or 7) of `points` made-up scan records (test/laz-layered-writer.ts: pulses
 * of returns, scanner channels, classes, colours), in LASzip's 50,000-point chunks, by the CPU library's
 * layered encoder.
 */
function writeLayeredPoints(path: string, points: number, format: 6 | 7): void {
  const records = scanRecords(points, format, { seed: 5 });
  writeFileSync(path, layeredLaz(records, { format, chunks: chunkSizes(points, 50_000), fixed: true }).bytes);
}

/** laz-perf alone: its LASZip reader over the whole file in WebAssembly memory, one thread; returns the points. */
function lazPerfAlone(path: string): number {
  const require = createRequire(import.meta.url);
  const { createLazPerf } = require('laz-perf');
  const wasm = new WebAssembly.Module(readFileSync(require.resolve('laz-perf/lib/node/laz-perf.wasm')));
  const module: Record<string, any> = {
    instantiateWasm(imports: WebAssembly.Imports, done: (i: WebAssembly.Instance, m: WebAssembly.Module) => void) {
      const instance = new WebAssembly.Instance(wasm, imports);
      done(instance, wasm);
      return instance.exports;
    },
  };
  createLazPerf(module);
  const file = readFileSync(path);
  const data = module._malloc(file.length);
  module.HEAPU8.set(file, data);
  const reader = new module.LASZip();
  reader.open(data, file.length);
  const count = reader.getCount(), length = reader.getPointLength();
  const point = module._malloc(length);
  for (let i = 0; i < count; i++) reader.getPoint(point);
  reader.delete();
  return count;
}

function main(): void {
  const args = process.argv.slice(2);
  const sizeMb = numberOption(args, '--size-mb', 150);
  const runs = numberOption(args, '--runs', 3);
  const only = onlyLabels(args);
  const binaryPoints = Math.round((sizeMb * 1e6) / 12);
  const textPoints = Math.round((sizeMb * 1e6) / 33); // "-12.345678 -98.765432 1.234567\n" is about 33 bytes
  const meshVertices = Math.round((sizeMb * 1e6) / 61); // a vertex line and a face line ("3 i j k\n")
  const facets = Math.round((sizeMb * 1e6) / 245);
  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-readers-'));
  const all: Case[] = [
    { label: 'PLY binary LE float32', file: 'points-binary.ply',
      write: (p) => writeFile(p, plyHeader('binary_little_endian', binaryPoints), binaryPoints, binaryChunk(makeRandom())) },
    { label: 'PLY binary LE float32 + normals', file: 'points-normals.ply',
      write: (p) => writeFile(p, plyHeader('binary_little_endian', Math.round(binaryPoints / 2), true), Math.round(binaryPoints / 2), binaryChunk(makeRandom(), 6)) },
    { label: 'PLY ascii', file: 'points-ascii.ply',
      write: (p) => writeFile(p, plyHeader('ascii', textPoints), textPoints, textChunk(makeRandom())) },
    { label: 'XYZ', file: 'points.xyz', write: (p) => writeFile(p, '', textPoints, textChunk(makeRandom())) },
    { label: 'CSV', file: 'points.csv', write: (p) => writeFile(p, 'x,y,z\n', textPoints, textChunk(makeRandom(), ',')) },
    { label: 'OFF mesh', file: 'mesh.off',
      write: (p) => writeTextMesh(p, `OFF\n${meshVertices} ${meshVertices - 2} 0\n`, meshVertices, vertexLines(makeRandom(), ''), faceLines('3 ', 0)) },
    { label: 'OBJ mesh', file: 'mesh.obj',
      write: (p) => writeTextMesh(p, '# bench\n', meshVertices, vertexLines(makeRandom(), 'v '), faceLines('f ', 1)) },
    { label: 'STL ascii', file: 'mesh-ascii.stl', write: (p) => writeFile(p, 'solid bench\n', facets, stlFacets(makeRandom()), 'endsolid bench\n') },
    { label: 'STL binary', file: 'mesh-binary.stl',
      write: (p) => writeFile(p, binaryStlHeader(Math.round(binaryPoints / 4)), Math.round(binaryPoints / 4), stlRecords(makeRandom())) },
  ];
  const pcdPoints = Math.round((sizeMb * 1e6) / 16);
  all.push({ label: 'PCD binary float32 x y z + rgb', file: 'points.pcd',
    write: (p) => writeFile(p, `VERSION 0.7\nFIELDS x y z rgb\nSIZE 4 4 4 4\nTYPE F F F U\nCOUNT 1 1 1 1\nWIDTH ${pcdPoints}\nHEIGHT 1\nPOINTS ${pcdPoints}\nDATA binary\n`, pcdPoints, binaryChunk(makeRandom(), 4)) });
  // LAS and E57 go through the native readers on every core where the library is built; the rows after each
  // time it on one thread and the TypeScript reader alone (what read them before).
  const e57Double: Case = { label: 'E57 float64 x y z', file: 'points-double.e57', pieces: false, write: (p) => writeE57(p, Math.round((sizeMb * 1e6) / 24.3), 'float64') };
  const e57Scaled: Case = { label: 'E57 ScaledInteger x y z + intensity', file: 'points-scaled.e57', pieces: false, write: (p) => writeE57(p, Math.round((sizeMb * 1e6) / 11), 'scaled') };
  const las6: Case = { label: 'LAS 1.4 point format 6', file: 'points.las', pieces: false, write: (p) => writeLas6(p, Math.round((sizeMb * 1e6) / 30)) };
  for (const [c, threads] of [[e57Double, 'XHD_E57_THREADS'], [e57Scaled, 'XHD_E57_THREADS'], [las6, 'XHD_LAS_THREADS']] as const) {
    all.push(c);
    if (!nativeReader()) continue;
    all.push({ ...c, label: `${c.label}, 1 thread`, file: `1-${c.file}`, env: { [threads]: '1' } });
    all.push({ ...c, label: `${c.label}, TypeScript reader`, file: `ts-${c.file}`, env: { XHD_NATIVE_READ: '0' } });
  }
  const lazPoints = Math.round((sizeMb * 1e6) / 30); // 5M points at the default 150 MB, as the LAS case
  const lazCase = (label: string, file: string, format: 1 | 3, env?: Record<string, string>, read?: (p: string) => number): Case =>
    ({ label, file, pieces: false, write: (p) => writeLazPoints(p, lazPoints, format), env, read });
  const layeredCase = (label: string, file: string, format: 6 | 7, env?: Record<string, string>, read?: (p: string) => number): Case =>
    ({ label, file, pieces: false, write: (p) => writeLayeredPoints(p, lazPoints, format), env, read });
  if (nativeReader()) {
    all.push(
      lazCase('LAZ point format 3, native decoder, all cores', 'points3.laz', 3),
      lazCase('LAZ point format 3, native decoder, 1 thread', 'points3-1.laz', 3, { XHD_LAZ_THREADS: '1' }),
      lazCase('LAZ point format 3, TypeScript decoder, all cores', 'points3-ts.laz', 3, { XHD_LAZ_DECODER: 'typescript' }),
      lazCase('LAZ point format 3, laz-perf decoding, all cores', 'points3-wasm.laz', 3, { XHD_LAZ_DECODER: 'laz-perf' }),
      lazCase('LAZ point format 3, peer: laz-perf LASZip alone, 1 thread', 'points3-peer.laz', 3, undefined, lazPerfAlone),
      lazCase('LAZ point format 1, native decoder, all cores', 'points1.laz', 1),
      lazCase('LAZ point format 1, native decoder, 1 thread', 'points1-1.laz', 1, { XHD_LAZ_THREADS: '1' }),
      lazCase('LAZ point format 1, peer: laz-perf LASZip alone, 1 thread', 'points1-peer.laz', 1, undefined, lazPerfAlone),
      layeredCase('LAZ point format 6, native decoder, all cores', 'points6.laz', 6),
      layeredCase('LAZ point format 6, native decoder, 1 thread', 'points6-1.laz', 6, { XHD_LAZ_THREADS: '1' }),
      layeredCase('LAZ point format 6, laz-perf decoding, all cores', 'points6-wasm.laz', 6, { XHD_LAZ_DECODER: 'laz-perf' }),
      layeredCase('LAZ point format 6, peer: laz-perf LASZip alone, 1 thread', 'points6-peer.laz', 6, undefined, lazPerfAlone),
      layeredCase('LAZ point format 7, native decoder, all cores', 'points7.laz', 7),
      layeredCase('LAZ point format 7, peer: laz-perf LASZip alone, 1 thread', 'points7-peer.laz', 7, undefined, lazPerfAlone),
    );
  } else {
    console.log('LAZ cases skipped: the LAZ writer needs the native CPU library');
  }
  const cases = all.filter((c) => only === undefined || only.some((label) => c.label.toLowerCase().startsWith(label)));
  console.log(`${cpus()[0]?.model ?? 'CPU'}, ${availableParallelism()} hardware threads; Node ${process.version}; ` +
    `readers: ${nativeReader() ? 'native (build/libxhd_cpu.so) where they apply' : 'TypeScript only'}`);
  try {
    const rows: string[][] = [['format', 'file MB', 'points', 'best s', 'MB/s', 'Mpoints/s', 'CPU s', 'Mpoints/CPU s', 'in pieces s', 'MB/s']];
    for (const c of cases) {
      const path = join(dir, c.file);
      c.write(path);
      const bytes = statSync(path).size;
      const { best, cpu, count } = withEnv(c.env ?? {}, () => bestRead(path, runs, c.read));
      // Files over 1 GiB go in pieces anyway; smaller ones are timed that way too, forced.
      const pieces = bytes > 1024 ** 3 || c.pieces === false ? undefined : withPieces(() => bestRead(path, runs).best);
      rows.push([c.label, (bytes / 1e6).toFixed(1), String(count), best.toFixed(3),
        (bytes / 1e6 / best).toFixed(0), (count / 1e6 / best).toFixed(2), cpu.toFixed(3), (count / 1e6 / cpu).toFixed(2),
        pieces === undefined ? '(same)' : pieces.toFixed(3), pieces === undefined ? '' : (bytes / 1e6 / pieces).toFixed(0)]);
      rmSync(path);
    }
    printTable(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The best of `runs` reads of the file, the CPU time of that read (every thread of the process: on a VM
 * whose cores others share, Mpoints per CPU second says how much work a reader does, wall time how long
 * it took), and the vertices it holds.
 */
function bestRead(path: string, runs: number, read = (p: string) => readGeometry(p).count): { best: number; cpu: number; count: number } {
  let best = Infinity, cpu = 0, count = 0;
  for (let run = 0; run < runs; run++) {
    const start = performance.now(), used = process.cpuUsage();
    count = read(path);
    const wall = (performance.now() - start) / 1000;
    if (wall < best) {
      best = wall;
      const spent = process.cpuUsage(used);
      cpu = (spent.user + spent.system) / 1e6;
    }
  }
  return { best, cpu, count };
}

function withEnv<T>(vars: Record<string, string>, run: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return run();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function withPieces<T>(run: () => T): T {
  process.env.XHD_READ_PIECE_BYTES = String(64 * 1024 ** 2);
  try {
    return run();
  } finally {
    delete process.env.XHD_READ_PIECE_BYTES;
  }
}

function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  for (const [i, row] of rows.entries()) {
    console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  '));
    if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}

main();
