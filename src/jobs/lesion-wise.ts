// --components: lesion-wise metrics of one label by the BraTS 2023 rule (Saluja et al., "BraTS 2023
// lesion-wise performance metrics", github.com/rachitsaluja/BraTS-2023-Metrics). B is the reference, A the
// prediction. The reference's connected components, after a dilation by --lesion-dilation voxels
// (18-connected structure; 0: none), group into lesions: components whose dilations touch form one lesion.
// A prediction component matches every lesion whose dilated region it overlaps; each lesion is measured
// against the union of the components matching it (a lesion no component matches is a false negative), and
// each component that matches no lesion is a false positive. Both take the --empty policy's value (the
// volume diagonal by default, as BraTS's 374 mm) for every distance, and Dice 0. Lesions of at most
// --lesion-min-volume mm³ are left out (false positives never are). A lesion-wise value is the mean over the
// lesions kept and the false positives; with neither, the pair is a match (the both-empty value).
import { UsageError } from '../core/errors.js';
import { connectedComponents, dilate18, type Connectivity } from '../io/connected-components.js';
import { voxelCentres } from '../io/label-surfaces.js';
import { metricValues } from './metric-values.js';
import { measurePair, type EmptyRule, type PairMetrics, type SearchInfo } from './mask-pair-metrics.js';
import type { CompareOptions } from './compare-result.js';

export interface LesionInput {
  slot: number;
  dims: [number, number, number];
  dimsB?: [number, number, number];
  slotsA: Uint16Array;
  slotsB: Uint16Array;
  /** The label's surface voxels in each volume (linear indices, ascending). */
  surfaceA: Int32Array;
  surfaceB: Int32Array;
  affineA: ArrayLike<number>;
  affineB: ArrayLike<number>;
  /** mm³ of one voxel of B. */
  voxelVolume: number;
  rule: EmptyRule;
}

export interface Lesion {
  /** The lesion's number (reference lesions in scan order of their first voxel). */
  id: number;
  voxels: number;
  volume: number;
  /** The prediction components (numbered likewise) matching it. */
  matched: number[];
  dice: number;
  /** false: at most --lesion-min-volume, left out of the lesion-wise values. */
  kept: boolean;
  metrics: PairMetrics;
}

export interface FalsePositive {
  id: number;
  voxels: number;
  metrics: PairMetrics;
}

export interface LesionReport {
  connectivity: Connectivity;
  dilation: number;
  minVolume: number;
  lesions: Lesion[];
  falsePositives: FalsePositive[];
  counts: { lesions: number; truePositives: number; falseNegatives: number; falsePositives: number; leftOut: number };
  /** The lesion-wise mean of every metric measured, and of Dice, by key. */
  lesionWise: [string, number][];
}

function maskOf(slots: Uint16Array, slot: number): Uint8Array {
  const mask = new Uint8Array(slots.length);
  for (let n = 0; n < slots.length; n++) if (slots[n] === slot) mask[n] = 1;
  return mask;
}

/** The surface voxels whose group (component or lesion number) passes `keep`, as points. */
function pointsWhere(surface: Int32Array, group: Int32Array, keep: (g: number) => boolean, dims: [number, number, number], affine: ArrayLike<number>): Float64Array {
  const picked = surface.filter((n) => keep(group[n]));
  return voxelCentres(picked, dims, affine);
}

