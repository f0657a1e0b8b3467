// `xhd compare A B --memory-limit SIZE` on the CPU backend when A and B would need more memory than SIZE: the
// points are not read in but streamed from the files in slabs and tiles by one native call
// (xhd_points_compare_files), which gives the in-memory compare's distances and witnesses. Binary PLY point
// clouds, uncompressed LAS files and LAZ files (decoded a run of chunks at a time; not COPC); everything that
// needs every point's distance (statistics, exports, reports) needs them in memory, and so do point filters.
import { UsageError } from '../core/errors.js';
import { formatBytes } from '../core/counts.js';
import type { Progress } from '../core/progress.js';
import type { Geometry } from '../io/geometry.js';
import { lasBoundsNotes, lasPointFile, type LasPointFile } from '../io/las-point-file.js';
import { largestChunk, lazPointFile, lazPointFileFields, lazReadProblem, lazRecordPoint, type LazPointFile } from '../io/laz-point-file.js';
import { hasFilters } from '../io/point-filters.js';
import { plyPointFile, type PlyPointFile } from '../io/ply-point-file.js';
import { readBounds } from '../io/ply-vertices-native.js';
import { STDIN_NAME } from '../io/stdin-name.js';
import { DIRECTION_AB, DIRECTION_BA, HAUSDORFF_RESULT, METHOD_CODES, STREAMED, type RawReadResult, type RawStreamed } from '../native/abi.js';
import { callNative } from '../native/call.js';
import { loadBackend } from '../native/library.js';
import { StructOut } from '../native/struct-out.js';
import { resolveRun } from '../ops/run-settings.js';
import { inputNotes, resultBase, timings, wantsPerPointDistances, type CompareOptions, type CompareResult, type Witness } from './compare-result.js';

/** A point set streamable from its file: fixed-size records at known places, or LAZ chunks. */
type PointFile = PlyPointFile | LasPointFile | LazPointFile;

function pointFile(path: string, threads: number): PointFile | null {
  return plyPointFile(path, threads) ?? lasPointFile(path, threads) ?? lazPointFile(path, threads);
}

/** A zeroed xhd_laz_job: the LAZ fields of a file of records, which the library does not read. */
const NO_LAZ = {
  laz: 0, laz_check_bounds: 0, laz_bounds: [0, 0, 0, 0, 0, 0],
  laz_job: { chunks: null, chunk_count: 0, point_count: 0, items: null, item_count: 0, record_length: 0, scale: [0, 0, 0], offset: [0, 0, 0],
    classes: null, box: null, returns: 0, threads: 0, piece_bytes: 0 },
};

/** The file as xhd_point_file. */
function nativePointFile(file: PointFile) {
  return { path: file.path, layout: file.layout, ...(file.format === 'laz' ? lazPointFileFields(file) : NO_LAZ) };
}

/** Bytes a point of a LAZ chunk costs while a streamed pass holds it: decoded, in its piece, selected. */
const LAZ_CHUNK_BYTES_A_POINT = 80;

/** Bytes a point costs in memory when compared whole: its coordinates, the frame's float copy, the grid. */
const IN_MEMORY_BYTES_A_POINT = 52;

/** Why these options need every point in memory, or null when a streamed compare gives all they ask. */
function needsPointsInMemory(options: CompareOptions): string | null {
  if (hasFilters(options.filters)) return 'point filters (--classes, --returns, --bbox, --every) select the points in memory';
  if (wantsPerPointDistances(options)) return 'statistics (--stats, --percentile, --nsd, --fscore) need every point\'s distance';
  if (options.export !== undefined) return '--export writes every point\'s distance';
  if (options.keepDistances) return 'a report (--report) draws every point\'s distance';
  if (options.shard) return '--shard splits the points in memory';
  if (options.devices !== undefined) return '--devices splits the points in memory';
  if ((options.method ?? 'grid') !== 'grid') return `--method ${options.method} runs in memory (the streamed compare runs the grid method)`;
  return null;
}

