// What every method of scripts/bench-masks measures on a mask pair, and whether two methods agree on it.

/** HD, HD95 (max-of-directed, linear percentile) and ASSD (mean of means), in mm, and the surface sizes. */
export interface MaskValues {
  hd: number;
  hdAb: number;
  hdBa: number;
  hd95: number;
  hd95Ab: number;
  hd95Ba: number;
  assd: number;
  meanAb: number;
  meanBa: number;
  /** Surface voxels (points) of A and B. */
  surfaceA: number;
  surfaceB: number;
}

/**
 * Methods agree when they find the same surfaces and every distance is within this, relative: they measure
 * the same exact distances in double precision, so only the summation order of the means can differ.
 */
export const AGREEMENT_TOLERANCE = 1e-9;

const DISTANCES = ['hd', 'hdAb', 'hdBa', 'hd95', 'hd95Ab', 'hd95Ba', 'assd', 'meanAb', 'meanBa'] as const;

const LABELS: Record<(typeof DISTANCES)[number], string> = {
  hd: 'HD', hdAb: 'HD A→B', hdBa: 'HD B→A', hd95: 'HD95', hd95Ab: 'HD95 A→B', hd95Ba: 'HD95 B→A', assd: 'ASSD', meanAb: 'mean A→B', meanBa: 'mean B→A',
};

export interface Agreement {
  agrees: boolean;
  /** The largest relative difference over the distances. */
  largest: number;
  /** What differs, for the report (empty when they agree). */
  differences: string[];
}

export function compareValues(ours: MaskValues, other: MaskValues): Agreement {
  const differences: string[] = [];
  if (ours.surfaceA !== other.surfaceA || ours.surfaceB !== other.surfaceB) {
    differences.push(`surface voxels ${other.surfaceA} / ${other.surfaceB} against ${ours.surfaceA} / ${ours.surfaceB}`);
  }
  let largest = 0;
  for (const key of DISTANCES) {
    const relative = Math.abs(other[key] - ours[key]) / Math.max(Math.abs(ours[key]), Number.MIN_VALUE);
    largest = Math.max(largest, relative);
    if (!(relative <= AGREEMENT_TOLERANCE)) differences.push(`${LABELS[key]} ${other[key].toPrecision(10)} against ${ours[key].toPrecision(10)}`);
  }
  return { agrees: differences.length === 0, largest, differences };
}
