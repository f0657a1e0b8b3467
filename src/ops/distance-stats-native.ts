// The statistics of per-point distances (max, exact sums, percentiles) computed by a native library: the CPU one on
// every core, or a GPU one on the device (xhd_distance_stats). The same numbers as the TypeScript distanceStats bit
// for bit: the sums are exact, rounded once, and the percentiles order statistics, whoever computes them.
import { loadBackend, type BackendName } from '../native/library.js';
import { callNative } from '../native/call.js';
import { DISTANCE_STATS_RESULT, type RawDistanceStatsResult } from '../native/abi.js';
import { StructOut } from '../native/struct-out.js';
import { percentilesWanted, statsFromSums, type DirectedSums, type DistanceStats, type StatsOptions, type SurfelDistances } from '../metrics/distance-stats.js';

export interface NativeStatsRun {
  /** cpu: the CPU library; cuda or optix: that library's device code. */
  backend: BackendName;
  /** GPU ordinal (device libraries). */
  device?: number;
  /** CPU threads (CPU library); 0 or absent: every core. */
  threads?: number;
}

export interface NativeStats {
  stats: DistanceStats;
  uploadMs: number;
  computeMs: number;
}

function sumsOf(raw: RawDistanceStatsResult['ab'], percentileAsked: boolean): DirectedSums {
  return { count: Number(raw.count), max: raw.max, sum: raw.sum, sqSum: raw.sq_sum, percentile: percentileAsked ? raw.percentile : null };
}

/**
 * ab: each point of A's distance to B; ba: the reverse, or null for a directed comparison. surfels: for the
 * surfel variants, the surface elements' distances and areas (their weighted statistics are TypeScript's).
 */
export async function nativeDistanceStats(ab: Float64Array, ba: Float64Array | null, options: StatsOptions, run: NativeStatsRun,
  surfels: SurfelDistances | null = null): Promise<NativeStats> {
  const backend = loadBackend(run.backend);
  const wanted = percentilesWanted(options);
  const p = wanted.directed ?? wanted.pooled;
  const nativeOptions = {
    percentile: p ?? 0,
    has_percentile: p === undefined ? 0 : 1,
    pooled: wanted.pooled === undefined ? 0 : 1,
    threads: run.threads ?? 0,
    device: run.device ?? 0,
  };
  const result = new StructOut(DISTANCE_STATS_RESULT); // read from its own memory, not decoded by koffi
  // Through a progress slot of its own, which carries the call's message should it fail (lanes of `xhd batch`
  // sum up at once, and the library's last error is whichever call's failed last).
  await callNative(backend, backend.distanceStats, [ab, ab.length, ba, ba ? ba.length : 0, nativeOptions, result.bytes],
    { refusal: 'the distances cannot be summed up' });
  const raw = result.read();
  const stats = statsFromSums({
    ab: sumsOf(raw.ab, wanted.directed !== undefined),
    ba: ba ? sumsOf(raw.ba, wanted.directed !== undefined) : null,
    pooledPercentile: wanted.pooled === undefined ? null : raw.pooled_percentile,
  }, options, surfels);
  return { stats, uploadMs: raw.upload_ms, computeMs: raw.compute_ms };
}
