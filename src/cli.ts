// The xhd executable: builds the commander program and maps every failure to one line and an exit code
// (0 ok, 2 usage or input error, 3 native or internal error; see README "Exit codes").
import { Command, CommanderError } from 'commander';

import { registerBatch } from './commands/batch.js';
import { registerCompare } from './commands/compare.js';
import { registerDistance } from './commands/distance.js';
import { registerDoctor } from './commands/doctor.js';
import { registerInfo } from './commands/info.js';
import { EXIT_NATIVE, EXIT_USAGE, XhdError } from './errors.js';
import { exitStatus } from './exit-status.js';
import { XHD_VERSION } from './version.js';

function buildProgram(): Command {
  const program = new Command();
  program
    .name('xhd')
    .description('Exact Hausdorff distance between point clouds and meshes, and exact distances between meshes.')
    .version(XHD_VERSION, '-v, --version', 'print the version')
    .exitOverride()
    .showSuggestionAfterError()
    .addHelpText(
      'after',
      `
Examples:
  $ xhd compare a.ply b.ply            exact symmetric Hausdorff distance
  $ xhd compare a.ply b.ply --json     the same as one JSON object
  $ xhd batch pairs.csv                every pair listed in a manifest, one JSON line each
  $ xhd distance a.off b.off --both    minimum and maximum distance between two meshes
  $ xhd distance a.off b.off --frames poses.csv   the same for every pose of B in a file
  $ xhd info scan.ply                  what xhd reads from a file
  $ xhd doctor                         backends and GPUs available here`,
    );
  registerCompare(program);
  registerBatch(program);
  registerDistance(program);
  registerInfo(program);
  registerDoctor(program);
  return program;
}

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // commander has already printed its message (or the help / version text).
    return err.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  if (err instanceof XhdError) {
    process.stderr.write(`xhd: ${err.message}\n`);
    return err.exitCode;
  }
  const detail = err instanceof Error ? (process.env.XHD_DEBUG ? err.stack : err.message) : String(err);
  process.stderr.write(`xhd: internal error: ${detail}\n`);
  return EXIT_NATIVE;
}

export async function main(argv: string[]): Promise<number> {
  // A closed pipe (xhd … | head) is not an error worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  try {
    await buildProgram().parseAsync(argv);
    return exitStatus();
  } catch (err) {
    return exitCodeFor(err);
  }
}
