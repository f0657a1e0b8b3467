// One origin near the data for the native calls that take float32 coordinates (surface distances,
// sampling): every input point is rounded to float32 from its double difference to the origin, so survey
// coordinates (x ≈ 5e5, y ≈ 4.2e6) keep a float step of micrometres instead of 0.25-0.5 m.
// Translation does not change a distance; reported points are moved back by the origin.
// (Point sets and mesh–mesh distance need none of this: the library takes their doubles and frames them itself.)
import type { Coordinates } from './io/geometry.js';

export type Origin = [number, number, number];

export interface FloatFrame {
  /** [0, 0, 0] when every set is float32 already (then the sets are used as they are). */
  origin: Origin;
  /** Each input set relative to the origin, as float32. */
  sets: Float32Array[];
}

/**
 * The centre of the box around every set, where it gains precision: when the coordinates are large beside
 * the box (more than 4 times its longest side, as survey data at x ≈ 5e5 for a 100 m tile). Data around the
 * origin keep origin 0, so their float32 copies are what they were before any shift.
 */
function centreOf(sets: Coordinates[]): Origin {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (const p of sets) {
    for (let i = 0; i < p.length; i += 3) {
      for (let k = 0; k < 3; k++) {
        const v = p[i + k];
        if (v < lo[k]) lo[k] = v;
        if (v > hi[k]) hi[k] = v;
      }
    }
  }
  if (!(lo[0] <= hi[0])) return [0, 0, 0];
  const side = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  const magnitude = Math.max(...lo.map(Math.abs), ...hi.map(Math.abs));
  if (magnitude <= 4 * side) return [0, 0, 0];
  return [0, 1, 2].map((k) => 0.5 * lo[k] + 0.5 * hi[k]) as Origin;
}

export function floatFrame(sets: Coordinates[]): FloatFrame {
  if (sets.every((p) => p instanceof Float32Array)) return { origin: [0, 0, 0], sets: sets as Float32Array[] };
  const origin = centreOf(sets);
  return { origin, sets: sets.map((p) => toFrame(p, origin)) };
}

function toFrame(p: Coordinates, origin: Origin): Float32Array {
  const out = new Float32Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    out[i] = p[i] - origin[0];
    out[i + 1] = p[i + 1] - origin[1];
    out[i + 2] = p[i + 2] - origin[2];
  }
  return out;
}

export function isZeroOrigin(origin: Origin): boolean {
  return origin[0] === 0 && origin[1] === 0 && origin[2] === 0;
}

/** Points of the frame back in the input's coordinates (the same array when the origin is zero). */
export function pointsFromFrame(p: Float32Array, origin: Origin): Coordinates {
  if (isZeroOrigin(origin)) return p;
  const out = new Float64Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    out[i] = p[i] + origin[0];
    out[i + 1] = p[i + 1] + origin[1];
    out[i + 2] = p[i + 2] + origin[2];
  }
  return out;
}

/** One reported point (2 or 3 coordinates) back in the input's coordinates. */
export function pointFromFrame(p: number[], origin: Origin): number[] {
  return p.map((v, k) => v + origin[k]);
}
