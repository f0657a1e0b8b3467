// The options that say what `compare` measures and how; `batch` takes the same ones for every pair.
import { Command, Option } from 'commander';

import { optionParser, parseByteSize, parseColumns, parseDevices, parseFiniteNumber, parseIntegerOption, parseNonNegativeNumber, parsePercentile, parsePositiveNumber, parseTolerances, FORMATS } from '../option-parsers.js';
import { NSD_VARIANTS } from '../../metrics/surface-tolerance.js';
import { parseLabelSelection } from '../../jobs/label-selection.js';
import { parseBbox, parseClasses, RETURNS_FILTERS } from '../../io/point-filters.js';
import { pointFilters, type FilterFlags } from './filter-options.js';
import { ProgressBar } from '../progress-bar.js';
import type { CompareOptions } from '../../jobs/compare.js';
import { ASSD_VARIANTS, PERCENTILE_VARIANTS } from '../../metrics/distance-stats.js';
import { EMPTY_POLICIES } from '../../jobs/empty-policy.js';
import { BACKEND_CHOICES, METHODS } from '../../ops/hausdorff.js';
import { RELATIVE_BASES } from '../../metrics/relative.js';
import { SAMPLING_MODES } from '../../sampling/sample-mesh.js';
import { parseThreshold, THRESHOLD_METRICS } from '../../jobs/threshold.js';

/** The parsed measuring options, as commander hands them over. */
export type MeasureFlags = Omit<CompareOptions, 'signal' | 'mask' | 'filters' | 'progress' | 'connectivity'>
  & { quiet: boolean; label?: number; region?: 'surface' | 'all'; voxelSpace: boolean; connectivity?: string } & FilterFlags;