/**
 * The compare streamed from the files when --memory-limit asks for less memory than A and B need whole on the
 * CPU backend and both are binary PLY point clouds; null where they are compared in memory as usual. A pair
 * that needs streaming with options that need the points in memory is a UsageError saying why.
 */
export async function compareStreamedIfNeeded(pathA: string, pathB: string, options: CompareOptions, bar: Progress,
                                              started: number): Promise<CompareResult | null> {
  const limit = options.memoryLimit;
  if (limit === undefined || pathA === STDIN_NAME || pathB === STDIN_NAME) return null;
  const run = resolveRun({ backend: options.backend, device: options.device, threads: options.threads }, options.method ?? 'grid');
  if (run.backend.name !== 'cpu') return null; // the limit is the GPU's there
  const a = pointFile(pathA, run.threads), b = pointFile(pathB, run.threads);
  if (!a || !b || a.count === 0 || b.count === 0) return null;
  if ((a.faces || b.faces) && !options.verticesOnly) return null; // meshes: compared surface to surface
  const whole = (a.count * (a.floats ? 12 : 24) + b.count * (b.floats ? 12 : 24)) + (a.count + b.count) * IN_MEMORY_BYTES_A_POINT;
  if (whole <= limit) return null;
  const why = needsPointsInMemory(options);
  if (why) {
    throw new UsageError(`${pathA} and ${pathB} need about ${formatBytes(whole)} in memory, more than --memory-limit ${formatBytes(limit)}: ` +
      `streamed from the files, a compare gives the Hausdorff distance and its witnesses, but ${why}; raise the limit or leave the option out`);
  }
  for (const f of [a, b]) {
    // A chunk decodes whole: its points, the piece they come in and the pass's selection of them, about
    // LAZ_CHUNK_BYTES_A_POINT each, must fit well within the limit beside the slab and the tile.
    const chunk = f.format === 'laz' ? largestChunk(f) : 0;
    if (chunk * LAZ_CHUNK_BYTES_A_POINT > limit / 4) {
      throw new UsageError(`${f.path} holds LAZ chunks of up to ${chunk} points, which are decoded whole: about ${formatBytes(chunk * LAZ_CHUNK_BYTES_A_POINT)} ` +
        `each, more than a quarter of --memory-limit ${formatBytes(limit)}; raise the limit`);
    }
  }
  if (a.dims !== b.dims) throw new UsageError(`${pathA} is ${a.dims}D but ${pathB} is ${b.dims}D; compare point sets of the same dimension`);
  return compareStreamed(a, b, limit, run.threads, options, bar, started);
}

