// compare --export FILE: every query point with its distance to the other input and, for point sets, the
// index of its nearest point there. The format follows the extension:
//   .csv  direction,index,x,y[,z],distance,nearest  (a header line, then A → B's rows, then B → A's)
//   .ply  binary little-endian point cloud: x,y,z; float quality (the distance, for viewers);
//         double distance; int nearest; uchar direction (0 A → B, 1 B → A)
//   .las  LAS 1.4 point format 6 with distance, nearest_index and direction as extra bytes (export-las.ts)
//   .pcd  binary PCD with fields x y z distance nearest_index direction (export-pcd.ts)
//   .bin  a 32-byte header (magic "XHDDIST1", uint32 version, uint32 dims, uint64 count A → B,
//         uint64 count B → A), then per direction: x,y,z per point, float64 distances, int64 nearest
// Points keep the precision the inputs gave: float32 x,y,z (bin version 1) for float32 inputs, float64
// (bin version 2) for text and double inputs, whose survey coordinates float32 would round by decimetres.
// All little-endian. nearest is -1 where no index is measured (surface mode compares against triangles).
import { UsageError } from '../core/errors.js';
import { XHD_VERSION } from '../core/version.js';
import { lasExport } from './export-las.js';
import { writeLazExport } from './export-laz.js';
import { pcdChunks } from './export-pcd.js';
import { writeOutputFile } from './output-file.js';

// The data it writes is what a compare job returns (jobs/per-point.ts).
export type { DirectionPoints, PerPointDistances } from '../jobs/per-point.js';
import type { DirectionPoints, PerPointDistances } from '../jobs/per-point.js';

export const EXPORT_FORMATS = ['csv', 'ply', 'bin', 'las', 'laz', 'pcd'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The format an export path asks for, by its extension; anything else is a usage error before the work. */
export function exportFormat(path: string): ExportFormat {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  const format = EXPORT_FORMATS.find((f) => f === ext);
  if (!format) throw new UsageError(`--export ${path}: name the file .csv, .ply, .bin, .las, .laz or .pcd to choose its format`);
  return format;
}

/** Points per chunk of output: memory stays flat for any count. */
const CHUNK_POINTS = 1 << 16;

function directions(d: PerPointDistances): [number, DirectionPoints][] {
  return d.ba ? [[0, d.ab], [1, d.ba]] : [[0, d.ab]];
}

function* csvChunks(d: PerPointDistances): Generator<Uint8Array> {
  const names = ['ab', 'ba'];
  yield Buffer.from(`direction,index,x,y${d.dims === 3 ? ',z' : ''},distance,nearest\n`);
  for (const [dir, p] of directions(d)) {
    const n = p.distances.length;
    for (let start = 0; start < n; start += CHUNK_POINTS) {
      const lines: string[] = [];
      for (let i = start; i < Math.min(n, start + CHUNK_POINTS); i++) {
        const xyz = d.dims === 3 ? `${p.points[3 * i]},${p.points[3 * i + 1]},${p.points[3 * i + 2]}` : `${p.points[3 * i]},${p.points[3 * i + 1]}`;
        lines.push(`${names[dir]},${i},${xyz},${p.distances[i]},${p.nearest ? p.nearest[i] : -1}\n`);
      }
      yield Buffer.from(lines.join(''));
    }
  }
}

/** True when some direction's points are doubles: the files then store doubles. */
function hasDoubles(d: PerPointDistances): boolean {
  return directions(d).some(([, p]) => p.points instanceof Float64Array);
}

function* plyChunks(d: PerPointDistances): Generator<Uint8Array> {
  const count = d.ab.distances.length + (d.ba ? d.ba.distances.length : 0);
  // x,y,z, float quality, double distance, int nearest, uchar direction: packed, no padding.
  const doubles = hasDoubles(d);
  const coordinate = doubles ? 8 : 4;
  const record = 3 * coordinate + 17;
  const setCoordinate = (view: DataView, at: number, v: number) => (doubles ? view.setFloat64(at, v, true) : view.setFloat32(at, v, true));
  const header = [
    'ply', 'format binary_little_endian 1.0',
    `comment xhd ${XHD_VERSION} --export: each point's distance to the other input (direction 0: A to B, 1: B to A)`,
    d.nearestIs === 'point' ? 'comment nearest: index of the nearest point of the other input' : 'comment nearest: -1 (surface mode measures against triangles)',
    `element vertex ${count}`,
    ...['x', 'y', 'z'].map((axis) => `property ${doubles ? 'double' : 'float'} ${axis}`), 'property float quality',
    'property double distance', 'property int nearest', 'property uchar direction', 'end_header', '',
  ].join('\n');
  yield Buffer.from(header, 'latin1');
  const chunk = Buffer.allocUnsafe(CHUNK_POINTS * record);
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const q = 3 * coordinate;
  for (const [dir, p] of directions(d)) {
    const n = p.distances.length;
    for (let start = 0; start < n; start += CHUNK_POINTS) {
      let o = 0;
      for (let i = start; i < Math.min(n, start + CHUNK_POINTS); i++, o += record) {
        setCoordinate(view, o, p.points[3 * i]);
        setCoordinate(view, o + coordinate, p.points[3 * i + 1]);
        setCoordinate(view, o + 2 * coordinate, d.dims === 2 ? 0 : p.points[3 * i + 2]);
        view.setFloat32(o + q, p.distances[i], true);
        view.setFloat64(o + q + 4, p.distances[i], true);
        view.setInt32(o + q + 12, p.nearest ? Number(p.nearest[i]) : -1, true);
        view.setUint8(o + q + 16, dir);
      }
      yield chunk.subarray(0, o);
    }
  }
}

function* binChunks(d: PerPointDistances): Generator<Uint8Array> {
  const header = Buffer.alloc(32);
  const doubles = hasDoubles(d);
  header.write('XHDDIST1', 0, 'latin1');
  header.writeUInt32LE(doubles ? 2 : 1, 8);
  header.writeUInt32LE(d.dims, 12);
  header.writeBigUInt64LE(BigInt(d.ab.distances.length), 16);
  header.writeBigUInt64LE(BigInt(d.ba ? d.ba.distances.length : 0), 24);
  const bytes = (a: Float32Array | Float64Array | BigInt64Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  yield header;
  for (const [, p] of directions(d)) {
    yield bytes(doubles && p.points instanceof Float32Array ? Float64Array.from(p.points) : p.points);
    yield bytes(p.distances);
    yield bytes(p.nearest ?? new BigInt64Array(p.distances.length).fill(-1n));
  }
}

/**
 * Writes the export (never a partial file: see writeOutputFile); an abort ends it with CancelledError.
 * Resolves to notes on how it was written (a LAS export's scale), for the report.
 */
export async function writeDistanceExport(path: string, d: PerPointDistances, signal?: AbortSignal): Promise<string[]> {
  const format = exportFormat(path);
  if (format === 'las') {
    const las = lasExport(d, d.sources ?? {});
    await writeOutputFile(path, function* () {
      yield las.header();
      yield* las.records();
    }, signal);
    return las.notes;
  }
  if (format === 'laz') return writeLazExport(path, d);
  const chunks = format === 'csv' ? csvChunks : format === 'ply' ? plyChunks : format === 'pcd' ? pcdChunks : binChunks;
  await writeOutputFile(path, () => chunks(d), signal);
  return [];
}
