// The file one shard of `xhd compare --shard I/N --partial FILE` writes and `xhd merge` reads.
//
// Layout (little-endian): 8 bytes `XHDPART1`; uint64 H, the header's length; H bytes of UTF-8 JSON (the run
// id, the shard, the shard's result and slices); zero bytes up to a multiple of 8; then, when the statistics
// were asked for, the A → B slice's distances and the B → A slice's as float64, in query order. The file's
// size is exactly that, so a truncated copy is refused. Non-finite numbers (an --empty nan or inf answer)
// are written as {"$float": "NaN"} and read back as numbers.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

import { InputError } from '../core/errors.js';
import { sliceOf } from '../core/shard.js';
import type { CompareResult, DirectionSlice, ShardPart } from '../jobs/compare-result.js';
import type { LoadedComparePart } from '../jobs/compare-merge.js';
import { writeOutputFile } from './output-file.js';

export const PART_MAGIC = 'XHDPART1';
const FORMAT = 'xhd-compare-part';
const FORMAT_VERSION = 1;
const PREFIX_BYTES = 16;
/** A header is a few kilobytes; a length beyond this is a damaged file, not a reason to allocate it. */
const MAX_HEADER_BYTES = 64 << 20;

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

function losslessReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? { $float: String(value) } : value;
}

function losslessReviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '$float') return Number((value as { $float: string }).$float);
  }
  return value;
}

/** A slice as the header holds it: its distances' count instead of the distances. */
function sliceHeader(s: DirectionSlice | null) {
  return s ? { start: s.start, end: s.end, max: s.max, distances: s.distances ? s.distances.length : null } : null;
}

/** Writes the part under a temporary name and renames it when complete: a failed shard leaves no file. */
export async function writeComparePart(path: string, runId: string, result: CompareResult & { shardPart: ShardPart }, signal?: AbortSignal): Promise<void> {
  if (endianness() !== 'LE') throw new Error('part files are little-endian; this machine is not');
  const { shardPart, perPoint: _perPoint, ...rest } = result;
  const header = {
    format: FORMAT,
    version: FORMAT_VERSION,
    run_id: runId,
    shard: shardPart.shard,
    slices: { ab: sliceHeader(shardPart.ab), ba: sliceHeader(shardPart.ba) },
    merge: shardPart.merge,
    result: { ...rest, perPoint: null },
  };
  const json = Buffer.from(JSON.stringify(header, losslessReplacer), 'utf8');
  const head = Buffer.alloc(align8(PREFIX_BYTES + json.length));
  head.write(PART_MAGIC, 0, 'latin1');
  head.writeBigUInt64LE(BigInt(json.length), 8);
  json.copy(head, PREFIX_BYTES);
  const arrays = [shardPart.ab?.distances, shardPart.ba?.distances].filter((d): d is Float64Array => d instanceof Float64Array);
  await writeOutputFile(path, function* () {
    yield head;
    for (const d of arrays) yield new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  }, signal);
}

/** Whether the file starts as a compare part does (the rest is checked when it is read). */
export function looksLikeComparePart(first: Buffer): boolean {
  return first.length >= PART_MAGIC.length && first.subarray(0, PART_MAGIC.length).toString('latin1') === PART_MAGIC;
}

