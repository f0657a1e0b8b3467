// `xhd compare` when an input is a mesh: samples of each surface against the other surface, in one native call.
import { UsageError } from '../core/errors.js';
import { DEFAULT_SEED } from '../ops/hausdorff.js';
import { type Geometry } from '../io/geometry.js';
import { type Progress } from '../core/progress.js';
import { compareSurfaces, type DirectionStats, type SurfaceOutcome } from '../ops/surface-compare.js';
import { distanceStats } from '../metrics/distance-stats.js';
import { exportSource } from './per-point.js';
import { toleranceReport, wantsSurfelDistances } from './surface-metrics.js';
import { inputNotes, resultBase, timings, wantsStats, type CompareOptions, type CompareResult, type Witness } from './compare-result.js';

function surfaceWitness(d: DirectionStats): Witness {
  return { fromIndex: d.fromIndex, fromPoint: d.fromPoint, toIndex: d.toIndex, toPoint: d.toPoint };
}

export async function compareSurfaceFiles(pathA: string, pathB: string, a: Geometry, b: Geometry, options: CompareOptions,
                                   bar: Progress, started: number, readMs: number): Promise<CompareResult> {
  if (options.method === 'eb') throw new UsageError('the eb method compares point sets; meshes are compared surface to surface (use --vertices-only for eb on their vertices)');
  if (wantsSurfelDistances(options)) {
    throw new UsageError('the surfel variants weigh the surface elements of voxel masks; meshes are sampled by area already (use the voxel / max-of-directed / mean-of-means variants)');
  }
  const sampling = options.sampling ?? 'area';
  const seed = options.seed ?? DEFAULT_SEED;
  let outcome: SurfaceOutcome;
  bar.phase('surface distances', 0, 1);
  try {
    outcome = await compareSurfaces(a, b, {
      method: options.method === 'brute' ? 'brute' : 'grid',
      directed: options.directed,
      sampling,
      samples: options.samples,
      density: options.density,
      seed,
      backend: options.backend,
      device: options.device,
      threads: options.threads,
      signal: options.signal,
      onProgress: (done, total) => bar.update(done, total),
    });
  } finally {
    bar.finish();
  }
  const notes = [...outcome.notes, ...inputNotes(a, b)];
  const ab = outcome.ab, ba = outcome.ba;
  return {
    ...resultBase('surface', pathA, a, pathB, b, options),
    stats: wantsStats(options) ? distanceStats(outcome.distancesAb, outcome.distancesBa, options) : null,
    // Samples are drawn by area, so each one counting once is already an area-weighted NSD.
    tolerance: toleranceReport(options, outcome.distancesAb, outcome.distancesBa ?? new Float64Array(0), null),
    perPoint: options.export || options.keepDistances ? {
      dims: a.dims,
      nearestIs: 'none',
      ab: { points: outcome.queriesA, distances: outcome.distancesAb, nearest: null },
      ba: outcome.distancesBa ? { points: outcome.queriesB, distances: outcome.distancesBa, nearest: null } : null,
      sources: { a: exportSource(a), b: exportSource(b) },
      targetPoints: b.positions,
    } : null,
    surface: {
      ab, ba, es: outcome.es, sampling, seed,
      queriesA: outcome.queriesA, distancesAb: outcome.distancesAb, distancesBa: outcome.distancesBa,
    },
    hd: ba ? Math.max(ab.hd, ba.hd) : ab.hd,
    hdAb: ab.hd,
    hdBa: ba ? ba.hd : null,
    witnessAb: surfaceWitness(ab),
    witnessBa: ba ? surfaceWitness(ba) : null,
    method: options.method === 'brute' ? 'brute' : 'grid',
    backend: outcome.backend,
    threads: outcome.threads,
    device: outcome.device,
    peakDeviceBytes: outcome.peakDeviceBytes,
    queryChunks: 1,
    coordinateOrigin: outcome.origin,
    timingsMs: timings(started, readMs, {
      sample: outcome.sampleMs,
      upload: outcome.uploadMs,
      build: outcome.buildMs,
      query: outcome.queryMs,
      download: outcome.downloadMs,
    }),
    notes,
  };
}
