// xhd_points_compare: the exact Hausdorff distance of two point sets and, when asked, every point's nearest
// neighbour in the other set, in one native search on whichever backend is chosen (CPU or CUDA).
import koffi from 'koffi';

import { hausdorffResult, prepareHausdorff, type HausdorffOptions, type HausdorffResult } from './hausdorff.js';
import { pointsArg, type RawHausdorffResult } from '../native/abi.js';
import { callNative } from '../native/call.js';

export interface PointsSearchOptions extends HausdorffOptions {
  /** Measure every point: its exact distance to the nearest point of the other set, each direction computed. */
  distances?: boolean;
  /** Also each point's nearest index in the other set, ties to the smallest (8 bytes a point more). */
  nearest?: boolean;
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
}

/** Native room for one output array: the library writes there, and it is copied into a typed array after. */
class NativeOutput {
  private readonly pointer: unknown;
  constructor(private readonly bytes: number) {
    this.pointer = koffi.alloc('uint8_t', Math.max(bytes, 8));
  }
  get address(): unknown {
    return this.pointer;
  }
  copyOut<T extends Float64Array | BigInt64Array>(make: (buffer: ArrayBuffer) => T): T {
    const out = make(new ArrayBuffer(this.bytes));
    new Uint8Array(out.buffer).set(new Uint8Array(koffi.view(this.pointer, this.bytes)));
    return out;
  }
  free(): void {
    koffi.free(this.pointer);
  }
}

/**
 * The Hausdorff distance between a and b (interleaved xyz) exactly as hausdorff() gives it, and with
 * `distances` every point's exact nearest distance (and with `nearest` its index), from the same search: the
 * values nearestDistances() gives, bit for bit, on the CPU and on a GPU.
 */
export async function pointsSearch(a: Float32Array | Float64Array, b: Float32Array | Float64Array,
                                   options: PointsSearchOptions = {}): Promise<PointsSearchResult> {
  const call = prepareHausdorff(a, b, options);
  const wants = options.distances === true || options.nearest === true;
  const na = a.length / 3, nb = b.length / 3;
  const outputs: Array<NativeOutput | null> = [
    options.distances ? new NativeOutput(8 * na) : null,
    options.nearest ? new NativeOutput(8 * na) : null,
    options.distances && !call.directed ? new NativeOutput(8 * nb) : null,
    options.nearest && !call.directed ? new NativeOutput(8 * nb) : null,
  ];
  try {
    const raw = {} as RawHausdorffResult;
    const perPointArg = wants ? {
      distance_ab: outputs[0]?.address ?? null,
      nearest_ab: outputs[1]?.address ?? null,
      distance_ba: outputs[2]?.address ?? null,
      nearest_ba: outputs[3]?.address ?? null,
    } : null;
    await callNative(call.backend, call.backend.pointsCompare, [pointsArg(a), pointsArg(b), call.nativeOptions, perPointArg, raw],
      { onProgress: options.onProgress, signal: options.signal, refusal: 'the points cannot be compared' });
    const doubles = (o: NativeOutput | null) => (o ? o.copyOut((buffer) => new Float64Array(buffer)) : null);
    const indices = (o: NativeOutput | null) => (o ? o.copyOut((buffer) => new BigInt64Array(buffer)) : null);
    const perPoint = wants ? {
      ab: { distances: doubles(outputs[0]), nearest: indices(outputs[1]) },
      ba: call.directed ? null : { distances: doubles(outputs[2]), nearest: indices(outputs[3]) },
    } : null;
    return { ...hausdorffResult(call, raw), perPoint };
  } finally {
    for (const o of outputs) o?.free();
  }
}
