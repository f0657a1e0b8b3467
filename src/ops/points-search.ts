// xhd_points_compare: the exact Hausdorff distance of two point sets and, when asked, every point's nearest
// neighbour in the other set, in one native search on whichever backend is chosen (CPU or CUDA).
import { hausdorffResult, prepareHausdorff, type HausdorffOptions, type HausdorffResult } from './hausdorff.js';
import { DISTANCE_STATS_RESULT, HAUSDORFF_RESULT, pointsArg } from '../native/abi.js';
import type { StatsOptions, SurfelDistances } from '../metrics/distance-stats.js';
import { nativeDistanceStats, statsAnswer, statsRequest, type NativeStats } from './distance-stats-native.js';
import { callNative } from '../native/call.js';
import { StructOut } from '../native/struct-out.js';
import { directionsOf, placementArg, resolvePlacement, type Placement } from './placement.js';

export interface PointsSearchOptions extends HausdorffOptions {
  /** Measure every point: its exact distance to the nearest point of the other set, each direction computed. */
  distances?: boolean;
  /** Also each point's nearest index in the other set, ties to the smallest (8 bytes a point more). */
  nearest?: boolean;
  /**
   * Workers: GPU ordinals, one worker each (an ordinal twice runs two workers on that device), or 'all' for
   * every GPU; on the CPU backend each entry is a group of threads. The answers do not depend on it.
   */
  devices?: number[] | 'all';
  /** Bytes of device memory each worker may use; a target that does not fit is searched in tiles. */
  memoryLimit?: number;
  /**
   * The statistics of the distances measured (both directions', or A's alone when directed), in the same native
   * call (xhd_points_compare_stats): where the distances are, on the device for a GPU backend, which copies them
   * back only when `distances` asks. With devices or a memory limit, the placed search and then the statistics.
   */
  stats?: SearchStats;
}

export interface SearchStats {
  options: StatsOptions;
  /** τ whose points within are counted (NSD, F-score), in this order. */
  tolerances?: number[];
  /** For the surfel variants (their area-weighted statistics are TypeScript's). */
  surfels?: SurfelDistances | null;
}

export interface PerPointNearest {
  /** Per source point: the distance to its nearest target, in double over the given coordinates. */
  distances: Float64Array | null;
  /** Per source point: that target's index (ties to the smallest), when asked for. */
  nearest: BigInt64Array | null;
}

export interface PointsSearchResult extends HausdorffResult {
  /** Every point's nearest, per direction (ba null when directed); null when nothing per point was asked for. */
  perPoint: { ab: PerPointNearest; ba: PerPointNearest | null } | null;
  /** The workers it ran on (devices or CPU thread groups) and the most tiles a target was cut into. */
  placement: Placement;
  /** The statistics asked for by options.stats (null when none were). */
  stats: NativeStats | null;
}

/**
 * The Hausdorff distance between a and b (interleaved xyz) exactly as hausdorff() gives it, and with
 * `distances` every point's exact nearest distance (and with `nearest` its index), from the same search: the
 * values nearestDistances() gives, bit for bit, on the CPU and on a GPU.
 */
export async function pointsSearch(a: Float32Array | Float64Array, b: Float32Array | Float64Array,
                                   options: PointsSearchOptions = {}): Promise<PointsSearchResult> {
  const devices = options.devices === 'all' || options.devices === undefined ? options.devices : [...options.devices];
  const call = prepareHausdorff(a, b, { ...options, device: options.device ?? (Array.isArray(devices) ? devices[0] : undefined) });
  const placement = resolvePlacement(call.backend, devices, options.memoryLimit);
  const fused = options.stats !== undefined && placement === null;
  // Placed: the statistics are a second call, over the distances this one brings back.
  const distances = options.distances === true || (options.stats !== undefined && !fused);
  const wants = distances || options.nearest === true;
  const na = a.length / 3, nb = b.length / 3;
  // The library writes the per-point outputs straight into these arrays (koffi passes a typed array's own memory),
  // which the result then holds: no native buffer and no copy.
  const distancesAb = distances ? new Float64Array(na) : null;
  const nearestAb = options.nearest ? new BigInt64Array(na) : null;
  const distancesBa = distances && !call.directed ? new Float64Array(nb) : null;
  const nearestBa = options.nearest && !call.directed ? new BigInt64Array(nb) : null;
  // Read from its own memory after the call rather than decoded by koffi (see StructOut).
  const result = new StructOut(HAUSDORFF_RESULT);
  const perPointArg = wants ? { distance_ab: distancesAb, nearest_ab: nearestAb, distance_ba: distancesBa, nearest_ba: nearestBa } : null;
  const refusal = { onProgress: options.onProgress, signal: options.signal, refusal: 'the points cannot be compared' };
  const where = placement ? placementArg(placement) : null;
  let stats: NativeStats | null = null;
  if (fused) {
    const asked = options.stats!;
    const run = { backend: call.backend.name, device: call.device, threads: call.threads, tolerances: asked.tolerances };
    const request = statsRequest(asked.options, run, !call.directed);
    const statsOut = new StructOut(DISTANCE_STATS_RESULT);
    await callNative(call.backend, call.backend.pointsCompareStats,
      [pointsArg(a), pointsArg(b), call.nativeOptions, perPointArg, request.native, statsOut.bytes, result.bytes], refusal);
    stats = statsAnswer(request, statsOut.read(), asked.options, !call.directed, asked.surfels ?? null);
  } else if (where) {
    await callNative(call.backend, call.backend.pointsComparePlaced,
      [pointsArg(a), pointsArg(b), call.nativeOptions, where, perPointArg, result.bytes], refusal);
  } else {
    await callNative(call.backend, call.backend.pointsCompare, [pointsArg(a), pointsArg(b), call.nativeOptions, perPointArg, result.bytes], refusal);
  }
  if (options.stats && !fused) {
    const run = { backend: call.backend.name, device: call.device, threads: call.threads, tolerances: options.stats.tolerances };
    stats = await nativeDistanceStats(distancesAb!, distancesBa, options.stats.options, run, options.stats.surfels ?? null);
  }
  const perPoint = wants ? {
    ab: { distances: distancesAb, nearest: nearestAb },
    ba: call.directed ? null : { distances: distancesBa, nearest: nearestBa },
  } : null;
  const ran: Placement = where
    ? { devices: placement!.devices, memoryLimit: placement!.memoryLimit, workers: where.workers, targetTiles: where.target_tiles,
      splitBySpace: directionsOf(where.spatial_directions) }
    : { devices: [call.device], memoryLimit: 0, workers: 1, targetTiles: 1, splitBySpace: [] };
  // Object.assign, not a spread followed by new fields, which V8 (Node 20) adds at about 2 µs each.
  return Object.assign(hausdorffResult(call, result.read()), { perPoint, placement: ran, stats });
}
