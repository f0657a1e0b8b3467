// What `xhd merge` checks before it combines anything: the parts are all of one run (same run id, same shard
// count), each shard is there exactly once, and none reports that it failed. Each refusal names the files.
import { UsageError } from '../core/errors.js';
import type { Shard } from '../core/shard.js';

export interface PartIdentity {
  file: string;
  /** compare parts and batch outputs cannot be merged with each other. */
  kind: 'compare' | 'batch';
  runId: string;
  shard: Shard;
  /** Why the shard's output is not a finished one (interrupted), when it is not. */
  failed?: string;
}

function listed(items: string[], most = 10): string {
  const shown = items.slice(0, most).join(', ');
  return items.length > most ? `${shown}, … (${items.length} in all)` : shown;
}

/** Throws a UsageError (exit 2) naming the parts at fault unless they are exactly the shards of one run. */
export function checkParts(parts: PartIdentity[]): void {
  if (parts.length === 0) throw new UsageError('no parts to merge');
  const first = parts[0];
  const otherKind = parts.find((p) => p.kind !== first.kind);
  if (otherKind) throw new UsageError(`${first.file} is a ${first.kind} part but ${otherKind.file} is a ${otherKind.kind} part; merge the parts of one run`);
  const otherRun = parts.find((p) => p.runId !== first.runId);
  if (otherRun) {
    const why = otherRun.shard.count !== first.shard.count ? ` (${first.shard.count} shards against ${otherRun.shard.count})` : ' (different inputs or options)';
    throw new UsageError(`${first.file} and ${otherRun.file} are parts of different runs: run ${first.runId} and run ${otherRun.runId}${why}`);
  }
  const byIndex = new Map<number, string>();
  for (const p of parts) {
    const seen = byIndex.get(p.shard.index);
    if (seen !== undefined) throw new UsageError(`shard ${p.shard.index} of ${p.shard.count} is given twice: ${seen} and ${p.file}`);
    byIndex.set(p.shard.index, p.file);
  }
  const failed = parts.filter((p) => p.failed !== undefined);
  if (failed.length > 0) {
    throw new UsageError(`shard${failed.length === 1 ? '' : 's'} failed: ${listed(failed.map((p) => `shard ${p.shard.index} (${p.file}: ${p.failed})`))}; run ${failed.length === 1 ? 'it' : 'them'} again`);
  }
  const missing: string[] = [];
  for (let i = 0; i < first.shard.count; i++) if (!byIndex.has(i)) missing.push(String(i));
  if (missing.length > 0) {
    throw new UsageError(`missing shard${missing.length === 1 ? '' : 's'} ${listed(missing)} of ${first.shard.count} (run ${first.runId}): run ${missing.length === 1 ? 'it' : 'them'} again, or give ${missing.length === 1 ? 'its part' : 'their parts'} too`);
  }
}
