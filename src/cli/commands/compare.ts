// Registers `xhd compare A B`. What only some runs write (exports, heatmaps, histograms, HTML reports and
// snapshots, the label tables) is imported when asked for: a plain compare does not compile it at start-up.
import { Command, Option } from 'commander';

import { EXIT_THRESHOLD, UsageError } from '../../core/errors.js';
import { setExitStatus } from '../exit-status.js';
import { compareFiles, compareLabelFiles, wantsLabelVolumes } from '../../jobs/compare.js';
import { renderCompareCsv } from '../../report/compare-csv.js';
import { renderCompareJson } from '../../report/compare-json.js';
import { renderCompareText } from '../../report/compare-text.js';
import { formatCount, formatMs } from '../../report/format.js';
import { checkWritable } from '../../report/output-file.js';
import { DEFAULT_DISPLAY_POINTS, parseReportRange } from '../../report/html/report-range.js';
import { optionParser, parseIntegerOption } from '../option-parsers.js';
import { addMeasureOptions, measureOptions, type MeasureFlags } from './measure-options.js';
import { withInterrupts } from './interrupts.js';
import { addShardOptions, type ShardFlags } from './shard-options.js';
import { comparePartOptions, writeShardPart } from './compare-partial.js';

type CompareFlags = MeasureFlags & ShardFlags & {
  json: boolean; output?: 'text' | 'json' | 'csv'; csvHeader: boolean; export?: string; heatmap?: string; histogram: boolean;
  report?: string; reportRange?: [number, number]; reportPoints: number; snapshot?: string;
};

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
  $ xhd compare pred.nii.gz gt.nii.gz --labels all --nsd 1,2 --json   every label: HD, NSD at 1 and 2 mm
  $ xhd compare pred.nii.gz gt.nii.gz --components --percentile 95   lesion-wise HD95 (BraTS 2023 rule)
  $ xhd compare 2019.laz 2023.laz --classes 2 --returns last   two LiDAR epochs, ground only
  $ xhd compare site.e57 survey.las --scan 0 --export d.las   one E57 scan; distances as a LAS scalar field
  $ xhd compare scan.ply model.ply --report diff.html   one HTML page: 3D heatmap, worst regions, plots
  $ xhd compare a.laz b.laz --shard 1/4 --partial p1.part   shard 1's slice of each direction; xhd merge p*.part
