// Registers `xhd merge PARTS…`: the shards of one sharded run put back together, printed as the unsharded
// command prints: compare parts as `xhd compare` (text, --json or --output csv), batch outputs as one JSON
// Lines stream with one summary. Parts of other runs, a shard given twice, a missing or failed shard: exit 2.
import { closeSync, openSync, readSync } from 'node:fs';
import { Command, Option } from 'commander';

import { EXIT_THRESHOLD, InputError, UsageError } from '../../core/errors.js';
import { setExitStatus } from '../exit-status.js';
import { mergeCompareParts } from '../../jobs/compare-merge.js';
import { checkParts, type PartIdentity } from '../../jobs/merge-check.js';
import { looksLikeComparePart, readComparePart } from '../../report/compare-part-file.js';
import { mergeBatchParts, readBatchPart } from '../../report/batch-merge.js';
import { renderCompareCsv } from '../../report/compare-csv.js';
import { renderCompareJson } from '../../report/compare-json.js';
import { renderCompareText } from '../../report/compare-text.js';
import { terminalChalk } from '../terminal.js';
import { countOf } from '../../core/counts.js';

type MergeFlags = { json: boolean; output?: 'text' | 'json' | 'csv'; csvHeader: boolean; quiet: boolean };

const EXAMPLES = `
Examples:
  $ xhd merge parts/compare-*.part --json          the pair's answer, as xhd compare --json prints it
  $ xhd merge parts/batch-*.jsonl > results.jsonl  one JSON Lines stream in manifest order, one summary

Compare parts come from \`xhd compare A B --shard I/N --partial FILE\`, batch outputs from
\`xhd batch MANIFEST --shard I/N [--partial FILE]\` (or the same in a Slurm job array without --shard).
Every shard 0 to N-1 of one run must be given once; the exit code is the unsharded command's.
`;

/** The first bytes of a file, to tell a compare part from a batch output. */
function firstBytes(file: string): Buffer {
  const head = Buffer.alloc(8);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(file, {}, code === 'ENOENT' ? 'no such file' : `cannot read: ${(error as Error).message}`);
  }
  try {
    const n = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, n);
  } catch (error) {
    throw new InputError(file, {}, (error as NodeJS.ErrnoException).code === 'EISDIR' ? 'is a directory' : `cannot read: ${(error as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

function outputFormat(flags: MergeFlags): 'text' | 'json' | 'csv' {
  if (flags.json && flags.output !== undefined && flags.output !== 'json') throw new UsageError(`--json and --output ${flags.output} ask for different outputs; give one`);
  if (flags.csvHeader && (flags.json || flags.output !== 'csv')) throw new UsageError('--csv-header goes with --output csv');
  return flags.json ? 'json' : flags.output ?? 'text';
}

export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description("put a sharded run's parts together: compare parts into the pair's answer, batch shard outputs into one JSON Lines stream")
    .argument('<parts...>', 'every shard\'s part (compare) or output (batch) of one run')
    .option('--json', 'compare parts: print one JSON object, as xhd compare --json', false)
    .addOption(new Option('--output <format>', 'compare parts: text, json or csv, as xhd compare').choices(['text', 'json', 'csv']))
    .option('--csv-header', 'with --output csv: print the column names first', false)
    .option('-q, --quiet', 'batch outputs: no summary line on stderr', false)
    .addHelpText('after', EXAMPLES)
    .action(async (files: string[], flags: MergeFlags) => {
      const output = outputFormat(flags);
      const compareParts = files.filter((f) => looksLikeComparePart(firstBytes(f)));
      if (compareParts.length > 0 && compareParts.length < files.length) {
        const other = files.find((f) => !compareParts.includes(f))!;
        throw new UsageError(`${compareParts[0]} is a compare part but ${other} is not; merge the parts of one run`);
      }
      if (compareParts.length > 0) {
        const parts = compareParts.map(readComparePart);
        checkParts(parts.map((p): PartIdentity => ({ file: p.file, kind: 'compare', runId: p.runId, shard: p.result.shardPart.shard })));
        const result = mergeCompareParts(parts);
        process.stdout.write(output === 'json' ? renderCompareJson(result) : output === 'csv' ? renderCompareCsv(result, flags.csvHeader) : renderCompareText(result, terminalChalk(process.stdout)));
        if (result.threshold?.exceeded) setExitStatus(EXIT_THRESHOLD);
        return;
      }
      if (output !== 'text' || flags.csvHeader) throw new UsageError('--json, --output and --csv-header apply to compare parts; batch outputs merge into JSON Lines');
      const parts = files.map((f) => readBatchPart(f));
      checkParts(parts.map((p) => p.identity));
      const merged = mergeBatchParts(parts);
      for (const pair of merged.pairs) process.stdout.write(JSON.stringify(pair) + '\n');
      process.stdout.write(JSON.stringify({ summary: merged.summary }) + '\n');
      const s = merged.summary as Record<string, number>;
      if (!flags.quiet) process.stderr.write(`xhd merge: ${countOf(s.pairs, 'pair')} from ${parts.length} shards: ${s.passed} passed, ${s.exceeded} exceeded, ${countOf(s.errors, 'error')}\n`);
      setExitStatus(s.exit_code);
    });
}
