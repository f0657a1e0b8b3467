// `xhd compare A B --shard I/N --partial FILE`: the checks before a shard runs, and the part file after.
import { UsageError } from '../../core/errors.js';
import type { Shard } from '../../core/shard.js';
import { STDIN_NAME } from '../../io/stdin-name.js';
import type { CompareResult } from '../../jobs/compare.js';
import { answerOptions, inputIdentity, runId } from '../../jobs/shard-run.js';
import { writeComparePart } from '../../report/compare-part-file.js';
import { formatCount, formatMs } from '../../report/format.js';
import { checkWritable } from '../../report/output-file.js';
import { measureOptions, type MeasureFlags } from './measure-options.js';
import { resolveShard, type ShardFlags } from './shard-options.js';

type PartialFlags = MeasureFlags & ShardFlags & {
  json?: boolean; output?: string; csvHeader?: boolean; export?: string; heatmap?: string; histogram?: boolean; report?: string; snapshot?: string;
};

/**
 * The shard this compare measures, or null for an ordinary compare. A shard's answer is a part of the pair's,
 * so it goes to the --partial file and nowhere else; what needs the whole answer or every point in one place
 * is refused here, before the inputs are read.
 */
export function comparePartOptions(a: string, b: string, flags: PartialFlags): Shard | null {
  if (flags.partial === undefined) {
    if (flags.shard) throw new UsageError("--shard measures a part of the pair: give --partial FILE for its part, then `xhd merge` the parts");
    return null;
  }
  const shard = resolveShard(flags.shard, 'compare');
  if (!shard) throw new UsageError('--partial writes one shard\'s part: give --shard I/N (or run in a Slurm job array or a Kubernetes indexed Job)');
  const wholeAnswer: Array<[boolean, string]> = [
    [flags.json === true || flags.output !== undefined || flags.csvHeader === true, '--json, --output and --csv-header (give them to `xhd merge`)'],
    [flags.export !== undefined, '--export'], [flags.heatmap !== undefined, '--heatmap'], [flags.histogram === true, '--histogram'],
    [flags.report !== undefined, '--report'], [flags.snapshot !== undefined, '--snapshot'],
  ];
  const refused = wholeAnswer.find(([given]) => given);
  if (refused) throw new UsageError(`${refused[1]} ${refused[1].startsWith('--json') ? 'do' : 'does'} not apply to a shard's part`);
  if (a === STDIN_NAME || b === STDIN_NAME) throw new UsageError('every shard reads both inputs whole: give files, not standard input (-)');
  checkWritable(flags.partial);
  return shard;
}

/** Writes the part (complete or not at all) and says on stderr what it holds. */
export async function writeShardPart(a: string, b: string, flags: PartialFlags, result: CompareResult, signal: AbortSignal): Promise<void> {
  const part = result.shardPart!;
  const id = runId({ command: 'compare', a: inputIdentity(a), b: inputIdentity(b), options: answerOptions(measureOptions(flags)) }, part.shard.count);
  await writeComparePart(flags.partial!, id, { ...result, shardPart: part }, signal);
  if (flags.quiet) return;
  const span = (s: { start: number; end: number } | null, name: string) => (s ? `${name} points ${formatCount(s.start)} to ${formatCount(s.end)}` : null);
  const slices = [span(part.ab, 'A'), span(part.ba, 'B')].filter((s) => s !== null);
  const what = slices.length > 0 ? slices.join(' and ') : 'an empty input: the whole answer';
  process.stderr.write(`xhd compare: shard ${part.shard.index} of ${part.shard.count} (run ${id}): ${what} written to ${flags.partial} in ${formatMs(result.timingsMs.total)}\n`);
}
