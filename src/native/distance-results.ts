// xhd_distance_result records that xhd_distance_query_many writes side by side into one buffer, read where
// they lie: no koffi object per frame, which cost more than a small mesh's whole query. The field offsets come
// from the declarations in abi.ts (koffi.offsetof), whose sizes and offsets the library confirms at load, so a
// layout change on either side is caught there rather than read wrong here.
import { endianness } from 'node:os';
import koffi from './koffi.js';
import { SOLIDS_A_CLOSED, SOLIDS_B_CLOSED, SOLIDS_CONVEX, SOLIDS_NAMES } from './abi.js';
import { NativeError } from '../core/errors.js';


/** The triangles realizing a distance and its two points: on A, and on B as posed. */
export interface DistancePair {
  distance: number;
  triangleA: number;
  triangleB: number;
  pointA: [number, number, number];
  pointB: [number, number, number];
  /** Minimum only: the two triangles share a point, crossing or touching (distance 0). */
  intersecting: boolean;
}

/**
 * When the minimum is 0 and contacts were asked for: every triangle pair at distance 0 (crossing or touching),
 * counted, and a box holding every point the meshes share (the union over those pairs of the overlap of the
 * two triangles' axis-aligned boxes, B as posed; null when no pair is at distance 0).
 */
export interface DistanceContacts {
  pairs: number;
  bounds: { min: [number, number, number]; max: [number, number, number] } | null;
}

/**
 * With penetration asked for: the solids the two closed meshes bound (the even-odd rule), and bounds on the
 * penetration depth, the shortest translation of B after which their interiors are disjoint (kernels/geometry/penetration.h).
 * solids: 'open' (a mesh is not closed, or bounds no volume: no bounds), 'apart' (depth 0), 'overlap' (lower > 0),
 * 'undecided' (0 = lower <= depth <= upper: touching, or no point proven inside both was found).
 */
export interface DistancePenetration {
  solids: 'open' | 'apart' | 'overlap' | 'undecided';
  closed: { a: boolean; b: boolean };
  /** Both certified convex to their rounding (asked only where the hulls overlap): lower and upper meet (to the slack). */
  convex: boolean;
  /** The depth lies in [lower, upper]; null when a mesh is not closed. */
  lower: number | null;
  upper: number | null;
  /** Moving B by upper along this unit vector parts the solids; null when they are apart or nothing is said. */
  direction: [number, number, number] | null;
}

export interface DistanceQuery {
  min: DistancePair | null;
  /** Only when asked for (MeshDistanceOptions.contacts), else null. */
  contacts: DistanceContacts | null;
  /** Only when asked for (MeshDistanceOptions.penetration), else null. */
  penetration: DistancePenetration | null;
  max: DistancePair | null;
  queryMs: number;
  uploadMs: number;
  downloadMs: number;
  boxPairs: number;
  trianglePairs: number;
  iterations: number;
  /** The most device memory the context has held (0 on the CPU). */
  peakDeviceBytes: number;
}

const RESULT = 'xhd_distance_result';
const PAIR = 'xhd_distance_pair';

/** The library writes in the host's byte order. */
const LE = endianness() === 'LE';

const at = (member: string) => koffi.offsetof(RESULT, member);
const inPair = (member: string) => koffi.offsetof(PAIR, member);

/** Byte offsets, computed once (the structs are registered when abi.ts is loaded, before this runs). */
let layout: ReturnType<typeof measure> | undefined;
function measure() {
  return {
    size: koffi.sizeof(RESULT),
    min: at('min'),
    max: at('max'),
    pair: {
      distance: inPair('distance'), triangleA: inPair('triangle_a'), triangleB: inPair('triangle_b'),
      pointA: inPair('point_a'), pointB: inPair('point_b'), intersecting: inPair('intersecting'),
    },
    queryMs: at('query_ms'), uploadMs: at('upload_ms'), downloadMs: at('download_ms'),
    boxPairs: at('box_pairs'), trianglePairs: at('triangle_pairs'), iterations: at('iterations'),
    peakDeviceBytes: at('peak_device_bytes'),
    contactPairs: at('contact_pairs'), contactMin: at('contact_min'), contactMax: at('contact_max'),
    solids: at('solids'), solidsFlags: at('solids_flags'), lower: at('penetration_lower'), upper: at('penetration_upper'),
    direction: at('penetration_direction'),
  };
}

