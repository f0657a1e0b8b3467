// The run id every shard's part carries: a hash of what the answer depends on (the inputs, the options that
// change it, the number of shards), so that `xhd merge` refuses parts of different runs. Shards compute it
// independently, so it is built from canonical values only: resolved paths, sorted keys.
import type { Hash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

import { XHD_VERSION } from '../core/version.js';
import type { CompareOptions } from './compare-result.js';

// node:crypto is required only when a run id is made: loading it costs a few milliseconds (47 internal modules),
// which every `xhd compare` would pay at start-up for a sharded run's sake.
const require = createRequire(import.meta.url);
function sha256(): Hash {
  return (require('node:crypto') as typeof import('node:crypto')).createHash('sha256');
}

/** An input file as the run id sees it: where it is, how big, when it last changed. */
export interface InputIdentity {
  path: string;
  bytes: number;
  modifiedMs: number;
}

/**
 * A file's identity without reading it: its resolved path, size and modification time. Reading a 100 GB
 * input only to hash it would cost every shard minutes; a file rewritten between shards changes its time.
 */
export function inputIdentity(path: string): InputIdentity {
  const stats = statSync(path, { throwIfNoEntry: false });
  return { path: resolve(path), bytes: stats?.size ?? -1, modifiedMs: stats?.mtimeMs ?? -1 };
}

/** A small file's identity by its content (a manifest: what pairs it lists is what matters, not its time). */
export function contentIdentity(path: string): { path: string; sha256: string } {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch {
    content = Buffer.alloc(0); // the manifest reader reports the unreadable file itself
  }
  return { path: resolve(path), sha256: sha256().update(content).digest('hex') };
}

/**
 * The options that can change a compare's answer or its report, by name. Backend, device and threads are
 * left out: every backend gives the same exact answer, so shards may run on different machines.
 */
export function answerOptions(o: Omit<CompareOptions, 'signal'>): Record<string, unknown> {
  return {
    method: o.method, directed: o.directed, seed: o.seed, format: o.format, columns: o.columns, mask: o.mask,
    verticesOnly: o.verticesOnly, sampling: o.sampling, samples: o.samples, density: o.density, stats: o.stats,
    percentile: o.percentile, percentileVariant: o.percentileVariant, assdVariant: o.assdVariant,
    failAbove: o.failAbove?.text, metric: o.metric, empty: o.empty, relative: o.relative, filters: o.filters,
  };
}

/** JSON with every object's keys sorted, undefined left out and non-finite numbers spelled out. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : JSON.stringify(String(value));
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The run id: the first 20 hex digits of SHA-256 over the canonical description (80 bits: no accidental match). */
export function runId(description: Record<string, unknown>, shardCount: number): string {
  const text = canonicalJson({ ...description, shards: shardCount, xhd: XHD_VERSION });
  return sha256().update(text).digest('hex').slice(0, 20);
}
