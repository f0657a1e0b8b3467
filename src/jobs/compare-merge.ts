// `xhd merge` of compare parts: the whole pair's answer from its shards' slices, equal to the unsharded run's.
// The maximum of exact distances is exact; the witness is the slice maximum with the smallest source index
// among the largest (the unsharded run's rule, as each slice already applied it inside itself); the statistics
// are computed from every slice's distances put back in query order, so the sums run in the same order and
// the percentiles select from the same values: bit for bit the unsharded run's.
import { UsageError } from '../core/errors.js';
import { distanceStats } from '../metrics/distance-stats.js';
import { finishResult } from './compare.js';
import type { CompareResult, DirectionSlice, ShardPart, Witness } from './compare-result.js';

export interface LoadedComparePart {
  file: string;
  runId: string;
  /** The shard's result: the inputs and the run as it saw them, and its slices in shardPart. */
  result: CompareResult & { shardPart: ShardPart };
}

/** The largest distance over the slices, ties to the smallest source index. */
function mergedMax(slices: DirectionSlice[]): { distance: number; witness: Witness } {
  let best: { distance: number; witness: Witness } | null = null;
  for (const s of slices) {
    const m = s.max;
    if (m && (best === null || m.distance > best.distance || (m.distance === best.distance && m.witness.fromIndex < best.witness.fromIndex))) best = m;
  }
  if (!best) throw new Error('no shard measured a query of a non-empty set'); // the merge check's slices tile the set
  return best;
}

/** The slices' distances in query order (the slices tile the set in shard order). */
function concatenated(slices: DirectionSlice[]): Float64Array {
  const total = slices.reduce((n, s) => n + (s.end - s.start), 0);
  const out = new Float64Array(total);
  for (const s of slices) {
    if (s.end > s.start && !s.distances) throw new Error(`the part of queries ${s.start} to ${s.end} holds no distances`);
    if (s.distances) out.set(s.distances, s.start);
  }
  return out;
}

function sumOf(parts: LoadedComparePart[], f: (r: CompareResult) => number): number {
  return parts.reduce((t, p) => t + f(p.result), 0);
}

/**
 * What the run id cannot promise: the parts of one run read the same inputs (as many points, the same
 * dimension, the same emptiness) and hold what the merge needs (distances when the statistics are asked for).
 * Only a part written by hand or by another program fails this; each refusal names its file.
 */
function checkConsistent(parts: LoadedComparePart[]): void {
  const base = parts[0];
  const shape = (r: CompareResult) => JSON.stringify([r.a.points, r.a.dims, r.b.points, r.b.dims, r.directed, r.empty !== null, r.shardPart!.ab === null]);
  for (const p of parts) {
    if (shape(p.result) !== shape(base.result)) throw new UsageError(`${base.file} and ${p.file} describe different inputs (points, dimensions or directions), though their run ids agree`);
    for (const s of [p.result.shardPart.ab, p.result.shardPart.ba]) {
      if (s && base.result.shardPart.merge.stats && s.end > s.start && !s.distances) throw new UsageError(`${p.file} holds no distances, which the statistics asked for need`);
    }
  }
}

/** The merged result, from parts already checked to be every shard of one run (sorted here by shard). */
export function mergeCompareParts(given: LoadedComparePart[]): CompareResult {
  checkConsistent(given);
  const parts = [...given].sort((x, y) => x.result.shardPart.shard.index - y.result.shardPart.shard.index);
  const base = parts[0].result;
  const merge = base.shardPart.merge;
  const { shardPart: _part, ...rest } = base;
  const result: CompareResult = { ...rest, notes: [...base.notes], timingsMs: { ...base.timingsMs } };

  // Each phase's time over all shards: the work done, not the wall time (the shards ran side by side).
  for (const key of Object.keys(result.timingsMs) as (keyof CompareResult['timingsMs'])[]) result.timingsMs[key] = sumOf(parts, (r) => r.timingsMs[key]);
  const backends = [...new Set(parts.map((p) => p.result.backend))];
  result.backend = backends.join('+');
  result.threads = Math.max(...parts.map((p) => p.result.threads));
  result.peakDeviceBytes = Math.max(...parts.map((p) => p.result.peakDeviceBytes));
  result.queryChunks = sumOf(parts, (r) => r.queryChunks);
  result.notes.push(`merged from ${parts.length} shard${parts.length === 1 ? '' : 's'} (run ${given[0].runId})`);

  if (base.shardPart.ab === null) return finishResult(result, merge); // an empty input: every part holds the whole answer

  const statsStarted = performance.now();
  const abSlices = parts.map((p) => p.result.shardPart.ab!);
  const ab = mergedMax(abSlices);
  result.hdAb = ab.distance;
  result.witnessAb = ab.witness;
  let baSlices: DirectionSlice[] | null = null;
  if (!base.directed) {
    baSlices = parts.map((p) => p.result.shardPart.ba!);
    const ba = mergedMax(baSlices);
    result.hdBa = ba.distance;
    result.witnessBa = ba.witness;
  }
  result.hd = result.hdBa === null ? result.hdAb : Math.max(result.hdAb, result.hdBa);
  result.stats = merge.stats ? distanceStats(concatenated(abSlices), baSlices ? concatenated(baSlices) : null, merge) : null;
  if (result.stats) result.timingsMs.stats += performance.now() - statsStarted;
  return finishResult(result, merge);
}
