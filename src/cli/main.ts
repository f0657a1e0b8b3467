// The xhd executable: builds the commander program and maps every failure to one line and an exit code
// (0 ok, 2 usage or input error, 3 native or internal error; see README "Exit codes").
import { Command, CommanderError } from 'commander';

import { EXIT_NATIVE, EXIT_USAGE, XhdError } from '../core/errors.js';
import { exitStatus } from './exit-status.js';
import { printable } from './printable.js';
import { XHD_VERSION } from '../core/version.js';

type Register = (program: Command) => void;

// Each command's module is loaded only when that command runs (or for the full help): the modules bring
// the native library, the readers and the reports with them, which `xhd --version` need not pay for.
// In the order the help lists them.
const COMMANDS: Record<string, () => Promise<Register>> = {
  compare: async () => (await import('./commands/compare.js')).registerCompare,
  batch: async () => (await import('./commands/batch.js')).registerBatch,
  merge: async () => (await import('./commands/merge.js')).registerMerge,
  distance: async () => (await import('./commands/distance.js')).registerDistance,
  join: async () => (await import('./commands/join.js')).registerJoin,
  info: async () => (await import('./commands/info.js')).registerInfo,
  doctor: async () => (await import('./commands/doctor.js')).registerDoctor,
};

/**
 * The commands these arguments need: the one they name (their first word that is not an option: the program
 * itself takes no option with a value), none when they only ask for the version, and every one otherwise
 * (the help, a mistyped command and its suggestion).
 */
export function commandsFor(argv: string[]): string[] {
  const words = argv.slice(2);
  const first = words.find((w) => !w.startsWith('-'));
  if (first !== undefined && Object.hasOwn(COMMANDS, first)) return [first];
  if (first === undefined && words.length > 0 && words.every((w) => w === '-v' || w === '--version')) return [];
  return Object.keys(COMMANDS);
}

async function buildProgram(argv: string[]): Promise<Command> {
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
  $ xhd merge parts/*.part --json      a sharded run's parts put together (see --shard)
  $ xhd distance a.off b.off --both    minimum and maximum distance between two meshes
  $ xhd distance a.off b.off --frames poses.csv   the same for every pose of B in a file
  $ xhd join vessels/ nuclei/ --within 50   object pairs of two collections within 50, exact distances
  $ xhd info scan.ply                  what xhd reads from a file
  $ xhd doctor                         backends and GPUs available here`,
    );
  for (const name of commandsFor(argv)) (await COMMANDS[name]())(program);
  return program;
}

function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) {
    // commander has already printed its message (or the help / version text).
    return err.exitCode === 0 ? 0 : EXIT_USAGE;
  }
  if (err instanceof XhdError) {
    // Input and usage errors are one line; native ones may add the cause and the fix on lines of their own.
    process.stderr.write(`xhd: ${printable(err.message, err.exitCode === EXIT_NATIVE)}\n`);
    return err.exitCode;
  }
  const detail = err instanceof Error ? (process.env.XHD_DEBUG ? err.stack : err.message) : String(err);
  process.stderr.write(`xhd: internal error: ${printable(String(detail), true)}\n`);
  return EXIT_NATIVE;
}

export async function main(argv: string[]): Promise<number> {
  // A closed pipe (xhd … | head) is not an error worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  try {
    await (await buildProgram(argv)).parseAsync(argv);
    return exitStatus();
  } catch (err) {
    return exitCodeFor(err);
  }
}
