// xhd_points_compare: the exact Hausdorff distance of two point sets and, when asked, every point's nearest
// neighbour in the other set, in one native search on whichever backend is chosen (CPU or CUDA).
import { hausdorffResult, prepareHausdorff, type HausdorffOptions, type HausdorffResult } from './hausdorff.js';
import { HAUSDORFF_RESULT, pointsArg } from '../native/abi.js';
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
  const wants = options.distances === true || options.nearest === true;
  const na = a.length / 3, nb = b.length / 3;
  // The library writes the per-point outputs straight into these arrays (koffi passes a typed array's own memory),
  // which the result then holds: no native buffer and no copy.
  const distancesAb = options.distances ? new Float64Array(na) : null;
  const nearestAb = options.nearest ? new BigInt64Array(na) : null;
  const distancesBa = options.distances && !call.directed ? new Float64Array(nb) : null;
  const nearestBa = options.nearest && !call.directed ? new BigInt64Array(nb) : null;
  // Read from its own memory after the call rather than decoded by koffi (see StructOut).
  const result = new StructOut(HAUSDORFF_RESULT);
  const perPointArg = wants ? { distance_ab: distancesAb, nearest_ab: nearestAb, distance_ba: distancesBa, nearest_ba: nearestBa } : null;
  const refusal = { onProgress: options.onProgress, signal: options.signal, refusal: 'the points cannot be compared' };
  const where = placement ? placementArg(placement) : null;
  if (where) {
    await callNative(call.backend, call.backend.pointsComparePlaced,
      [pointsArg(a), pointsArg(b), call.nativeOptions, where, perPointArg, result.bytes], refusal);
  } else {
    await callNative(call.backend, call.backend.pointsCompare, [pointsArg(a), pointsArg(b), call.nativeOptions, perPointArg, result.bytes], refusal);
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
  return Object.assign(hausdorffResult(call, result.read()), { perPoint, placement: ran });
}