export function addMeasureOptions(command: Command): Command {
  return command
    .addOption(new Option('-m, --method <method>', 'algorithm').choices(METHODS).default('grid'))
    .option('-d, --directed', 'only the directed distance A → B', false)
    .addOption(new Option('--backend <backend>', 'compute backend').choices(BACKEND_CHOICES).default('auto'))
    .option('--device <n>', 'GPU ordinal for the CUDA backend (see xhd doctor)', parseIntegerOption(0, 1024))
    .option('--devices <list>', "CUDA backend, point compares: 'all' GPUs or ordinals 0,1,… sharing each direction's queries (an ordinal twice: two workers on it); same answers as one GPU", parseDevices)
    .option('--memory-limit <size>', 'device memory each GPU worker may use, e.g. 512M or 8G (default: what is free); a larger target is searched in tiles, exactly', parseByteSize)
    .option('-t, --threads <n>', 'CPU worker threads (default: all cores)', parseIntegerOption(1, 4096))
    .option('--seed <n>', 'seed of shuffles and samples (results do not depend on it)', parseIntegerOption(0))
    .addOption(new Option('--format <format>', 'read both inputs as this format; with - (standard input) as an input, that input alone').choices(FORMATS))
    .option('--columns <names>', 'CSV/XYZ columns for x,y[,z], by header name or 0-based index', parseColumns)
    .option('--label <n>', 'voxel masks: compare the voxels with this value (default: every nonzero voxel)', parseFiniteNumber)
    .addOption(new Option('--region <r>', 'voxel masks: surface (voxels with a 6-connected background neighbour, the default) or all voxels').choices(['surface', 'all']))
    .option('--voxel-space', 'voxel masks: voxel index coordinates instead of millimetres through the affine', false)
    .option('--classes <codes>', 'LAS/LAZ: keep the points of these classification codes, e.g. 2,6 (ground, building)', optionParser(parseClasses))
    .addOption(new Option('--returns <which>', 'LAS/LAZ: keep first returns (return number 1), last returns (return number = number of returns), or all').choices(RETURNS_FILTERS))
    .option('--bbox <box>', 'keep the points inside xmin,ymin,xmax,ymax or xmin,ymin,zmin,xmax,ymax,zmax (any format)', optionParser(parseBbox))
    .option('--every <n>', 'keep every Nth point (after the other filters) for a quick look (any format)', parseIntegerOption(1))
    .option('--scan <n>', 'E57: read only scan n (numbered from 0, as xhd info lists them) instead of every scan', parseIntegerOption(0))
    .option('--vertices-only', 'compare meshes by their vertices as point sets, not surface to surface', false)
    .addOption(new Option('--sampling <mode>', 'how meshes are sampled (default area)').choices(SAMPLING_MODES))
    .option('--samples <n>', 'samples per mesh (default: its vertex count, at least 100,000)', parseIntegerOption(1, 2 ** 31))
    .option('--density <d>', 'samples per unit area instead of a count', parsePositiveNumber)
    .option('--stats', "also every point's distance: mean per direction, ASSD, RMS, Chamfer", false)
    .option('--percentile <p>', 'percentile Hausdorff distance, e.g. 95 for HD95 (implies --stats)', parsePercentile)
    .addOption(new Option('--percentile-variant <v>', "max-of-directed: each direction's percentile, the larger (MONAI); pooled: both directions together (medpy)").choices(PERCENTILE_VARIANTS).default('max-of-directed'))
    .addOption(new Option('--assd-variant <v>', 'mean-of-means: the two directed means averaged; pooled: all distances averaged').choices(ASSD_VARIANTS).default('mean-of-means'))
    .option('--nsd <tau>', 'normalised surface distance (surface Dice) at tolerance tau (mm for masks); repeat or give a comma list for several', parseTolerances)
    .option('--fscore <tau>', 'boundary F-score (with precision and recall) at tolerance tau; repeat or give a comma list for several', parseTolerances)
    .addOption(new Option('--nsd-variant <v>', 'voxel: surface points count once (MONAI); surfel: weighted by surface-element area (DeepMind; masks)').choices(NSD_VARIANTS).default('voxel'))
    .option('--labels <list>', 'label masks: compare every label of all, a list 1,2,3, or ranges 1-5, in one read (one result per label)', optionParser(parseLabelSelection))
    .option('--components', "label masks: lesion-wise metrics per label (BraTS 2023 rule; B is the reference)", false)
    .addOption(new Option('--connectivity <n>', '--components: 6, 18 or 26-connected components').choices(['6', '18', '26']).default('26'))
    .option('--lesion-dilation <n>', "--components: dilate the reference's lesions by n voxels before matching (BraTS-GLI uses 3)", parseIntegerOption(0, 1000), 0)
    .option('--lesion-min-volume <mm3>', '--components: leave out reference lesions of at most this volume (BraTS-GLI uses 50)', parseNonNegativeNumber, 0)
    .option('--fail-above <t>', 'exit 1 when the metric exceeds t: a distance, or a percentage of the bounding-box diagonal (2%)', optionParser(parseThreshold))
    .addOption(new Option('--metric <m>', 'what --fail-above checks (hd95 and the averages measure every point)').choices(THRESHOLD_METRICS).default('hd'))
    .addOption(new Option('--empty <policy>', 'an input without points: error, or every distance nan, inf, or zero-or-diagonal (both empty 0, one empty the volume or bbox diagonal); default zero-or-diagonal for masks, error otherwise').choices(EMPTY_POLICIES))
    .addOption(new Option('--relative [diagonal]', 'also every distance as a percentage of a bounding-box diagonal: union (both inputs, the default), a or b').choices(RELATIVE_BASES).preset('union'))
    .option('-q, --quiet', 'no progress bar', false);
}

/** CompareOptions from the parsed flags (the mask options gathered in one object). */
export function measureOptions(flags: MeasureFlags): Omit<CompareOptions, 'signal'> {
  const { label, region, voxelSpace, classes, returns, bbox, every, scan, quiet, connectivity, ...rest } = flags;
  return {
    ...rest, connectivity: connectivity === undefined ? undefined : (Number(connectivity) as 6 | 18 | 26), mask: { label, region, voxelSpace }, filters: pointFilters({ classes, returns, bbox, every, scan }),
    progress: ProgressBar.factoryForStderr(quiet),
  };
}
