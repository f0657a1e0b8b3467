// The HTML report's colour map: lightness rises linearly from a deep blue-violet through teal to a light
// yellow, interpolated in OKLab (Björn Ottosson's perceptual colour space, 2020), so equal steps in distance
// look like equal steps in colour and the map stays readable in greyscale and to most colour-blind readers.
// (colour-map.ts's blue-to-red ramp, which the heatmap PLY keeps for MeshLab users, is not uniform: its
// cyan and yellow bands look brighter than the rest and read as edges that the data does not have.)

/** OKLab stops as [L, a, b], at t = 0, ½, 1. Chosen from OKLCh (L, chroma, hue) so that every colour
 *  between them stays inside sRGB (a test checks), with L rising by the same amount per half. */
const STOPS: readonly (readonly [number, number, number])[] = [
  lch(0.27, 0.1, 290),
  lch(0.6, 0.1, 190),
  lch(0.93, 0.16, 105),
];

function lch(l: number, c: number, hueDegrees: number): [number, number, number] {
  const h = (hueDegrees * Math.PI) / 180;
  return [l, c * Math.cos(h), c * Math.sin(h)];
}

/** OKLab at t ∈ [0, 1] (clamped; NaN counts as 0). */
export function oklabAt(t: number): [number, number, number] {
  const s = t > 0 ? Math.min(t, 1) * (STOPS.length - 1) : 0;
  const k = Math.min(Math.floor(s), STOPS.length - 2);
  const f = s - k;
  const lo = STOPS[k], hi = STOPS[k + 1];
  return [lo[0] + f * (hi[0] - lo[0]), lo[1] + f * (hi[1] - lo[1]), lo[2] + f * (hi[2] - lo[2])];
}

/** Linear-light sRGB of an OKLab colour (the inverse transform of the OKLab definition); may leave [0, 1]. */
export function oklabToLinearSrgb([l, a, b]: readonly number[]): [number, number, number] {
  const l1 = (l + 0.3963377774 * a + 0.2158037573 * b) ** 3;
  const m1 = (l - 0.1055613458 * a - 0.0638541728 * b) ** 3;
  const s1 = (l - 0.0894841775 * a - 1.291485548 * b) ** 3;
  return [
    4.0767416621 * l1 - 3.3077115913 * m1 + 0.2309699292 * s1,
    -1.2684380046 * l1 + 2.6097574011 * m1 - 0.3413193965 * s1,
    -0.0041960863 * l1 - 0.7034186147 * m1 + 1.707614701 * s1,
  ];
}

/** The sRGB transfer curve: linear light to the encoded 0–1 value screens expect. */
function encodeSrgb(v: number): number {
  const c = Math.min(1, Math.max(0, v));
  return c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055;
}

/** The colour of t as [red, green, blue], each 0–255. */
export function perceptualColour(t: number): [number, number, number] {
  const rgb = oklabToLinearSrgb(oklabAt(t));
  return [Math.round(255 * encodeSrgb(rgb[0])), Math.round(255 * encodeSrgb(rgb[1])), Math.round(255 * encodeSrgb(rgb[2]))];
}

/** `size` colours at t = 0 … 1 as r,g,b bytes: the table the page colours points and draws its colour bar with. */
export function perceptualTable(size = 256): Uint8Array {
  const table = new Uint8Array(3 * size);
  for (let i = 0; i < size; i++) table.set(perceptualColour(i / (size - 1)), 3 * i);
  return table;
}
