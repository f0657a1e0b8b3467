// `xhd merge` of `xhd batch --shard` outputs: each shard's JSON Lines (its pairs, each tagged with the shard,
// then its summary) become the one stream the unsharded batch prints: every pair in manifest order, then
// one summary whose counts are the shards' added up.
import { readFileSync } from 'node:fs';

import { InputError, UsageError } from '../core/errors.js';
import { dealtIndices } from '../core/shard.js';
import type { PartIdentity } from '../jobs/merge-check.js';

/** What a sharded batch adds to each pair's record and to its summary. */
export interface BatchShardTag {
  index: number;
  count: number;
  run_id: string;
  /** Pairs in the whole manifest (the summary's own `pairs` counts this shard's). */
  manifest_pairs: number;
}

export interface BatchPart {
  identity: PartIdentity;
  pairs: Record<string, unknown>[];
  summary: Record<string, any> | null;
}

function isTag(t: any): t is BatchShardTag {
  return t !== null && typeof t === 'object' && typeof t.run_id === 'string' && Number.isSafeInteger(t.index) && Number.isSafeInteger(t.count)
    && Number.isSafeInteger(t.manifest_pairs) && t.index >= 0 && t.index < t.count;
}

/**
 * Reads one shard's output. A file that stops before its summary (a shard killed with its output redirected)
 * is returned as failed, named by the shard tag of its pair lines; one without any line naming its shard,
 * or with a line that is not JSON, is an InputError naming the file and line.
 */
export function readBatchPart(file: string, text?: string): BatchPart {
  let content: string;
  try {
    content = text ?? readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(file, {}, code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : `cannot read: ${(error as Error).message}`);
  }
  const lines = content.split('\n');
  const pairs: Record<string, unknown>[] = [];
  let summary: Record<string, any> | null = null;
  let tag: BatchShardTag | null = null;
  let complete = content.endsWith('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    if (summary) throw new InputError(file, { line: i + 1 }, 'a line after the summary: not one shard\'s output');
    let object: any;
    try {
      object = JSON.parse(lines[i]);
    } catch {
      if (i === lines.length - 1) { // the last line cut short: a shard that was killed while writing
        complete = false;
        break;
      }
      throw new InputError(file, { line: i + 1 }, 'not a JSON object: not an xhd batch output');
    }
    const lineTag = object?.summary ? object.summary.shard : object?.shard;
    if (!isTag(lineTag)) throw new InputError(file, { line: i + 1 }, 'names no shard: give the outputs of `xhd batch --shard` (or of a job array)');
    if (tag && (tag.run_id !== lineTag.run_id || tag.index !== lineTag.index)) throw new InputError(file, { line: i + 1 }, 'names another shard than the lines before it');
    tag = lineTag;
    if (object.summary) summary = object.summary;
    else pairs.push(object);
  }
  if (!tag) throw new InputError(file, {}, 'is empty: the shard wrote nothing (did it start?)');
  const failed = !summary || !complete ? 'it stopped before its summary line'
    : summary.interrupted === true ? `interrupted with ${summary.not_run} pair${summary.not_run === 1 ? '' : 's'} not run` : undefined;
  return { identity: { file, kind: 'batch', runId: tag.run_id, shard: { index: tag.index, count: tag.count }, failed }, pairs, summary };
}

const COUNTS = ['pairs', 'passed', 'exceeded', 'unchecked', 'errors', 'label_in_neither', 'total_ms'] as const;

/**
 * The merged stream, from parts already checked to be every shard of one run, each finished. Each shard
 * must hold exactly the pairs it was dealt (its summary says how many the manifest has).
 */
export function mergeBatchParts(parts: BatchPart[]): { pairs: Record<string, unknown>[]; summary: Record<string, unknown> } {
  const manifestPairs = parts[0].summary!.shard.manifest_pairs as number;
  for (const p of parts) {
    const tag = p.summary!.shard as BatchShardTag;
    const dealt = dealtIndices(manifestPairs, p.identity.shard).length;
    if (tag.manifest_pairs !== manifestPairs || p.pairs.length !== dealt || p.summary!.pairs !== dealt) {
      throw new UsageError(`${p.identity.file}: shard ${tag.index} of ${tag.count} holds ${p.pairs.length} pairs, but it was dealt ${dealt} of the manifest's ${manifestPairs}`);
    }
  }
  const byLine = new Map<number, string>();
  const pairs: Record<string, unknown>[] = [];
  for (const p of parts) {
    for (const record of p.pairs) {
      const line = record.line as number;
      const seen = byLine.get(line);
      if (seen !== undefined) throw new UsageError(`manifest line ${line} is in two parts: ${seen} and ${p.identity.file}`);
      byLine.set(line, p.identity.file);
      const { shard: _tag, ...rest } = record;
      pairs.push(rest);
    }
  }
  pairs.sort((x, y) => (x.line as number) - (y.line as number));
  const first = parts[0].summary!;
  const summary: Record<string, unknown> = { manifest: first.manifest };
  for (const key of COUNTS) summary[key] = parts.reduce((t, p) => t + (p.summary![key] as number), 0);
  // The batch's exit code is its worst pair's (3 > 2 > 1 > 0): the worst of the shards' codes.
  const exitCode = Math.max(...parts.map((p) => p.summary!.exit_code as number));
  const ordered = {
    manifest: first.manifest, pairs: summary.pairs, passed: summary.passed, exceeded: summary.exceeded, unchecked: summary.unchecked,
    errors: summary.errors, not_run: 0, label_in_neither: summary.label_in_neither, interrupted: false, exit_code: exitCode,
    total_ms: summary.total_ms, shards: { count: parts.length, run_id: parts[0].identity.runId },
  };
  return { pairs, summary: ordered };
}