function readExactly(fd: number, into: Uint8Array, position: number): number {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

type Json = Record<string, any>;

function expectSlice(file: string, raw: unknown, total: number, shard: { index: number; count: number }, label: string): void {
  const s = raw as Json | null;
  const bad = (what: string) => new InputError(file, { byte: PREFIX_BYTES }, `the ${label} slice ${what}`);
  if (s === null || typeof s !== 'object') throw bad('is missing');
  const owned = sliceOf(total, shard);
  if (s.start !== owned.start || s.end !== owned.end) throw bad(`[${s.start}, ${s.end}) is not shard ${shard.index}/${shard.count}'s share [${owned.start}, ${owned.end}) of ${total} points`);
  if (s.distances !== null && s.distances !== s.end - s.start) throw bad(`holds ${s.distances} distances for ${s.end - s.start} points`);
  if (s.max !== null && (typeof s.max !== 'object' || typeof s.max.distance !== 'number' || typeof s.max.witness?.fromIndex !== 'number')) throw bad('has no valid maximum');
  if ((s.max === null) !== (s.start === s.end)) throw bad(s.max === null ? 'has points but no maximum' : 'has a maximum but no points');
}

/**
 * Reads a part: an InputError names the file and byte offset of anything that is not a complete part this
 * version wrote (bad magic, a header that is not JSON or lacks a field, a size that is not the header's).
 */
export function readComparePart(file: string): LoadedComparePart {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(file, {}, code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : `cannot read: ${(error as Error).message}`);
  }
  try {
    const size = fstatSync(fd).size;
    const prefix = Buffer.alloc(PREFIX_BYTES);
    if (readExactly(fd, prefix, 0) < PREFIX_BYTES || !looksLikeComparePart(prefix)) throw new InputError(file, { byte: 0 }, `not an xhd compare part (it does not start with ${PART_MAGIC})`);
    const headerBytes = Number(prefix.readBigUInt64LE(8));
    if (headerBytes > MAX_HEADER_BYTES) throw new InputError(file, { byte: 8 }, `the header length ${headerBytes} is beyond any part's (at most ${MAX_HEADER_BYTES} bytes): a damaged file`);
    if (PREFIX_BYTES + headerBytes > size) throw new InputError(file, { byte: 8 }, `truncated: the header is ${headerBytes} bytes but the file is ${size}`);
    const json = Buffer.alloc(headerBytes);
    readExactly(fd, json, PREFIX_BYTES);
    let header: Json;
    try {
      header = JSON.parse(json.toString('utf8'), losslessReviver);
    } catch (error) {
      throw new InputError(file, { byte: PREFIX_BYTES }, `the header is not valid JSON: ${(error as Error).message}`);
    }
    if (header?.format !== FORMAT || header.version !== FORMAT_VERSION) {
      throw new InputError(file, { byte: PREFIX_BYTES }, `not a version ${FORMAT_VERSION} ${FORMAT} (format ${JSON.stringify(header?.format)}, version ${JSON.stringify(header?.version)})`);
    }
    const shard = header.shard;
    if (typeof header.run_id !== 'string' || !shard || !Number.isSafeInteger(shard.index) || !Number.isSafeInteger(shard.count) || shard.index < 0 || shard.index >= shard.count) {
      throw new InputError(file, { byte: PREFIX_BYTES }, 'the header has no valid run_id and shard');
    }
    const result = header.result as CompareResult;
    if (!result || typeof result !== 'object' || !result.a || !result.b) throw new InputError(file, { byte: PREFIX_BYTES }, 'the header has no result');
    const slices = header.slices as { ab: Json | null; ba: Json | null };
    if (slices.ab !== null) expectSlice(file, slices.ab, result.a.points, shard, 'A → B');
    if (slices.ba !== null) expectSlice(file, slices.ba, result.b.points, shard, 'B → A');
    const counts = [slices.ab?.distances ?? 0, slices.ba?.distances ?? 0] as number[];
    const dataStart = align8(PREFIX_BYTES + headerBytes);
    const expected = dataStart + 8 * (counts[0] + counts[1]);
    if (size !== expected) {
      throw new InputError(file, { byte: Math.min(size, expected) }, `${size < expected ? 'truncated' : 'has trailing bytes'}: the header describes ${expected} bytes, the file has ${size}`);
    }
    let position = dataStart;
    const distances = [slices.ab, slices.ba].map((s, i) => {
      if (s === null || s.distances === null) return null;
      const n = counts[i];
      const d = new Float64Array(n);
      readExactly(fd, new Uint8Array(d.buffer), position);
      position += 8 * n;
      return d;
    });
    const slice = (s: Json | null, d: Float64Array | null): DirectionSlice | null => (s ? { start: s.start, end: s.end, max: s.max, distances: d } : null);
    const shardPart: ShardPart = { shard: { index: shard.index, count: shard.count }, ab: slice(slices.ab, distances[0]), ba: slice(slices.ba, distances[1]), merge: header.merge };
    return { file, runId: header.run_id, result: { ...result, shardPart } };
  } finally {
    closeSync(fd);
  }
}
