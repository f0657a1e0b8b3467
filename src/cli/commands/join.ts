// Registers `xhd join A B --intersects | --within D | --knn K`.
import { Command, InvalidArgumentError, Option } from 'commander';

import { parseIntegerOption } from '../option-parsers.js';
import { joinFiles } from '../../jobs/join.js';
import { BACKEND_CHOICES } from '../../ops/hausdorff.js';
import { JOIN_METHODS, type JoinMethod, type JoinPredicate } from '../../ops/join.js';
import { UsageError } from '../../core/errors.js';
import { joinCsvHeader, renderJoinRows, renderJoinSummary, type JoinOutputFormat } from '../../report/join-output.js';
import { withInterrupts } from './interrupts.js';
import { ProgressBar } from '../progress-bar.js';
import type { BackendChoice } from '../../ops/backends.js';
import type { ObjectSplit } from '../../io/join-collection.js';

interface JoinFlags {
  intersects?: boolean;
  within?: number;
  knn?: number;
  output: JoinOutputFormat;
  count: boolean;
  objects: ObjectSplit;
  method: JoinMethod;
  backend: BackendChoice;
  device?: number;
  threads?: number;
  groupSize?: number;
  quiet: boolean;
}

const EXAMPLES = `
Examples:
  $ xhd join vessels/ nuclei/ --within 50          pairs of objects at most 50 apart, with their distance
  $ xhd join parts.obj parts.obj --intersects      self-join: which connected components touch or cross
  $ xhd join a.csv b.jsonl --knn 10 --output json  each object of A's 10 nearest of B, as JSON Lines
  $ xhd join cells.off cells.off --within 5 --count

A collection is a directory of mesh files (one object each, id = file name without extension), a manifest
(.csv with a header naming a path column and optionally an id column, or .jsonl of {"path": …, "id": …}),
or one mesh file whose connected components (--objects components, ids name#0, name#1, …) or OBJ o/g groups
(--objects groups, ids name#group) are the objects. The same collection on both sides is a self-join.
`;

function parseDistance(value: string): number {
  const n = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`expected a distance >= 0, got '${value}'`);
  return n;
}

function parseK(value: string): number {
  const n = Number(value.trim());
  if (!/^[+-]?\d+$/.test(value.trim()) || n < 1 || n > 2 ** 32 - 1) throw new InvalidArgumentError(`expected an integer k >= 1, got '${value}'`);
  return n;
}

function predicateOf(flags: JoinFlags): JoinPredicate {
  const given = [flags.intersects === true, flags.within !== undefined, flags.knn !== undefined].filter(Boolean).length;
  if (given !== 1) throw new UsageError('give exactly one of --intersects, --within D or --knn K');
  if (flags.intersects) return { kind: 'intersects' };
  if (flags.within !== undefined) return { kind: 'within', distance: flags.within };
  return { kind: 'knn', k: flags.knn! };
}

export function registerJoin(program: Command): void {
  program
    .command('join')
    .description('spatial join of two collections of meshes: intersecting pairs, pairs within a distance, or k nearest, with exact distances')
    .argument('<a>', 'first collection: a directory, a manifest (.csv, .jsonl) or a multi-object mesh file')
    .argument('<b>', 'second collection (the same as A for a self-join)')
    .option('--intersects', 'pairs whose surfaces share a point (cross or touch)')
    .option('--within <d>', 'pairs whose surfaces are at most d apart', parseDistance)
    .option('--knn <k>', 'for each object of A, its k nearest objects of B (ties to the smaller id)', parseK)
    .addOption(new Option('--output <format>', 'result lines: csv (with a header) or json (JSON Lines)').choices(['csv', 'json']).default('csv'))
    .option('--count', 'only count the pairs (prints the number)', false)
    .addOption(new Option('--objects <split>', 'how a single mesh file splits into objects').choices(['components', 'groups']).default('components'))
    .addOption(new Option('-m, --method <method>', 'filtered (default) or brute: every triangle pair, the CPU reference').choices(JOIN_METHODS).default('filtered'))
    .addOption(new Option('--backend <backend>', 'compute backend').choices(BACKEND_CHOICES).default('auto'))
    .option('--device <n>', 'GPU ordinal for the CUDA backend (see xhd doctor)', parseIntegerOption(0, 1024))
    .option('-t, --threads <n>', 'CPU worker threads (default: all cores)', parseIntegerOption(1, 4096))
    .option('--group-size <n>', 'triangles per facet group (default 32)', parseIntegerOption(1, 1 << 20))
    .option('-q, --quiet', 'no progress bar and no summary', false)
    .addHelpText('after', EXAMPLES)
    .action(async (a: string, b: string, flags: JoinFlags) => {
      const predicate = predicateOf(flags);
      const intersects = predicate.kind === 'intersects';
      await withInterrupts(async (signal) => {
        let headerWritten = false;
        const summary = await joinFiles(a, b, {
          predicate, objects: flags.objects, method: flags.method, backend: flags.backend, device: flags.device, threads: flags.threads,
          groupSize: flags.groupSize, countOnly: flags.count, signal, progress: ProgressBar.factoryForStderr(flags.quiet),
        }, (rows) => {
          let text = renderJoinRows(rows, flags.output, intersects);
          if (!headerWritten && flags.output === 'csv') text = joinCsvHeader(intersects) + text;
          headerWritten = true;
          process.stdout.write(text);
        });
        if (flags.count) process.stdout.write(`${summary.pairs}\n`);
        else if (!headerWritten && flags.output === 'csv') process.stdout.write(joinCsvHeader(intersects));
        if (!flags.quiet) process.stderr.write(renderJoinSummary(summary));
      });
    });
}
