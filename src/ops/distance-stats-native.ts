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
  /** Tolerances τ whose points within are counted (NSD, F-score), in the order given. */
  tolerances?: number[];
}

export interface NativeStats {
  stats: DistanceStats;
  /** How many of each direction's distances are <= each of run.tolerances (null when none was given). */
  within: { ab: number[]; ba: number[] } | null;
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
  const request = statsRequest(options, run, ba !== null);
  const result = new StructOut(DISTANCE_STATS_RESULT); // read from its own memory, not decoded by koffi
  // Through a progress slot of its own, which carries the call's message should it fail (lanes of `xhd batch`
  // sum up at once, and the library's last error is whichever call's failed last).
  await callNative(backend, backend.distanceStats, [ab, ab.length, ba, ba ? ba.length : 0, request.native, result.bytes],
    { refusal: 'the distances cannot be summed up' });
  return statsAnswer(request, result.read(), options, ba !== null, surfels);
}

/** What xhd_distance_stats (or xhd_points_compare_stats) is asked: its options struct, and which percentiles. */
export interface StatsRequest {
  native: ReturnType<typeof nativeStatsOptions>;
  wanted: ReturnType<typeof percentilesWanted>;
}

export function statsRequest(options: StatsOptions, run: NativeStatsRun, hasBa: boolean): StatsRequest {
  const wanted = percentilesWanted(options);
  return { native: nativeStatsOptions(wanted, run, hasBa), wanted };
}

function nativeStatsOptions(wanted: ReturnType<typeof percentilesWanted>, run: NativeStatsRun, hasBa: boolean) {
  const p = wanted.directed ?? wanted.pooled;
  return {
    percentile: p ?? 0,
    has_percentile: p === undefined ? 0 : 1,
    pooled: wanted.pooled === undefined ? 0 : 1,
    threads: run.threads ?? 0,
    device: run.device ?? 0,
    ...countArrays(run.tolerances ?? [], hasBa),
  };
}

/** The statistics from the result struct the library filled for request (read from its memory). */
export function statsAnswer(request: StatsRequest, raw: RawDistanceStatsResult, options: StatsOptions,
  hasBa: boolean, surfels: SurfelDistances | null): NativeStats {
  const { native, wanted } = request;
  const stats = statsFromSums({
    ab: sumsOf(raw.ab, wanted.directed !== undefined),
    ba: hasBa ? sumsOf(raw.ba, wanted.directed !== undefined) : null,
    pooledPercentile: wanted.pooled === undefined ? null : raw.pooled_percentile,
  }, options, surfels);
  const taus = native.tolerance_count;
  const within = taus > 0 ? { ab: Array.from(native.within_ab!, Number), ba: native.within_ba ? Array.from(native.within_ba, Number) : [] } : null;
  return { stats, within, uploadMs: raw.upload_ms, computeMs: raw.compute_ms };
}

/** The options' tolerance fields: the τ and the arrays the library writes its counts into. */
function countArrays(tolerances: number[], hasBa: boolean) {
  const n = tolerances.length;
  return {
    tolerances: n > 0 ? Float64Array.from(tolerances) : null,
    within_ab: n > 0 ? new BigUint64Array(n) : null,
    within_ba: n > 0 && hasBa ? new BigUint64Array(n) : null,
    tolerance_count: n,
  };
}
