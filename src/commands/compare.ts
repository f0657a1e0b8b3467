// Registers `xhd compare A B`.
import { Command, Option } from 'commander';

import { parseColumns, parseFiniteNumber, parseIntegerOption, parsePercentile, parsePositiveNumber, FORMATS } from '../cli-options.js';
import { ASSD_VARIANTS, PERCENTILE_VARIANTS } from '../metrics/distance-stats.js';
import { EXIT_THRESHOLD } from '../errors.js';
import { setExitStatus } from '../exit-status.js';
import { parseThreshold, THRESHOLD_METRICS } from '../threshold.js';
import { compareFiles, type CompareOptions } from '../compare.js';
import { BACKEND_CHOICES, METHODS } from '../hausdorff.js';
import { renderCompareJson } from '../report/compare-json.js';
import { renderCompareText } from '../report/compare-text.js';
import { formatCount } from '../report/format.js';
import { writeHeatmapPly } from '../report/heatmap-ply.js';
import { renderHistograms } from '../report/histogram.js';
import { checkWritable } from '../report/output-file.js';
import { SAMPLING_MODES } from '../sampling/sample-mesh.js';
import { terminalChalk } from '../terminal.js';

type CompareFlags = Omit<CompareOptions, 'signal'> & { json: boolean; label?: number; region: 'surface' | 'all'; voxelSpace: boolean };

const EXAMPLES = `
Examples:
  $ xhd compare scan.ply model.ply                 symmetric HD with witnesses and timings
  $ xhd compare a.xyz b.xyz --directed             only A → B
  $ xhd compare a.csv b.csv --columns x,y,z --json | jq .hd
  $ xhd compare a.off b.off --method brute         double-precision reference (slow, for checks)
  $ xhd compare a.ply b.ply --backend cpu          stay on the CPU even where a GPU is present
  $ xhd compare scan.off model.off --samples 1000000   meshes: surface to surface, 1M samples each
  $ xhd compare a.off b.off --vertices-only        meshes compared by their vertices only
  $ xhd compare scan.off model.off --heatmap d.ply   A's samples coloured by distance (open in MeshLab)
  $ xhd compare a.off b.off --json --histogram     JSON on stdout, distance histograms on stderr
  $ xhd compare a.xyz b.xyz --percentile 95        HD95, ASSD, RMS and Chamfer beside the exact HD
  $ xhd compare scan.ply ref.ply --fail-above 1%   exit 1 when HD exceeds 1% of the bbox diagonal
  $ xhd compare a.nii.gz b.nii.gz --fail-above 2 --metric hd95   a CI check on HD95 (mm)
`;

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('exact Hausdorff distance between two point sets, or between surfaces when an input is a mesh, on a GPU when present')
    .argument('<a>', 'first input (OFF, PLY, CSV/XYZ/TXT, STL, OBJ, NIfTI .nii/.nii.gz mask)')
    .argument('<b>', 'second input')
    .addOption(new Option('-m, --method <method>', 'algorithm').choices(METHODS).default('grid'))
    .option('-d, --directed', 'only the directed distance A → B', false)
    .option('--json', 'print one JSON object (and nothing else) on stdout', false)
    .addOption(new Option('--backend <backend>', 'compute backend').choices(BACKEND_CHOICES).default('auto'))
    .option('--device <n>', 'GPU ordinal for the CUDA backend (see xhd doctor)', parseIntegerOption(0, 1024))
    .option('-t, --threads <n>', 'CPU worker threads (default: all cores)', parseIntegerOption(1, 4096))
    .option('--seed <n>', 'seed of shuffles and samples (results do not depend on it)', parseIntegerOption(0))
    .addOption(new Option('--format <format>', 'read both inputs as this format').choices(FORMATS))
    .option('--columns <names>', 'CSV/XYZ columns for x,y[,z], by header name or 0-based index', parseColumns)
    .option('--label <n>', 'NIfTI masks: compare the voxels with this value (default: every nonzero voxel)', parseFiniteNumber)
    .addOption(new Option('--region <r>', 'NIfTI masks: surface (voxels with a 6-connected background neighbour) or all voxels').choices(['surface', 'all']).default('surface'))
    .option('--voxel-space', 'NIfTI masks: voxel index coordinates instead of millimetres through the affine', false)
    .option('--vertices-only', 'compare meshes by their vertices as point sets, not surface to surface', false)
    .addOption(new Option('--sampling <mode>', 'how meshes are sampled (default area)').choices(SAMPLING_MODES))
    .option('--samples <n>', 'samples per mesh (default: its vertex count, at least 100,000)', parseIntegerOption(1, 2 ** 31))
    .option('--density <d>', 'samples per unit area instead of a count', parsePositiveNumber)
    .option('--heatmap <file>', "surface mode: write A's samples with their distance to B (quality) and a colour as a PLY point cloud")
    .option('--histogram', 'surface mode: print a histogram of the distances on stderr', false)
    .option('--stats', 'also every point\'s distance: mean per direction, ASSD, RMS, Chamfer', false)
    .option('--percentile <p>', 'percentile Hausdorff distance, e.g. 95 for HD95 (implies --stats)', parsePercentile)
    .addOption(new Option('--percentile-variant <v>', 'max-of-directed: each direction\'s percentile, the larger (MONAI); pooled: both directions together (medpy)').choices(PERCENTILE_VARIANTS).default('max-of-directed'))
    .addOption(new Option('--assd-variant <v>', 'mean-of-means: the two directed means averaged; pooled: all distances averaged').choices(ASSD_VARIANTS).default('mean-of-means'))
    .option('--fail-above <t>', 'exit 1 when the metric exceeds t: a distance, or a percentage of the bounding-box diagonal (2%)', parseThreshold)
    .addOption(new Option('--metric <m>', 'what --fail-above checks (hd95 and the averages measure every point)').choices(THRESHOLD_METRICS).default('hd'))
    .option('-q, --quiet', 'no progress bar', false)
    .addHelpText('after', EXAMPLES)
    .action(async (a: string, b: string, flags: CompareFlags) => {
      const abort = new AbortController();
      const onInterrupt = () => abort.abort();
      process.once('SIGINT', onInterrupt);
      try {
        if (flags.heatmap !== undefined) checkWritable(flags.heatmap); // before the work, not after it
        const mask = { label: flags.label, region: flags.region, voxelSpace: flags.voxelSpace };
        const result = await compareFiles(a, b, { ...flags, mask, signal: abort.signal });
        const surface = result.surface;
        if (flags.heatmap !== undefined && surface) {
          writeHeatmapPly(flags.heatmap, surface.queriesA, surface.distancesAb, result.a.dims);
          const n = surface.distancesAb.length;
          result.notes.push(`A → B heatmap written to ${flags.heatmap} (${formatCount(n)} point${n === 1 ? '' : 's'})`);
        }
        process.stdout.write(flags.json ? renderCompareJson(result) : renderCompareText(result, terminalChalk(process.stdout)));
        if (flags.histogram && surface) process.stderr.write(renderHistograms(surface)); // stdout stays data
        if (result.threshold?.exceeded) setExitStatus(EXIT_THRESHOLD);
      } finally {
        process.off('SIGINT', onInterrupt);
      }
    });
}
