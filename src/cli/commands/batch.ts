// Registers `xhd batch MANIFEST`: every pair of a manifest compared in one process, one JSON object a pair on
// stdout (JSON Lines), then a summary object; a progress bar and a human summary on stderr.
import { Command } from 'commander';

import { readManifest } from '../../jobs/batch-manifest.js';
import { planBatch, runBatch, type BatchPair, type BatchSummary, type PairOutcome } from '../../jobs/batch.js';
import { CancelledError } from '../../core/errors.js';
import { setExitStatus } from '../exit-status.js';
import { ProgressBar } from '../progress-bar.js';
import { parseIntegerOption } from '../option-parsers.js';
import { compareJson } from '../../report/compare-json.js';
import { labelsJson } from '../../report/labels-json.js';
import { BatchSummaryCollector } from '../../jobs/batch-summary.js';
import { wantsLabelVolumes } from '../../jobs/compare.js';
import { batchSummaryJson, writeBatchSummaryCsv } from '../../report/batch-summary.js';
import { UsageError } from '../../core/errors.js';
import { countOf, formatDistance, formatMs } from '../../report/format.js';
import { addMeasureOptions, measureOptions, type MeasureFlags } from './measure-options.js';
import { writeBatchReport } from '../../report/html/batch-html.js';
import { prepareReportDir, writePairReport } from '../../report/html/pair-reports.js';
import { checkViewerBuilt } from '../../report/html/viewer-bundle.js';
import { checkWritable, writeOutputFile } from '../../report/output-file.js';
import { withInterrupts } from './interrupts.js';
import { addShardOptions, resolveShard, type ShardFlags } from './shard-options.js';
import { dealtIndices } from '../../core/shard.js';
import { answerOptions, contentIdentity, runId } from '../../jobs/shard-run.js';
import type { BatchShardTag } from '../../report/batch-merge.js';
import { printable } from '../printable.js';

const EXAMPLES = `
Examples:
  $ xhd batch pairs.csv > results.jsonl            every pair; exit 1 when a row's threshold is exceeded
  $ xhd batch pairs.jsonl --fail-above 1%          the limit for rows without a threshold of their own
  $ xhd batch pairs.csv --backend cpu | jq -c 'select(.status != "passed")'
  $ xhd batch cases.csv --labels all --percentile 95 --summary-csv stats.csv   per label: mean, std, quartiles
  $ xhd batch pairs.csv --shard 2/4 --partial part-2.jsonl   every 4th pair from the 3rd; xhd merge part-*.jsonl

The manifest is a .csv whose first line names the columns a, b (paths), and optionally threshold (a distance,
or a percentage such as 1%) and metric (hd, hd95, mean, rms, chamfer), or a .jsonl with one object a line:
{"a": "scan.ply", "b": "ref.ply", "threshold": 0.5, "metric": "hd95"}. Other columns or keys are echoed back
under "fields". Relative paths resolve against the manifest's directory.

stdout: one object per pair, in manifest order, with "line", "status" (passed, exceeded, unchecked, error),
"pair" ({a, b} as written) and "fields", then either the keys of \`xhd compare --json\` or "error"
({message, exit_code}); the last line is {"summary": {…}}.
Exit code: 2 (3 for a native error) when any pair failed to run, else 1 when any exceeded its threshold, else 0.
`;

