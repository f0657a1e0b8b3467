// `xhd compare A B --labels …` (and --components): two label volumes read once, every asked label's surface
// found in one pass over each volume, then each label measured as its own pair of surfaces (and, with
// --components, each lesion): one result with a entry per label.
import { UsageError } from '../core/errors.js';
import { warmUpCuda, type DeviceInfo } from '../ops/backends.js';
import { readVolume } from '../io/read-volume.js';
import { distinctLabels, labelSlots } from '../io/label-slots.js';
import { slotSurfaces, voxelCentres } from '../io/label-surfaces.js';
import { slotSurfels, type Surfels } from '../io/surfels.js';
import { spaceDifference, volumeDiagonal } from '../io/voxel-mask.js';
import type { VoxelVolume } from '../io/nifti.js';
import { checkToleranceOptions, wantsSurfelDistances } from './surface-metrics.js';
import { measurePair, type EmptyRule, type PairMetrics, type SearchInfo } from './mask-pair-metrics.js';
import { lesionWise, type LesionReport } from './lesion-wise.js';
import type { CompareOptions } from './compare-result.js';

export interface VolumeSummary {
  path: string;
  dims: [number, number, number];
  spacing: [number, number, number];
  /** The nonzero values it holds, ascending. */
  labelsPresent: number[];
}

export interface LabelResult extends PairMetrics {
  /** The label's value as a string ("3"), or "foreground" for every nonzero voxel. */
  label: string;
  voxels: { a: number; b: number };
  /** With --components: the lesion-wise evaluation of this label. */
  lesions: LesionReport | null;
}

export interface LabelsResult {
  mode: 'labels';
  a: VolumeSummary;
  b: VolumeSummary;
  labels: LabelResult[];
  /** True when some asked label is in neither volume (measured by the empty policy). */
  labelInNeither: boolean;
  directed: boolean;
  method: string;
  backend: string;
  threads: number;
  device: DeviceInfo | null;
  timingsMs: { read: number; surfaces: number; measure: number; total: number };
  notes: string[];
}

/** Whether these options ask for the label-volume comparison rather than one mask's points. */
export function wantsLabelVolumes(options: CompareOptions): boolean {
  return options.labels !== undefined || options.components === true;
}

export async function compareLabelFiles(pathA: string, pathB: string, options: CompareOptions): Promise<LabelsResult> {
  const started = performance.now();
  checkLabelOptions(options);
  const mayUseCuda = options.backend !== 'cpu' && options.method !== 'brute';
  const warming = mayUseCuda ? warmUpCuda(options.device ?? 0) : Promise.resolve();
  const option = options.labels !== undefined ? '--labels' : '--components';
  // Inflated off the main thread, which `xhd batch` lanes share.
  const volumeA = await readVolume(pathA, options.format, option);
  const volumeB = await readVolume(pathB, options.format, option);
  const readMs = performance.now() - started;
  await warming;

  const presentA = distinctLabels(volumeA.values), presentB = distinctLabels(volumeB.values);
  const asked = askedLabels(options, presentA, presentB);
  const inNeither = asked.values === 'nonzero' ? [] : asked.values.filter((v) => !presentA.includes(v) && !presentB.includes(v));
  if (inNeither.length > 0 && options.empty === undefined && options.labelInNeither !== 'empty-policy') {
    throw new UsageError(`label${inNeither.length === 1 ? '' : 's'} ${inNeither.join(', ')} ${inNeither.length === 1 ? 'is' : 'are'} in neither mask `
      + `(${pathA} has ${describeLabels(presentA)}; ${pathB} has ${describeLabels(presentB)}); give --empty zero-or-diagonal to report ${inNeither.length === 1 ? 'it' : 'them'} as a match (0) anyway`);
  }

  const surfacesStarted = performance.now();
  const count = asked.names.length;
  const region = options.mask?.region ?? 'surface';
  const side = (volume: VoxelVolume) => {
    const slots = labelSlots(volume.values, asked.values);
    const surfaces = slotSurfaces(slots, volume.dims, count, region);
    const affine = options.mask?.voxelSpace ? Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0) : volume.affine;
    const surfels: Surfels[] | null = wantsSurfelDistances(options) ? slotSurfels(slots, volume.dims, count, volume.affine, options.mask?.voxelSpace) : null;
    return { slots, surfaces, affine, surfels };
  };
  const a = side(volumeA), b = side(volumeB);
  const surfacesMs = performance.now() - surfacesStarted;

  const diagonal = Math.max(volumeDiagonal(volumeA), volumeDiagonal(volumeB));
  let info: SearchInfo | null = null;
  const onSearch = (found: SearchInfo) => { info ??= found; };
  const measureStarted = performance.now();
  const labels: LabelResult[] = [];
  for (let s = 0; s < count; s++) {
    const name = asked.names[s];
    const rule: EmptyRule = {
      policy: options.empty, diagonal,
      describe: (which) => ({ file: which === 'a' ? pathA : pathB, what: name === 'foreground' ? 'the mask' : `label ${name}` }),
    };
    const metrics = await measurePair({
      a: voxelCentres(a.surfaces.surface[s], volumeA.dims, a.affine),
      b: voxelCentres(b.surfaces.surface[s], volumeB.dims, b.affine),
      surfels: a.surfels && b.surfels ? { a: a.surfels[s], b: b.surfels[s] } : null,
    }, options, rule, onSearch);
    const lesions = options.components ? await lesionWise({
      slot: s + 1, dims: volumeA.dims, dimsB: volumeB.dims, slotsA: a.slots, slotsB: b.slots,
      surfaceA: a.surfaces.surface[s], surfaceB: b.surfaces.surface[s], affineA: a.affine, affineB: b.affine,
      voxelVolume: Math.abs(determinant(volumeB.affine)), rule,
    }, options, onSearch) : null;
    labels.push({ label: name, ...metrics, voxels: { a: a.surfaces.voxels[s], b: b.surfaces.voxels[s] }, lesions });
  }
  const measureMs = performance.now() - measureStarted;

  const notes: string[] = [];
  const difference = spaceDifference(volumeA, volumeB);
  if (difference) notes.push(`warning: the two masks do not occupy the same physical space: ${difference}`);
  notes.push(...volumeA.notes.map((n) => `A: ${n}`), ...volumeB.notes.map((n) => `B: ${n}`));
  if (inNeither.length > 0) notes.push(`label${inNeither.length === 1 ? '' : 's'} ${inNeither.join(', ')} in neither mask: measured by --empty ${options.empty ?? 'zero-or-diagonal'}`);
  if (count === 0) notes.push('neither mask has a nonzero voxel: no labels to compare');
  const used = info as SearchInfo | null;
  return {
    mode: 'labels',
    a: summary(pathA, volumeA, presentA),
    b: summary(pathB, volumeB, presentB),
    labels,
    labelInNeither: inNeither.length > 0,
    directed: options.directed,
    method: used?.method ?? options.method,
    backend: used?.backend ?? 'none',
    threads: used?.threads ?? 0,
    device: used?.device ?? null,
    timingsMs: { read: readMs, surfaces: surfacesMs, measure: measureMs, total: performance.now() - started },
    notes,
  };
}

