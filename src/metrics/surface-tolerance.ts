// Surface agreement at a tolerance τ: the share of each surface that lies within τ of the other. With every
// surface point counting once (the `voxel` variant, MONAI's compute_surface_dice with its default
// use_subvoxels=False) or weighted by its surface element's area (the `surfel` variant, DeepMind's
// compute_surface_dice_at_tolerance and compute_surface_overlap_at_tolerance).
//
//   NSD (normalised surface distance, surface Dice) = (Σ w_a[d_a ≤ τ] + Σ w_b[d_b ≤ τ]) / (Σ w_a + Σ w_b)
//   precision = Σ w_a[d_a ≤ τ] / Σ w_a   (A, the prediction, near B)
//   recall    = Σ w_b[d_b ≤ τ] / Σ w_b   (B, the reference, near A)
//   F-score   = 2·precision·recall / (precision + recall)   (0 when both are 0)

/** `voxel`: every surface point weighs 1 (MONAI). `surfel`: its surface element's area (DeepMind). */
export const NSD_VARIANTS = ['voxel', 'surfel'] as const;
export type NsdVariant = (typeof NSD_VARIANTS)[number];

export interface ToleranceValues {
  tau: number;
  nsd: number;
  precision: number;
  recall: number;
  fscore: number;
}

/** NSD and F-score at every τ asked for, and the variant that measured them. */
export interface ToleranceReport {
  variant: NsdVariant;
  /** The τ of --nsd and of --fscore, as given (duplicates removed). */
  nsdTaus: number[];
  fscoreTaus: number[];
  /** One entry per distinct τ of either option, in the order first given. */
  values: ToleranceValues[];
}

/** The weight of the points within τ, and of them all (weights null: each point 1). */
function within(distances: Float64Array, weights: Float64Array | null, tau: number): { near: number; total: number } {
  let near = 0, total = 0;
  for (let i = 0; i < distances.length; i++) {
    const w = weights ? weights[i] : 1;
    total += w;
    if (distances[i] <= tau) near += w;
  }
  return { near, total };
}

/**
 * NSD, precision, recall and F-score at τ from each direction's per-point distances (A → B, B → A) and, for
 * the surfel variant, each point's area. Both sides must have points (empty inputs follow --empty instead).
 */
export function toleranceValues(tau: number, ab: Float64Array, ba: Float64Array, weightsAb: Float64Array | null = null,
                                weightsBa: Float64Array | null = null): ToleranceValues {
  return toleranceValuesOf(tau, within(ab, weightsAb, tau), within(ba, weightsBa, tau));
}

/**
 * The same values from the weight of each side's points within τ and of them all: what a native library's counts
 * give for the voxel variant (each point weighs 1, so the counts are the sums of weights, exactly).
 */
export function toleranceValuesOf(tau: number, a: { near: number; total: number }, b: { near: number; total: number }): ToleranceValues {
  const precision = a.near / a.total, recall = b.near / b.total;
  const fscore = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { tau, nsd: (a.near + b.near) / (a.total + b.total), precision, recall, fscore };
}

/**
 * The values when every distance is `value` (an empty input under --empty): 1 when value ≤ τ, 0 when it is
 * larger, NaN for NaN.
 */
export function uniformToleranceValues(tau: number, value: number): ToleranceValues {
  const share = Number.isNaN(value) ? NaN : value <= tau ? 1 : 0;
  return { tau, nsd: share, precision: share, recall: share, fscore: share };
}

/** The JSON key of a value at τ: nsd_1, fscore_2_5 (a decimal point becomes _, as in hd_p99_5). */
export function toleranceKey(prefix: 'nsd' | 'fscore', tau: number): string {
  return `${prefix}_${String(tau).replace('.', '_')}`;
}
