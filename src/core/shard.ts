// Shards of a run spread over a cluster: which shard this process is (from --shard I/N, or from a Slurm job
// array's or a Kubernetes indexed Job's environment) and which part of the work it owns. Pure arithmetic, so
// every shard of a run, on any machine, computes the same split.
import { UsageError, ValueSyntaxError } from './errors.js';

/** Shard `index` (0-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** Where a shard came from, said on stderr when it was not given by hand. */
export interface DetectedShard extends Shard {
  /** The environment variables it was read from, as `NAME=value` pairs. */
  from: string;
}

/** The most shards a run may have: far more than any job array, small enough for exact arithmetic below. */
export const MAX_SHARDS = 1_000_000;

/** `I/N`: shard I (0-based) of N. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!m) throw new ValueSyntaxError(`expected I/N (shard I of N, I from 0), got '${text}'`);
  const index = Number(m[1]), count = Number(m[2]);
  if (count < 1 || count > MAX_SHARDS) throw new ValueSyntaxError(`the shard count must be from 1 to ${MAX_SHARDS}, got ${m[2]}`);
  if (index >= count) throw new ValueSyntaxError(`shard ${index} of ${count} does not exist: shards are numbered 0 to ${count - 1}`);
  return { index, count };
}

type Environment = Record<string, string | undefined>;

function integerVariable(env: Environment, name: string): number | undefined {
  const text = env[name];
  if (text === undefined || text.trim() === '') return undefined;
  if (!/^\s*\d+\s*$/.test(text)) throw new UsageError(`${name}=${text} is not a whole number, so the shard cannot be read from it; give --shard I/N`);
  return Number(text);
}

/**
 * The shard a job scheduler's environment names, or null when none does. Slurm job arrays set
 * SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (and MIN and STEP: `--array=1-4` runs IDs 1 to 4, which are
 * shards 0 to 3); an array whose IDs are not evenly spaced (`--array=1,4,9`) cannot be mapped to shards and is
 * refused. A Kubernetes indexed Job sets JOB_COMPLETION_INDEX but not the number of completions, which the Job
 * passes as XHD_SHARD_COUNT (the same number as its `completions`).
 */
export function shardFromEnvironment(env: Environment): DetectedShard | null {
  const taskId = integerVariable(env, 'SLURM_ARRAY_TASK_ID');
  if (taskId !== undefined) return slurmShard(env, taskId);
  const completionIndex = integerVariable(env, 'JOB_COMPLETION_INDEX');
  if (completionIndex !== undefined) {
    const count = integerVariable(env, 'XHD_SHARD_COUNT');
    if (count === undefined) {
      throw new UsageError(`JOB_COMPLETION_INDEX=${completionIndex} is set (a Kubernetes indexed Job) but not XHD_SHARD_COUNT: set it to the Job's completions, or give --shard I/N`);
    }
    return checked(completionIndex, count, `JOB_COMPLETION_INDEX=${completionIndex}, XHD_SHARD_COUNT=${count}`);
  }
  return null;
}

function slurmShard(env: Environment, taskId: number): DetectedShard {
  const count = integerVariable(env, 'SLURM_ARRAY_TASK_COUNT');
  if (count === undefined) throw new UsageError(`SLURM_ARRAY_TASK_ID=${taskId} is set but not SLURM_ARRAY_TASK_COUNT; give --shard I/N`);
  const min = integerVariable(env, 'SLURM_ARRAY_TASK_MIN') ?? 0;
  const max = integerVariable(env, 'SLURM_ARRAY_TASK_MAX');
  const step = integerVariable(env, 'SLURM_ARRAY_TASK_STEP') ?? 1;
  const from = `SLURM_ARRAY_TASK_ID=${taskId}, SLURM_ARRAY_TASK_COUNT=${count}` + (min !== 0 ? `, SLURM_ARRAY_TASK_MIN=${min}` : '') + (step !== 1 ? `, SLURM_ARRAY_TASK_STEP=${step}` : '');
  // IDs min, min + step, …, max are shards 0, 1, …: only when they are exactly `count` evenly spaced ones.
  const evenlySpaced = step >= 1 && (taskId - min) % step === 0 && taskId >= min && (max === undefined || (max - min) / step + 1 === count);
  if (!evenlySpaced) {
    throw new UsageError(`the job array's task IDs (${from}${max !== undefined ? `, SLURM_ARRAY_TASK_MAX=${max}` : ''}) are not ${count} evenly spaced IDs, so they cannot be numbered as shards; use --array=0-${count - 1} or give --shard I/N`);
  }
  return checked((taskId - min) / step, count, from);
}

function checked(index: number, count: number, from: string): DetectedShard {
  if (count < 1 || count > MAX_SHARDS || index >= count) {
    throw new UsageError(`${from} does not name a shard (shard ${index} of ${count}; shards are 0 to count - 1, count from 1 to ${MAX_SHARDS})`);
  }
  return { index, count, from };
}

/**
 * The items i with i mod count = index: a batch's pairs dealt out like cards, so that expensive rows that
 * sit together in a manifest land on different shards.
 */
export function dealtIndices(total: number, shard: Shard): number[] {
  const out: number[] = [];
  for (let i = shard.index; i < total; i += shard.count) out.push(i);
  return out;
}

/**
 * The contiguous slice [start, end) of `total` items that a shard owns: the first shards get the smaller
 * share, the slices tile 0..total in shard order, and each is within one item of total / count. Contiguous,
 * so each shard's queries stay together in memory (and near each other in space when the file is ordered).
 * Exact for total · count below 2^53 (checked): floor of a correctly rounded quotient of exact integers.
 */
export function sliceOf(total: number, shard: Shard): { start: number; end: number } {
  if (!Number.isSafeInteger(total * shard.count)) throw new RangeError(`${total} items in ${shard.count} shards is beyond exact arithmetic`);
  return { start: Math.floor((shard.index * total) / shard.count), end: Math.floor(((shard.index + 1) * total) / shard.count) };
}