async function compareStreamed(a: PointFile, b: PointFile, limit: number, threads: number, options: CompareOptions,
                               bar: Progress, started: number): Promise<CompareResult> {
  const cpu = loadBackend('cpu');
  if (!cpu.pointsCompareFiles) throw new UsageError('the cpu library does not stream compares from files; rebuild it with `npm run build`');
  const streamed = { memory_limit: limit } as RawStreamed;
  const result = new StructOut(HAUSDORFF_RESULT);
  const nativeOptions = { method: METHOD_CODES.grid, directions: options.directed ? DIRECTION_AB : DIRECTION_AB | DIRECTION_BA, threads,
    device: 0, seed: 0, cell_size: 0, distinct: 0, reserved: 0 };
  bar.phase('hausdorff, streamed from the files', 0, 1);
  try {
    await callNative(cpu, cpu.pointsCompareFiles, [nativePointFile(a), nativePointFile(b), nativeOptions, streamed, result.bytes],
      { onProgress: (done, total) => bar.update(done, total), signal: options.signal, refusal: 'the files cannot be compared' });
  } finally {
    bar.finish();
  }
  if (streamed.bad_file >= 0) {
    const file = streamed.bad_file === 0 ? a : b;
    if (file.format === 'laz') throw lazReadProblem(file, streamed.read);
    readBounds(file.path, file.format === 'las' ? 'point' : 'vertex', file.count, streamed.read); // throws the InputError that names the record
  }
  const raw = result.read();
  const geometry = (f: PointFile, min: number[], max: number[]): Geometry => ({
    positions: new Float32Array(0), count: f.count, dims: f.dims, bounds: { min: [min[0], min[1], min[2]], max: [max[0], max[1], max[2]] }, format: f.format,
    notes: f.format === 'ply' ? [] : [...f.notes, ...lasBoundsNotes(f, min, max)], ...(f.format !== 'ply' && f.crs ? { crs: f.crs } : {}),
  });
  const ga = geometry(a, streamed.min_a, streamed.max_a), gb = geometry(b, streamed.min_b, streamed.max_b);
  const witness = (from: PointFile, to: PointFile, fromIndex: number, toIndex: number): Witness =>
    ({ fromIndex, fromPoint: recordPoint(from, fromIndex), toIndex, toPoint: recordPoint(to, toIndex) });
  const directed = options.directed === true;
  return {
    ...resultBase('points', a.path, ga, b.path, gb, options),
    hd: directed ? raw.ab.distance : Math.max(raw.ab.distance, raw.ba.distance),
    hdAb: raw.ab.distance,
    hdBa: directed ? null : raw.ba.distance,
    witnessAb: witness(a, b, Number(raw.ab.from_index), Number(raw.ab.to_index)),
    witnessBa: directed ? null : witness(b, a, Number(raw.ba.from_index), Number(raw.ba.to_index)),
    method: 'grid',
    backend: 'cpu',
    threads,
    device: null,
    peakDeviceBytes: 0,
    queryChunks: 1,
    placement: null,
    // Reading is part of the streamed search: all of it is counted as the query.
    timingsMs: timings(started, 0, { build: raw.ab.build_ms + (directed ? 0 : raw.ba.build_ms), query: raw.ab.query_ms + (directed ? 0 : raw.ba.query_ms) }),
    streamed: { memoryLimit: limit, slabs: streamed.slabs, passes: streamed.passes, slowDirections: streamed.slow_directions,
      slowSlabs: Number(streamed.slow_slabs), secondPassQueries: Number(streamed.second_pass_queries), skippedRecords: Number(streamed.skipped_records) },
    notes: [...inputNotes(ga, gb), `streamed from the files within --memory-limit ${formatBytes(limit)}: ${streamed.slabs} slab${streamed.slabs === 1 ? '' : 's'}, ` +
      `${streamed.passes} passes over the files` +
      (streamed.slow_directions > 0 ? `; ${slowSlabs(Number(streamed.slow_slabs), streamed.slow_directions)} searched again query by query` +
        ` (their halo did not prove the slab's answer)${Number(streamed.second_pass_queries) > 0 ? `, ${Number(streamed.second_pass_queries)} queries beyond their first halo` : ''}` : '')],
  };
}

/** "1 slab of 1 direction", "3 slabs of 2 directions": what the note says went query by query. */
function slowSlabs(slabs: number, directions: number): string {
  return `${slabs} slab${slabs === 1 ? '' : 's'} of ${directions} direction${directions === 1 ? '' : 's'}`;
}

/** One record's point, read from its file by the CPU library's reader (z = 0 in 2D). */
function recordPoint(file: PointFile, index: number): number[] {
  if (file.format === 'laz') return lazRecordPoint(file, index);
  const reader = loadBackend('cpu');
  if (!reader.readers) throw new UsageError('the cpu library does not read files; rebuild it with `npm run build`');
  const xyz = file.floats ? new Float32Array(3) : new Float64Array(3);
  const found = {} as RawReadResult;
  const status = reader.readers.readPlyVertices(file.path, { ...file.layout, body_offset: file.layout.body_offset + index * file.layout.stride, count: 1, threads: 1 }, xyz, found) as number;
  if (status !== 0) throw new UsageError(`reading ${file.path}: ${reader.lastError()}`);
  readBounds(file.path, file.format === 'las' ? 'point' : 'vertex', file.count, found);
  const p = [xyz[0], xyz[1], xyz[2]];
  return file.dims === 2 ? p.slice(0, 2) : p;
}