/** The contact facts from the record's count and box (NaN corners when no pair touches). */
export function contactsOf(pairs: number, min: [number, number, number], max: [number, number, number]): DistanceContacts {
  return { pairs, bounds: pairs > 0 ? { min, max } : null };
}

/** The penetration facts from the record's code, flags, bounds and direction. */
export function penetrationOf(code: number, flags: number, lower: number, upper: number, direction: [number, number, number]): DistancePenetration {
  const solids = SOLIDS_NAMES[code];
  if (solids !== 'open' && solids !== 'apart' && solids !== 'overlap' && solids !== 'undecided') {
    throw new NativeError(`the library reported solids code ${code} for a query that asked for them`);
  }
  const bounded = solids !== 'open';
  return {
    solids,
    closed: { a: (flags & SOLIDS_A_CLOSED) !== 0, b: (flags & SOLIDS_B_CLOSED) !== 0 },
    convex: (flags & SOLIDS_CONVEX) !== 0,
    lower: bounded ? lower : null,
    upper: bounded ? upper : null,
    direction: solids === 'overlap' || solids === 'undecided' ? direction : null,
  };
}

export class DistanceResults {
  /** What the library writes into: capacity records of sizeof(xhd_distance_result) bytes. */
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly l: ReturnType<typeof measure>;

  constructor(readonly capacity: number) {
    this.l = layout ??= measure();
    this.bytes = new Uint8Array(capacity * this.l.size);
    this.view = new DataView(this.bytes.buffer);
  }

  /** Record i as DistanceQuery; min and max only where they were asked for (the library leaves the others empty). */
  query(i: number, which: { min: boolean; max: boolean; contacts?: boolean; penetration?: boolean }): DistanceQuery {
    const base = i * this.l.size, v = this.view, l = this.l;
    const triple = (offset: number): [number, number, number] =>
      [v.getFloat64(base + offset, LE), v.getFloat64(base + offset + 8, LE), v.getFloat64(base + offset + 16, LE)];
    return {
      min: which.min ? this.pair(base + l.min) : null,
      contacts: which.contacts ? contactsOf(this.int64(base + l.contactPairs), triple(l.contactMin), triple(l.contactMax)) : null,
      penetration: which.penetration
        ? penetrationOf(v.getInt32(base + l.solids, LE), v.getInt32(base + l.solidsFlags, LE), v.getFloat64(base + l.lower, LE),
          v.getFloat64(base + l.upper, LE), triple(l.direction))
        : null,
      max: which.max ? this.pair(base + l.max) : null,
      queryMs: v.getFloat64(base + l.queryMs, LE),
      uploadMs: v.getFloat64(base + l.uploadMs, LE),
      downloadMs: v.getFloat64(base + l.downloadMs, LE),
      boxPairs: this.int64(base + l.boxPairs),
      trianglePairs: this.int64(base + l.trianglePairs),
      iterations: v.getUint32(base + l.iterations, LE),
      peakDeviceBytes: this.int64(base + l.peakDeviceBytes),
    };
  }

  private pair(base: number): DistancePair {
    const v = this.view, p = this.l.pair;
    const point = (offset: number): [number, number, number] =>
      [v.getFloat64(base + offset, LE), v.getFloat64(base + offset + 8, LE), v.getFloat64(base + offset + 16, LE)];
    return {
      distance: v.getFloat64(base + p.distance, LE),
      triangleA: this.int64(base + p.triangleA),
      triangleB: this.int64(base + p.triangleB),
      pointA: point(p.pointA),
      pointB: point(p.pointB),
      intersecting: v.getInt32(base + p.intersecting, LE) !== 0,
    };
  }

  /** An int64 (or a uint64 count) as a number: exact below 2^53, which every index and count here is. Read as
   * two 32-bit halves, since a BigInt per field would cost more than the rest of the record. */
  private int64(offset: number): number {
    const high = LE ? offset + 4 : offset, low = LE ? offset : offset + 4;
    return this.view.getInt32(high, LE) * 4294967296 + this.view.getUint32(low, LE);
  }
}