export async function lesionWise(input: LesionInput, options: CompareOptions, onSearch: (info: SearchInfo) => void): Promise<LesionReport> {
  const { dims } = input;
  if (input.slotsA.length !== input.slotsB.length || (input.dimsB && input.dimsB.some((n, i) => n !== dims[i]))) {
    throw new UsageError('--components matches lesions voxel by voxel; the two masks must share one grid');
  }
  const connectivity = options.connectivity ?? 26, dilation = options.lesionDilation ?? 0, minVolume = options.lesionMinVolume ?? 0;
  const maskA = maskOf(input.slotsA, input.slot), maskB = maskOf(input.slotsB, input.slot);
  const predicted = connectedComponents(maskA, dims, connectivity);
  const region = dilation > 0 ? connectedComponents(dilate18(maskB, dims, dilation), dims, connectivity) : connectedComponents(maskB, dims, connectivity);

  const lesionVoxels = new Float64Array(region.count + 1), componentVoxels = new Float64Array(predicted.count + 1);
  const overlap = new Float64Array(region.count + 1);
  const matched = Array.from({ length: region.count + 1 }, () => new Set<number>());
  for (let n = 0; n < maskA.length; n++) {
    const c = predicted.labels[n], d = region.labels[n];
    if (maskB[n]) lesionVoxels[d]++;
    if (c === 0) continue;
    componentVoxels[c]++;
    if (d === 0) continue;
    matched[d].add(c);
    if (maskB[n]) overlap[d]++;
  }

  const lesions: Lesion[] = [];
  const matchedAny = new Set<number>();
  for (let d = 1; d <= region.count; d++) {
    const comps = [...matched[d]].sort((x, y) => x - y);
    for (const c of comps) matchedAny.add(c);
    const predictedVoxels = comps.reduce((sum, c) => sum + componentVoxels[c], 0);
    const metrics = await measurePair({
      a: pointsWhere(input.surfaceA, predicted.labels, (c) => matched[d].has(c), dims, input.affineA),
      b: pointsWhere(input.surfaceB, region.labels, (g) => g === d, dims, input.affineB),
      surfels: null,
    }, options, input.rule, onSearch);
    const volume = lesionVoxels[d] * input.voxelVolume;
    lesions.push({ id: d, voxels: lesionVoxels[d], volume, matched: comps, dice: (2 * overlap[d]) / (lesionVoxels[d] + predictedVoxels), kept: volume > minVolume, metrics });
  }
  const falsePositives: FalsePositive[] = [];
  for (let c = 1; c <= predicted.count; c++) {
    if (matchedAny.has(c)) continue;
    const metrics = await measurePair({
      a: pointsWhere(input.surfaceA, predicted.labels, (g) => g === c, dims, input.affineA), b: new Float64Array(0), surfels: null,
    }, options, input.rule, onSearch);
    falsePositives.push({ id: c, voxels: componentVoxels[c], metrics });
  }

  const kept = lesions.filter((l) => l.kept);
  return {
    connectivity, dilation, minVolume, lesions, falsePositives,
    counts: {
      lesions: kept.length,
      truePositives: kept.filter((l) => l.matched.length > 0).length,
      falseNegatives: kept.filter((l) => l.matched.length === 0).length,
      falsePositives: falsePositives.length,
      leftOut: lesions.length - kept.length,
    },
    lesionWise: await lesionWiseMeans(kept, falsePositives, options, input.rule),
  };
}

/** Each metric's mean over the kept lesions and the false positives (Dice 0 for these); a match when there are none. */
async function lesionWiseMeans(kept: Lesion[], falsePositives: FalsePositive[], options: CompareOptions, rule: EmptyRule): Promise<[string, number][]> {
  const cases = [...kept.map((l) => ({ metrics: l.metrics, dice: l.dice })), ...falsePositives.map((f) => ({ metrics: f.metrics, dice: 0 }))];
  if (cases.length === 0) {
    const none = await measurePair({ a: new Float64Array(0), b: new Float64Array(0), surfels: null }, options, rule);
    return [...metricValues(none), ['dice', 1]];
  }
  const keys = metricValues(cases[0].metrics).map(([key]) => key);
  const sums = new Map<string, number>(keys.map((k) => [k, 0]));
  let dice = 0;
  for (const c of cases) {
    for (const [key, value] of metricValues(c.metrics)) sums.set(key, sums.get(key)! + value);
    dice += c.dice;
  }
  return [...keys.map((k): [string, number] => [k, sums.get(k)! / cases.length]), ['dice', dice / cases.length]];
}