`;

function outputFormat(flags: CompareFlags): 'text' | 'json' | 'csv' {
  if (flags.json && flags.output !== undefined && flags.output !== 'json') throw new UsageError(`--json and --output ${flags.output} ask for different outputs; give one`);
  if (flags.csvHeader && (flags.json || flags.output !== 'csv')) throw new UsageError('--csv-header goes with --output csv');
  return flags.json ? 'json' : flags.output ?? 'text';
}

/** Colours for stdout's text: chalk, and with it node:tty, loaded only for text output (JSON and CSV need neither). */
async function stdoutChalk() {
  return (await import('../terminal.js')).terminalChalk(process.stdout);
}

export function registerCompare(program: Command): void {
  const command = program
    .command('compare')
    .description('exact Hausdorff distance between two point sets, or between surfaces when an input is a mesh, on a GPU when present')
    .argument('<a>', 'first input (OFF, PLY, CSV/XYZ/TXT, STL, OBJ, NIfTI/NRRD/MetaImage/DICOM-SEG mask, LAS, LAZ, PCD, E57)')
    .argument('<b>', 'second input');
  addShardOptions(addMeasureOptions(command), "a slice of each direction's points, against the whole other set (with --partial)")
    .option('--json', 'print one JSON object (and nothing else) on stdout (--output json)', false)
    .addOption(new Option('--output <format>', 'text, json (one object), or csv (one line; see --csv-header)').choices(['text', 'json', 'csv']))
    .option('--csv-header', 'with --output csv: print the column names first', false)
    .option('--heatmap <file>', "surface mode: write A's samples with their distance to B (quality) and a colour as a PLY point cloud")
    .option('--histogram', 'surface mode: print a histogram of the distances on stderr', false)
    .option('--export <file>', 'write every point with its distance and nearest index: .csv, .ply, .bin, .las, .laz or .pcd (see README)')
    .option('--report <file.html>', 'write a self-contained HTML report: 3D view coloured by distance, worst regions, histograms, numbers')
    .option('--report-range <range>', "--report: the colour bar's distances, MAX or MIN,MAX (default 0 to the HD)", optionParser(parseReportRange))
    .option('--report-points <n>', '--report: points drawn per input at most; the largest distances are always among them', parseIntegerOption(1, 2 ** 31), DEFAULT_DISPLAY_POINTS)
    .option('--snapshot <file.png>', "write the report's 3D view as a PNG picture, rendered in headless Chromium (with or without --report)")
    .addHelpText('after', EXAMPLES)
    .action(async (a: string, b: string, flags: CompareFlags) => withInterrupts(async (signal) => {
      const shard = comparePartOptions(a, b, flags);
      if (shard) {
        const result = await compareFiles(a, b, { ...measureOptions(flags), shard, signal });
        await writeShardPart(a, b, flags, result, signal);
        return;
      }
      if (flags.heatmap !== undefined) checkWritable(flags.heatmap); // before the work, not after it
      const exporting = flags.export !== undefined ? await import('../../report/export-distances.js') : null;
      if (exporting) {
        exporting.exportFormat(flags.export!);
        checkWritable(flags.export!);
      }
      const drawing = flags.report !== undefined || flags.snapshot !== undefined;
      if (drawing) (await import('../../report/html/viewer-bundle.js')).checkViewerBuilt('compare');
      if (flags.report !== undefined) checkWritable(flags.report);
      if (flags.snapshot !== undefined) {
        checkWritable(flags.snapshot);
        await (await import('../../report/html/headless-chromium.js')).checkHeadless('--snapshot');
      }
      if (!drawing && flags.reportRange !== undefined) throw new UsageError('--report-range applies to --report and --snapshot; give one of them too');
      const options = {
        ...measureOptions(flags), heatmap: flags.heatmap, histogram: flags.histogram, export: flags.export,
        keepDistances: drawing, signal,
      };
      if (wantsLabelVolumes(options)) {
        const labels = await compareLabelFiles(a, b, options);
        const output = outputFormat(flags);
        process.stdout.write(output === 'json' ? (await import('../../report/labels-json.js')).renderLabelsJson(labels)
          : output === 'csv' ? (await import('../../report/labels-csv.js')).renderLabelsCsv(labels, flags.csvHeader)
          : (await import('../../report/labels-text.js')).renderLabelsText(labels, await stdoutChalk()));
        return;
      }
      const result = await compareFiles(a, b, options);
      const surface = result.surface;
      // The files are part of the work the total times.
      const writeStarted = performance.now();
      if (flags.heatmap !== undefined && surface) {
        const { writeHeatmapPly } = await import('../../report/heatmap-ply.js');
        await writeHeatmapPly(flags.heatmap, surface.queriesA, surface.distancesAb, result.a.dims, signal);
        const n = surface.distancesAb.length;
        result.notes.push(`A → B heatmap written to ${flags.heatmap} (${formatCount(n)} point${n === 1 ? '' : 's'})`);
      }
      if (exporting && result.perPoint) {
        result.notes.push(...await exporting.writeDistanceExport(flags.export!, result.perPoint, signal));
        const n = result.perPoint.ab.distances.length + (result.perPoint.ba?.distances.length ?? 0);
        result.notes.push(`per-point distances written to ${flags.export} (${formatCount(n)} row${n === 1 ? '' : 's'})`);
      }
      if (drawing) {
        // A snapshot photographs the report page: the one asked for, or one written only for the picture.
        const { scratchReportPath, writeSnapshot } = await import('../../report/html/snapshot.js');
        const { writeCompareReport } = await import('../../report/html/compare-html.js');
        const scratch = flags.report === undefined ? scratchReportPath() : undefined;
        const reportPath = flags.report ?? scratch!.path;
        try {
          const reportStarted = performance.now();
          const drawn = await writeCompareReport(reportPath, result, { range: flags.reportRange, displayPoints: flags.reportPoints, command: process.argv.slice(2) }, signal);
          if (flags.report !== undefined) {
            result.notes.push(`HTML report written to ${flags.report} (${formatCount(drawn.shown)} of ${formatCount(drawn.total)} points drawn; ${formatMs(performance.now() - reportStarted)})`);
          }
          if (flags.snapshot !== undefined) {
            const snapshotStarted = performance.now();
            await writeSnapshot(reportPath, flags.snapshot, signal);
            result.notes.push(`snapshot written to ${flags.snapshot} (headless Chromium; ${formatMs(performance.now() - snapshotStarted)})`);
          }
        } finally {
          scratch?.cleanup();
        }
      }
      result.timingsMs.total += performance.now() - writeStarted;
      const output = outputFormat(flags);
      process.stdout.write(output === 'json' ? renderCompareJson(result) : output === 'csv' ? renderCompareCsv(result, flags.csvHeader) : renderCompareText(result, await stdoutChalk()));
      if (flags.histogram && surface) process.stderr.write((await import('../../report/histogram.js')).renderHistograms(surface)); // stdout stays data
      if (result.threshold?.exceeded) setExitStatus(EXIT_THRESHOLD);
    }));
}
