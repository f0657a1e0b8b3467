// Registers `xhd distance A B`.
import { Command, InvalidArgumentError, Option } from 'commander';

import { FORMATS, optionParser, parseColumns, parseIntegerOption } from '../option-parsers.js';
import { distanceFiles, type DistanceOptions } from '../../jobs/distance.js';
import { BACKEND_CHOICES } from '../../ops/hausdorff.js';
import { DISTANCE_METHODS, type Pose } from '../../ops/mesh-distance.js';
import { composePose, parseMatrix4, parseRotation, parseTranslation, PoseSyntaxError, type Matrix3, type Vector3 } from '../../core/pose.js';
import { renderDistanceJson } from '../../report/distance-json.js';
import { renderDistanceNotes, renderDistanceText } from '../../report/distance-text.js';
import { terminalChalk } from '../terminal.js';
import { withInterrupts } from './interrupts.js';
import { writeDistanceReport } from '../../report/html/distance-html.js';
import { checkViewerBuilt } from '../../report/html/viewer-bundle.js';
import { checkWritable } from '../../report/output-file.js';
import { ProgressBar } from '../progress-bar.js';

interface DistanceFlags extends Omit<DistanceOptions, 'min' | 'max' | 'pose' | 'signal' | 'progress'> {
  quiet: boolean;
  min?: boolean;
  max?: boolean;
  both?: boolean;
  json: boolean;
  transformB?: Pose;
  translate?: Vector3;
  rotate?: Matrix3;
  report?: string;
}

const EXAMPLES = `
Examples:
  $ xhd distance part.off fixture.off              minimum distance (separation) and its closest pair
  $ xhd distance a.ply b.ply --both --json         minimum and maximum (spanning) distance as JSON
  $ xhd distance a.off b.off --translate 0,0,2 --rotate z,30   B rotated 30° about z, then moved up 2
  $ xhd distance a.off b.off --rotate 1,1,0,45     about the axis (1,1,0) through the origin
  $ xhd distance a.off b.off --transform-b 1,0,0,0,0,1,0,0,0,0,1,2,0,0,0,1
  $ xhd distance robot.off part.off --frames poses.csv   every pose of B, one hierarchy build
  $ xhd distance a.off b.off --method brute        double-precision reference over every triangle pair
  $ xhd distance a.off b.off --penetration         closed meshes: do the solids overlap, and how deep

Poses map each point p of B to R p + t. A frames file has one pose a line: 7 numbers tx,ty,tz,qw,qx,qy,qz,
12 (a 3×4 matrix [M | t], row by row) or 16 (a 4×4 matrix, last row 0,0,0,1).
`;

/** Turns a pose parser into a commander option parser, so a bad value is a usage error naming the option. */
function poseOf(flags: DistanceFlags): Pose | undefined {
  if (flags.transformB) return flags.transformB;
  if (flags.translate || flags.rotate) return composePose(flags.rotate, flags.translate);
  return undefined;
}

export function registerDistance(program: Command): void {
  program
    .command('distance')
    .description('exact minimum (separation) and maximum (spanning) distance between two triangle meshes, with the realizing pair')
    .argument('<a>', 'first input (OFF, PLY, STL, OBJ; a file without faces, such as CSV or XYZ, is a point cloud)')
    .argument('<b>', 'second input, the one posed by --transform-b, --translate, --rotate or --frames')
    .option('--min', 'the minimum distance (the default)')
    .option('--max', 'the maximum distance')
    .option('--both', 'the minimum and the maximum distance')
    .option('--contacts', 'when the meshes intersect, count every intersecting triangle pair and bound where they meet (CPU backend)')
    .option('--penetration', 'for closed meshes: whether the solids overlap, and lower and upper bounds on how far B must move to part them (CPU backend)')
    .addOption(new Option('-m, --method <method>', 'algorithm').choices(DISTANCE_METHODS).default('bvh'))
    .option('--json', 'print one JSON object (and nothing else) on stdout', false)
    .addOption(new Option('--backend <backend>', 'compute backend').choices(BACKEND_CHOICES).default('auto'))
    .option('--device <n>', 'GPU ordinal for the CUDA backend (see xhd doctor)', parseIntegerOption(0, 1024))
    .option('-t, --threads <n>', 'CPU worker threads (default: all cores)', parseIntegerOption(1, 4096))
    .addOption(new Option('--format <format>', 'read both inputs as this format').choices(FORMATS))
    .option('--columns <names>', 'CSV/XYZ columns for x,y[,z], by header name or 0-based index', parseColumns)
    .addOption(new Option('--transform-b <matrix>', 'pose of B: a 4×4 matrix as 16 comma-separated numbers, row by row')
      .argParser(optionParser(parseMatrix4)).conflicts(['translate', 'rotate']))
    .addOption(new Option('--translate <x,y,z>', 'pose of B: move it by (x, y, z), after --rotate').argParser(optionParser(parseTranslation)))
    .addOption(new Option('--rotate <axis,deg>', 'pose of B: rotate it by deg degrees about x, y, z or ax,ay,az through the origin')
      .argParser(optionParser(parseRotation)))
    .addOption(new Option('--frames <file>', 'evaluate every pose of B in this file (7, 12 or 16 numbers a line)')
      .conflicts(['transformB', 'translate', 'rotate']))
    .option('-q, --quiet', 'no progress bar', false)
    .option('--report <file.html>', 'also write a self-contained HTML page: the distance (and time) per frame plotted, each frame\'s pairs')
    .addHelpText('after', EXAMPLES)
    .action(async (a: string, b: string, flags: DistanceFlags) => {
      const both = flags.both || (flags.min && flags.max);
      const max = both || flags.max === true;
      const min = both || !max;
      if (flags.report !== undefined) {
        checkViewerBuilt('distance');
        checkWritable(flags.report); // before the work, not after it
      }
      await withInterrupts(async (signal) => {
        const { report, ...options } = flags;
        const result = await distanceFiles(a, b, {
          ...options, min: min === true, max: max === true, pose: poseOf(flags), signal, progress: ProgressBar.factoryForStderr(flags.quiet),
          keepMeshes: report !== undefined,
        });
        if (report !== undefined) await writeDistanceReport(report, result, process.argv.slice(2), signal);
        if (flags.json) {
          process.stdout.write(renderDistanceJson(result));
        } else {
          process.stderr.write(renderDistanceNotes(result, terminalChalk(process.stderr)));
          process.stdout.write(renderDistanceText(result, terminalChalk(process.stdout)));
        }
      });
    });
}