export function registerBatch(program: Command): void {
  const command = program
    .command('batch')
    .description('compare every pair listed in a CSV or JSON Lines manifest, one process and one loaded backend; JSON Lines on stdout')
    .argument('<manifest>', 'pairs to compare: a .csv (columns a, b, optional threshold, metric) or a .jsonl file');
  addShardOptions(addMeasureOptions(command), 'every N-th pair of the manifest from the I-th')
    .option('--report <file.html>', 'also write a self-contained HTML page: every pair in a sortable table, the distribution of a metric')
    .option('--report-dir <dir>', "also write each pair's own compare report page into this directory (pair-LINE.html, LINE its manifest line), linked from --report's table")
    .option('--summary', 'after the pairs, one more JSON Lines object: per label and metric n, n_empty, mean, std, median, q1, q3, min, max', false)
    .option('--summary-csv <file>', 'write those statistics as CSV, one row per label and metric')
    .option('--lanes <n>', 'CUDA backend: pairs each GPU runs at once, overlapping one pair\'s reading with another\'s GPU work (default: 4 when every input is a NIfTI, NRRD, MetaImage or DICOM-SEG volume, else 1)',
      parseIntegerOption(1, 64))
    .addHelpText('after', EXAMPLES)
    .action(async (manifestPath: string, allFlags: MeasureFlags & ShardFlags & { report?: string; reportDir?: string; summary: boolean; summaryCsv?: string; lanes?: number }) => {
      const { report, reportDir, summary: wantsSummary, summaryCsv, shard: givenShard, partial, lanes, ...flags } = allFlags;
      const { quiet } = flags;
      const shard = resolveShard(givenShard, 'batch');
      if (shard && report !== undefined) throw new UsageError('--report draws the whole batch; a shard has only its own pairs: merge the shards first');
      if (shard && (wantsSummary || summaryCsv !== undefined)) throw new UsageError('--summary and --summary-csv describe the whole batch; a shard has only its own pairs');
      if (partial !== undefined && !shard) throw new UsageError('--partial writes one shard\'s output: give --shard I/N (or run in a job array)');
      if (partial !== undefined) checkWritable(partial);
      if (report !== undefined) {
        checkViewerBuilt('batch');
        checkWritable(report); // before the pairs run, not after
      }
      if (reportDir !== undefined) {
        checkViewerBuilt('compare');
        prepareReportDir(reportDir);
      }
      if (summaryCsv !== undefined) checkWritable(summaryCsv);
      const collector = wantsSummary || summaryCsv !== undefined ? new BatchSummaryCollector() : null;
      const records: Record<string, unknown>[] = [];
      // The batch draws one bar over the pairs: a pair's own bar would fight it for the line.
      const { failAbove, metric, progress: _pairBars, ...measure } = measureOptions(flags);
      // A pair's page draws every point's distance, so they are kept until it is written (one pair at a time).
      const compare = { ...measure, keepDistances: reportDir !== undefined };
      // Everything is checked before the first pair runs: a bad manifest is one error line, nothing measured.
      // Every shard checks every row, so a bad manifest fails every shard alike.
      const manifest = readManifest(manifestPath);
      if (wantsLabelVolumes(compare) && (report !== undefined || reportDir !== undefined)) {
        throw new UsageError('the batch --report page draws one value per pair, and a --report-dir page one label; with --labels or --components use --summary or --summary-csv');
      }
      if (wantsLabelVolumes(compare) && (failAbove !== undefined || manifest.rows.some((r) => r.threshold))) {
        throw new UsageError('thresholds check one distance per pair; with --labels or --components a pair has one per label, so give no --fail-above or threshold column');
      }
      const planned = planBatch(manifest, { failAbove, metric: metric ?? 'hd', percentile: compare.percentile });
      const pairs = shard ? dealtIndices(planned.length, shard).map((i) => planned[i]) : planned;
      const tag: BatchShardTag | null = shard ? {
        index: shard.index, count: shard.count, manifest_pairs: planned.length,
        run_id: runId({ command: 'batch', manifest: contentIdentity(manifestPath), options: answerOptions({ ...compare, failAbove, metric }) }, shard.count),
      } : null;
      if (tag && !quiet) process.stderr.write(`xhd batch: shard ${tag.index} of ${tag.count}: ${pairs.length} of ${planned.length} pairs (run ${tag.run_id})\n`);
      // With --partial the lines wait for the end and go to the file only when the shard finished.
      const lines: string[] = [];
      const emit = (text: string) => (partial !== undefined ? lines.push(text) : process.stdout.write(text));

      const bar = ProgressBar.forStderr('batch', quiet);
      let signal: AbortSignal | undefined;
      let summary: BatchSummary;
      try {
        summary = await withInterrupts((aborted) => runBatch(pairs, {
          compare,
          lanes,
          signal: (signal = aborted),
          onProgress: (done, total) => bar.update(done, total),
          onPair: async (pair, outcome) => {
            bar.finish(); // the bar's line, on a terminal, must not run into what is printed next
            if (collector && outcome.status !== 'error') collector.add(outcome.result, compare.mask?.label);
            // (--report-dir with --labels or --components was refused before the pairs ran.)
            const page = reportDir !== undefined && outcome.status !== 'error' && outcome.result.mode !== 'labels'
              ? await writePairReport(reportDir, pair.row.line, outcome.result, process.argv.slice(2), signal) : undefined;
            const record = { ...pairJson(pair, outcome), ...(page !== undefined ? { report: page } : {}), ...(tag ? { shard: tag } : {}) };
            emit(JSON.stringify(record) + '\n');
            if (report !== undefined) records.push(record);
            if (!quiet) {
              const line = pairStderrLine(manifest.path, pair, outcome);
              if (line) process.stderr.write(printable(line) + '\n');
            }
          },
        }));
      } finally {
        bar.finish();
      }
      const totals = tag ? { ...summaryJson(manifest.path, summary), shard: tag } : summaryJson(manifest.path, summary);
      emit(JSON.stringify({ summary: totals }) + '\n');
      if (collector) {
        const statistics = collector.summary();
        if (wantsSummary) emit(JSON.stringify(batchSummaryJson(statistics, compare.empty ?? 'default (zero-or-diagonal for masks, error for other inputs)')) + '\n');
        if (summaryCsv !== undefined) await writeBatchSummaryCsv(summaryCsv, statistics, signal);
      }
      if (!quiet) process.stderr.write(summaryLine(summary) + '\n');
      if (summary.interrupted) throw new CancelledError(signal?.reason); // no --partial file: the shard did not finish
      if (partial !== undefined) {
        await writeOutputFile(partial, function* () {
          for (const line of lines) yield Buffer.from(line, 'utf8');
        }, signal);
      }
      if (report !== undefined) await writeBatchReport(report, records, totals, process.argv.slice(2), signal);
      setExitStatus(summary.exitCode);
    });
}

