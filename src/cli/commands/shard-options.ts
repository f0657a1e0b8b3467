// --shard I/N and --partial FILE, shared by `batch` and `compare`, and the shard a job scheduler's environment
// names when --shard is not given (said on stderr, since it changes what the command does).
import { Command } from 'commander';

import { parseShard, shardFromEnvironment, type Shard } from '../../core/shard.js';
import { optionParser } from '../option-parsers.js';

export interface ShardFlags {
  shard?: Shard;
  partial?: string;
}

export function addShardOptions(command: Command, what: string): Command {
  return command
    .option('--shard <I/N>', `run shard I (from 0) of N: ${what}; without it, a Slurm job array's or Kubernetes indexed Job's index (see README)`, optionParser(parseShard))
    .option('--partial <file>', "write this shard's output to FILE (complete or not at all) for `xhd merge`");
}

/**
 * The shard to run: --shard's, else the environment's (said on stderr, with the variables it came from),
 * else null. `command` names the command in the stderr line.
 */
export function resolveShard(given: Shard | undefined, command: string, env: NodeJS.ProcessEnv = process.env): Shard | null {
  if (given) return given;
  const detected = shardFromEnvironment(env);
  if (detected) process.stderr.write(`xhd ${command}: running shard ${detected.index} of ${detected.count} (from ${detected.from}); --shard I/N overrides it\n`);
  return detected ? { index: detected.index, count: detected.count } : null;
}
