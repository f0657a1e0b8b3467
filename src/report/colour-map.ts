// The heatmap's colour map: piecewise linear through five stops at t = 0, ¼, ½, ¾, 1 —
// blue (0,0,255) → cyan (0,255,255) → green (0,255,0) → yellow (255,255,0) → red (255,0,0).
// A "jet"-like ramp that viewers and readers know: low distances cold, high distances hot.

export const HEAT_STOPS: readonly (readonly [number, number, number])[] = [
  [0, 0, 255],
  [0, 255, 255],
  [0, 255, 0],
  [255, 255, 0],
  [255, 0, 0],
];

const SEGMENTS = HEAT_STOPS.length - 1;

/**
 * Writes the colour of t ∈ [0, 1] as three bytes at out[offset..offset+2]. t outside [0, 1] is clamped and
 * NaN counts as 0. Writing in place keeps the heatmap writer free of per-point allocations.
 */
export function writeHeatColour(t: number, out: Uint8Array, offset: number): void {
  const s = t > 0 ? Math.min(t, 1) * SEGMENTS : 0; // also maps NaN to 0
  const k = Math.min(Math.floor(s), SEGMENTS - 1);
  const f = s - k;
  const lo = HEAT_STOPS[k], hi = HEAT_STOPS[k + 1];
  out[offset] = Math.round(lo[0] + f * (hi[0] - lo[0]));
  out[offset + 1] = Math.round(lo[1] + f * (hi[1] - lo[1]));
  out[offset + 2] = Math.round(lo[2] + f * (hi[2] - lo[2]));
}

/** The colour of t as [red, green, blue], each 0–255. */
export function heatColour(t: number): [number, number, number] {
  const rgb = new Uint8Array(3);
  writeHeatColour(t, rgb, 0);
  return [rgb[0], rgb[1], rgb[2]];
}