/** One pair's JSON Lines record: where it came from, its status, then compare's JSON or the error. */
function pairJson(pair: BatchPair, outcome: PairOutcome) {
  const { line, a, b, fields } = pair.row;
  if (outcome.status === 'error') return { line, status: outcome.status, pair: { a, b }, fields, error: { message: outcome.message, exit_code: outcome.exitCode } };
  const result = outcome.result.mode === 'labels' ? labelsJson(outcome.result) : compareJson(outcome.result);
  // The head's fields written out, then one spread: `{ ...head, ...result }` built the same record (and JSON) in
  // about 130 µs instead of 15, each pair's work on the main thread that the lanes share.
  return { line, status: outcome.status, pair: { a, b }, fields, ...result };
}

function summaryJson(manifest: string, s: BatchSummary) {
  return {
    manifest,
    pairs: s.pairs,
    passed: s.passed,
    exceeded: s.exceeded,
    unchecked: s.unchecked,
    errors: s.errors,
    not_run: s.notRun,
    label_in_neither: s.labelInNeither,
    interrupted: s.interrupted,
    exit_code: s.exitCode,
    total_ms: s.totalMs,
  };
}

/** A failed pair, for whoever reads the CI log rather than the JSON. */
function pairStderrLine(manifest: string, pair: BatchPair, outcome: PairOutcome): string | undefined {
  const where = `${manifest}:${pair.row.line}`;
  if (outcome.status === 'error') return `xhd: ${where}: error: ${outcome.message}`;
  const t = outcome.result.mode === 'labels' ? null : outcome.result.threshold;
  if (outcome.status !== 'exceeded' || !t) return undefined;
  return `xhd: ${where}: FAIL ${t.label} ${formatDistance(t.value)} > ${formatDistance(t.limit)} (threshold ${t.spec}): ${pair.row.a} vs ${pair.row.b}`;
}

function summaryLine(s: BatchSummary): string {
  const plural = (n: number, word: string) => countOf(n, word);
  const parts = [`${s.passed} passed`, `${s.exceeded} exceeded`, plural(s.errors, 'error')];
  if (s.unchecked > 0) parts.push(`${s.unchecked} without a threshold`);
  if (s.labelInNeither > 0) parts.push(`${plural(s.labelInNeither, 'pair')} with the label in neither mask`);
  if (s.interrupted) parts.push(`${s.notRun} not run (interrupted)`);
  return `xhd batch: ${plural(s.pairs, 'pair')}: ${parts.join(', ')} in ${formatMs(s.totalMs)}`;
}
