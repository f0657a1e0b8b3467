// Reader throughput: writes synthetic point files to a temp dir, times readGeometry (best of 3, the file in
// the page cache), prints MB/s and Mpoints/s, and deletes the files. Usage: scripts/bench-readers [--size-mb N]
// XHD_NATIVE_READ=0 times the TypeScript readers alone (what xhd read with before the native readers).
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeReader } from '../src/io/native-reader.js';
import { readGeometry } from '../src/io/read.js';

const CHUNK_POINTS = 1 << 16;

function parseSizeMb(args: string[]): number {
  const at = args.indexOf('--size-mb');
  if (at < 0) return 150;
  const size = Number(args[at + 1]);
  if (!(size > 0)) throw new Error('--size-mb needs a positive number');
  return size;
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
function writeFile(path: string, header: string, points: number, chunk: (n: number) => Uint8Array | string): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header);
    for (let done = 0; done < points; done += CHUNK_POINTS) {
      const data = chunk(Math.min(CHUNK_POINTS, points - done));
      if (typeof data === 'string') writeSync(fd, data);
      else writeSync(fd, data);
    }
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

function plyHeader(encoding: string, points: number, normals = false): string {
  const properties = ['x', 'y', 'z', ...(normals ? ['nx', 'ny', 'nz'] : [])].map((p) => `property float ${p}\n`).join('');
  return `ply\nformat ${encoding} 1.0\nelement vertex ${points}\n${properties}end_header\n`;
}

interface Case {
  label: string;
  file: string;
  write: (path: string) => void;
}

function main(): void {
  const sizeMb = parseSizeMb(process.argv.slice(2));
  const binaryPoints = Math.round((sizeMb * 1e6) / 12);
  const textPoints = Math.round((sizeMb * 1e6) / 33); // "-12.345678 -98.765432 1.234567\n" is about 33 bytes
  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-readers-'));
  const cases: Case[] = [
    { label: 'PLY binary LE float32', file: 'points-binary.ply',
      write: (p) => writeFile(p, plyHeader('binary_little_endian', binaryPoints), binaryPoints, binaryChunk(makeRandom())) },
    { label: 'PLY binary LE float32 + normals', file: 'points-normals.ply',
      write: (p) => writeFile(p, plyHeader('binary_little_endian', Math.round(binaryPoints / 2), true), Math.round(binaryPoints / 2), binaryChunk(makeRandom(), 6)) },
    { label: 'PLY ascii', file: 'points-ascii.ply',
      write: (p) => writeFile(p, plyHeader('ascii', textPoints), textPoints, textChunk(makeRandom())) },
    { label: 'XYZ', file: 'points.xyz', write: (p) => writeFile(p, '', textPoints, textChunk(makeRandom())) },
    { label: 'CSV', file: 'points.csv', write: (p) => writeFile(p, 'x,y,z\n', textPoints, textChunk(makeRandom(), ',')) },
  ];
  console.log(`${cpus()[0]?.model ?? 'CPU'}, ${availableParallelism()} hardware threads; Node ${process.version}; ` +
    `readers: ${nativeReader() ? 'native (build/libxhd_cpu.so) where they apply' : 'TypeScript only'}`);
  try {
    const rows: string[][] = [['format', 'file MB', 'points', 'best s', 'MB/s', 'Mpoints/s']];
    for (const c of cases) {
      const path = join(dir, c.file);
      c.write(path);
      const bytes = statSync(path).size;
      let best = Infinity, count = 0;
      for (let run = 0; run < 3; run++) {
        const start = performance.now();
        count = readGeometry(path).count;
        best = Math.min(best, (performance.now() - start) / 1000);
      }
      rows.push([c.label, (bytes / 1e6).toFixed(1), String(count), best.toFixed(3),
        (bytes / 1e6 / best).toFixed(0), (count / 1e6 / best).toFixed(2)]);
      rmSync(path);
    }
    printTable(rows);
  } finally {
    rmSync(dir, { recursive: true, force: true });
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
