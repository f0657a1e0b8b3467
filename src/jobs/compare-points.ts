// `xhd compare` on two point sets (or meshes' vertices with --vertices-only): the Hausdorff distance and, when
// asked for, every point's nearest, in one native search on the backend chosen.
import { type DirectedHausdorff } from '../ops/hausdorff.js';
import { type Geometry } from '../io/geometry.js';
import { type Progress } from '../core/progress.js';
import { countOf } from '../core/counts.js';
import { hasFaces } from '../ops/surface-compare.js';
import { pointsSearch } from '../ops/points-search.js';
import type { PerPointDistances } from './per-point.js';
import { exportSource } from './per-point.js';
import { maskSpaceWarning, resultBase, timings, wantsPerPointDistances, wantsStats, type CompareOptions, type CompareResult, type Witness } from './compare-result.js';
import { UsageError } from '../core/errors.js';
import { surfelDistances, wantsSurfelDistances } from './surface-metrics.js';
import { searchStatistics, statisticsOfSearch } from './pair-statistics.js';

function pointAt(g: Geometry, index: number): number[] {
  const p = [g.positions[3 * index], g.positions[3 * index + 1], g.positions[3 * index + 2]];
  return g.dims === 2 ? p.slice(0, 2) : p;
}

function witnessOf(d: DirectedHausdorff, from: Geometry, to: Geometry): Witness {
  return { fromIndex: d.fromIndex, fromPoint: pointAt(from, d.fromIndex), toIndex: d.toIndex, toPoint: pointAt(to, d.toIndex) };
}


export async function comparePoints(pathA: string, pathB: string, a: Geometry, b: Geometry, options: CompareOptions,
                                    bar: Progress, started: number, readMs: number): Promise<CompareResult> {
  // One search: the Hausdorff distance and (when asked for) every point's nearest, on the backend chosen.
  const measuresEveryPoint = wantsPerPointDistances(options) || options.export !== undefined || options.keepDistances === true;
  const surfelsA = a.grid?.surfels, surfelsB = b.grid?.surfels;
  if (wantsSurfelDistances(options) && (!surfelsA || !surfelsB)) {
    throw new UsageError('the surfel variants weigh the surface elements of voxel masks; give two NIfTI masks, or the voxel / max-of-directed / mean-of-means variants');
  }
  const surfelsStarted = performance.now();
  const surfels = wantsSurfelDistances(options) ? await surfelDistances(surfelsA!, surfelsB!, options) : null;
  const surfelsMs = surfels ? performance.now() - surfelsStarted : 0;
  // The statistics come with the search, summed up where the distances were measured (on the GPU: no copy back,
  // unless the distances are exported or kept).
  const keepsDistances = options.export !== undefined || options.keepDistances === true;
  bar.phase(measuresEveryPoint ? 'hausdorff, every point' : 'hausdorff', 0, 1);
  const result = await pointsSearch(a.positions, b.positions, {
    method: options.method,
    directed: options.directed,
    backend: options.backend,
    device: options.device,
    devices: options.devices,
    memoryLimit: options.memoryLimit,
    threads: options.threads,
    seed: options.seed,
    signal: options.signal,
    // Two masks' voxel centres: no two of a mask's are equal, so the search need not look for copies.
    distinct: a.grid !== undefined && b.grid !== undefined,
    distances: keepsDistances,
    nearest: options.export !== undefined,
    stats: searchStatistics(options, options.directed === true, surfels),
    onProgress: (done, total) => bar.update(done, total),
  }).finally(() => bar.finish()); // an error message must not land on the bar's line

  const nearest = result.perPoint;
  const { stats, tolerance } = wantsPerPointDistances(options)
    ? statisticsOfSearch(result.stats, options, { a: a.count, b: b.count }, surfels)
    : { stats: null, tolerance: null };
  // The statistics' own share of the call where it was measured (the search's query time holds the rest).
  const statsMs = stats || tolerance ? surfelsMs + (result.stats ? result.stats.uploadMs + result.stats.computeMs : 0) : 0;
  const perPoint: PerPointDistances | null = nearest && (options.export || options.keepDistances) ? {
    dims: a.dims,
    nearestIs: 'point',
    ab: { points: a.positions, distances: nearest.ab.distances!, nearest: nearest.ab.nearest },
    ba: nearest.ba ? { points: b.positions, distances: nearest.ba.distances!, nearest: nearest.ba.nearest } : null,
    sources: { a: exportSource(a), b: exportSource(b) },
    ...(a.grid && b.grid ? { grids: { a: { dims: a.grid.dims, affine: a.grid.affine }, b: { dims: b.grid.dims, affine: b.grid.affine } } } : {}),
    targetPoints: b.positions,
  } : null;

  const notes: string[] = maskSpaceWarning(a, b);
  for (const [name, g] of [['A', a], ['B', b]] as const) {
    if (hasFaces(g)) {
      notes.push(
        `${name} is a mesh (${countOf(g.triangles!.length / 3, 'triangle')}): its ${countOf(g.count, 'vertex', 'vertices')} are compared as points (--vertices-only)`,
      );
    }
    for (const n of g.notes) notes.push(`${name}: ${n}`);
  }

  // Object.assign onto the base, not `{ ...base, stats, … }`: V8 (Node 20) adds each field that follows a spread at
  // about 2 µs, 30 µs for these, on the main thread that `xhd batch` lanes share.
  return Object.assign(resultBase('points', pathA, a, pathB, b, options), {
    stats,
    tolerance,
    perPoint,
    hd: result.hd,
    hdAb: result.ab.distance,
    hdBa: result.ba ? result.ba.distance : null,
    witnessAb: witnessOf(result.ab, a, b),
    witnessBa: result.ba ? witnessOf(result.ba, b, a) : null,
    method: result.method,
    backend: result.backend,
    threads: result.threads,
    device: result.device,
    peakDeviceBytes: result.peakDeviceBytes,
    queryChunks: result.queryChunks,
    placement: options.devices !== undefined || options.memoryLimit !== undefined ? result.placement : null,
    coordinateOrigin: result.coordinateOrigin,
    timingsMs: timings(started, readMs, {
      upload: result.uploadMs,
      build: result.ab.buildMs + (result.ba?.buildMs ?? 0),
      query: result.ab.queryMs + (result.ba?.queryMs ?? 0),
      download: result.downloadMs,
      stats: statsMs,
    }),
    notes,
  });
}