function checkLabelOptions(options: CompareOptions): void {
  checkToleranceOptions(options);
  if (options.labels !== undefined && options.mask?.label !== undefined) throw new UsageError('--label and --labels both choose labels; give one');
  const unsupported: [boolean, string][] = [
    [options.failAbove !== undefined, '--fail-above'], [options.export !== undefined, '--export'],
    [options.keepDistances === true, '--report and --snapshot'], [options.heatmap !== undefined, '--heatmap'], [options.histogram === true, '--histogram'],
  ];
  for (const [given, name] of unsupported) {
    if (given) throw new UsageError(`${name} measures one pair of inputs; with ${options.labels !== undefined ? '--labels' : '--components'} compare one label at a time (--label L)`);
  }
  if (options.components && wantsSurfelDistances(options)) {
    throw new UsageError('--components measures lesions by their surface voxels; the surfel variants do not apply to it');
  }
}

/** The labels to measure, each with its slot's name: the list given, every label present, or one foreground. */
function askedLabels(options: CompareOptions, presentA: number[], presentB: number[]): { values: number[] | 'nonzero'; names: string[] } {
  const selection = options.labels;
  if (selection === undefined) {
    // --components alone: the --label asked for, else every nonzero voxel as one mask.
    const label = options.mask?.label;
    return label === undefined ? { values: 'nonzero', names: ['foreground'] } : { values: [label], names: [String(label)] };
  }
  const values = selection === 'all' ? [...new Set([...presentA, ...presentB])].sort((x, y) => x - y) : selection;
  return { values, names: values.map(String) };
}

function describeLabels(labels: number[]): string {
  if (labels.length === 0) return 'no nonzero voxels';
  const shown = labels.slice(0, 20).join(', ');
  return `label${labels.length === 1 ? '' : 's'} ${shown}${labels.length > 20 ? `, … (${labels.length} in all)` : ''}`;
}

function summary(path: string, v: VoxelVolume, labelsPresent: number[]): VolumeSummary {
  return { path, dims: v.dims, spacing: v.spacing, labelsPresent };
}

function determinant(m: Float64Array): number {
  return m[0] * (m[5] * m[10] - m[6] * m[9]) - m[1] * (m[4] * m[10] - m[6] * m[8]) + m[2] * (m[4] * m[9] - m[5] * m[8]);
}
