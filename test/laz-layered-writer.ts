// Layered LAZ files (point formats 6 to 8, LASzip's version-3 items) for the tests and the benchmark: raw LAS
// records made up like a scan's (pulses of several returns sharing a GPS time, a moving footprint, scanner
// channels taking turns, classes, flags, colours and extra bytes changing now and then), compressed chunk by
// chunk by the CPU library's layered encoder (xhd_compress_laz_chunk), laid out with a chunk table after the
// LAS 1.4 header and its VLRs. laz-perf, an independent LASzip decoder, is what the tests check them against.
import { lasBytes, type LasRecord } from './las-writer.js';
import { chunkTableBytes } from './laz-writer.js';
import { nativeReader } from '../src/io/native-reader.js';

export const ITEM_POINT14 = 10, ITEM_RGB14 = 11, ITEM_RGBNIR14 = 12, ITEM_BYTE14 = 14;

/** The bytes of a record of `format` (6, 7 or 8) with `extra` extra bytes. */
export function layeredRecordLength(format: number, extra: number): number {
  return 30 + (format === 7 ? 6 : format === 8 ? 8 : 0) + extra;
}

/** The LASzip items of such a record: type, size, version. */
export function layeredItems(format: number, extra: number): { type: number; size: number; version: number }[] {
  const items = [{ type: ITEM_POINT14, size: 30, version: 3 }];
  if (format === 7) items.push({ type: ITEM_RGB14, size: 6, version: 3 });
  if (format === 8) items.push({ type: ITEM_RGBNIR14, size: 8, version: 3 });
  if (extra > 0) items.push({ type: ITEM_BYTE14, size: extra, version: 3 });
  return items;
}

/** xorshift32: deterministic numbers in [0, 1). */
export function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

export interface ScanOptions {
  /** Extra bytes a record. */
  extra?: number;
  seed?: number;
  /** Use all four scanner channels (default) or only channel 0. */
  channels?: boolean;
  /** Integer X, Y of the first point (default 50_000_000, 480_000_000: UTM at 0.01). */
  start?: [number, number];
}

/**
 * `count` raw records of `format` as a scanner writes them: pulses of 1 to 5 returns (now and then up to 15)
 * sharing one GPS time, the footprint moving in lines, a class, flags and user data that change now and then,
 * and scanner channels taking turns in runs; so that every context of the layered coder is used.
 */
export function scanRecords(count: number, format: number, options: ScanOptions = {}): Uint8Array {
  const extra = options.extra ?? 0;
  const length = layeredRecordLength(format, extra);
  const rand = random(options.seed ?? 7);
  const out = new Uint8Array(count * length);
  const view = new DataView(out.buffer);
  let [x, y] = options.start ?? [50_000_000, 480_000_000];
  let z = 12_000, time = 1.5e8 + rand(), channel = 0, cls = 2, flags = 0, user = 0, source = 17, angle = -300;
  let red = 20_000, green = 30_000, blue = 25_000, nir = 40_000;
  const extras = new Uint8Array(extra);
  let r = 1, n = 1;
  for (let i = 0; i < count; i++) {
    const at = i * length;
    if (r >= n) {
      // A new pulse: its return count, a time step (sometimes a jump), maybe another channel.
      r = 1;
      n = rand() < 0.6 ? 1 : 1 + Math.floor(rand() * (rand() < 0.02 ? 15 : 5));
      time += rand() < 0.01 ? 1000 * rand() : rand() < 0.002 ? -50 * rand() : 1e-5 * (1 + Math.floor(rand() * 3));
      if (options.channels !== false && rand() < 0.03) channel = Math.floor(rand() * 4);
      x += 37 + Math.floor(rand() * 9);
      if (rand() < 0.002) {
        x -= 30_000;
        y += 500;
      }
      y += Math.floor(rand() * 5) - 2;
      angle += rand() < 0.1 ? Math.floor(rand() * 7) - 3 : 0;
      if (rand() < 0.005) source = 1 + Math.floor(rand() * 60_000);
    } else {
      r++;
    }
    // The ground wanders; later returns of a pulse lie above it (canopy), each its own height.
    if (r === 1) z += Math.floor(rand() * 61) - 30;
    const height = r === 1 ? 0 : Math.floor(rand() * 2500);
    if (rand() < 0.05) cls = [1, 2, 3, 5, 6, 9, 17, 200][Math.floor(rand() * 8)];
    if (rand() < 0.01) flags = Math.floor(rand() * 64);
    if (rand() < 0.01) user = Math.floor(rand() * 256);
    view.setInt32(at, x + (r - 1) * 3, true);
    view.setInt32(at + 4, y, true);
    view.setInt32(at + 8, z + height, true);
    view.setUint16(at + 12, Math.floor(rand() * 4000) + (r === 1 ? 2000 : 0), true);
    // A few points break the pulse pattern (return numbers up and down), as real files have.
    const rn = rand() < 0.01 ? Math.floor(rand() * 16) : r;
    out[at + 14] = (rn & 15) | ((n & 15) << 4);
    out[at + 15] = (flags & 15) | (channel << 4) | ((flags >> 4) << 6);
    out[at + 16] = cls;
    out[at + 17] = user;
    view.setInt16(at + 18, angle, true);
    view.setUint16(at + 20, source, true);
    view.setFloat64(at + 22, time, true);
    let next = at + 30;
    if (format === 7 || format === 8) {
      if (rand() < 0.3) {
        red = (red + Math.floor(rand() * 2001) - 1000) & 0xffff;
        green = rand() < 0.1 ? red : (green + Math.floor(rand() * 601) - 300) & 0xffff;
        blue = rand() < 0.1 ? red : (blue + Math.floor(rand() * 3001) - 1500) & 0xffff;
      }
      view.setUint16(next, red, true);
      view.setUint16(next + 2, green, true);
      view.setUint16(next + 4, blue, true);
      next += 6;
    }
    if (format === 8) {
      if (rand() < 0.2) nir = (nir + Math.floor(rand() * 513) - 256) & 0xffff;
      view.setUint16(next, nir, true);
      next += 2;
    }
    for (let b = 0; b < extra; b++) {
      if (rand() < 0.1 * (b + 1) / extra) extras[b] = Math.floor(rand() * 256);
      out[next + b] = extras[b];
    }
  }
  return out;
}

/** One layered chunk of the records, compressed by the CPU library. */
export function compressChunk(records: Uint8Array, count: number, format: number, extra: number): Uint8Array {
  const reader = nativeReader();
  if (!reader) throw new Error('the native CPU library is not built');
  const items = Uint16Array.from(layeredItems(format, extra).flatMap((i) => [i.type, i.size, i.version]));
  const length = layeredRecordLength(format, extra);
  let room = 2 * count * length + 4096;
  for (;;) {
    const out = new Uint8Array(room);
    const written = new BigUint64Array(1);
    const status = reader.compressLazChunk(records, count, items, items.length / 3, length, out, room, written) as number;
    if (status === 0) return out.subarray(0, Number(written[0]));
    if (Number(written[0]) <= room) throw new Error(`xhd_compress_laz_chunk: ${reader.lastError()}`);
    room = Number(written[0]);
  }
}

/** The LASzip VLR of layered items in chunks of `chunkSize` points (0xffffffff: variable, from the table). */
export function laszipVlr(format: number, extra: number, chunkSize: number): LasRecord {
  const items = layeredItems(format, extra);
  const payload = new Uint8Array(34 + 6 * items.length);
  const view = new DataView(payload.buffer);
  view.setUint16(0, 3, true); // compressor: layered chunked
  view.setUint8(4, 3);
  view.setUint8(5, 4);
  view.setUint32(12, chunkSize, true);
  view.setBigInt64(16, -1n, true);
  view.setBigInt64(24, -1n, true);
  view.setUint16(32, items.length, true);
  items.forEach((item, i) => {
    view.setUint16(34 + 6 * i, item.type, true);
    view.setUint16(36 + 6 * i, item.size, true);
    view.setUint16(38 + 6 * i, item.version, true);
  });
  return { userId: 'laszip encoded', recordId: 22204, payload };
}

export interface LayeredFile {
  format: number;
  extra?: number;
  /** Points of each chunk, in order (their sum is the records' count). */
  chunks: number[];
  /** Fixed-size chunks (every chunk but the last of chunks[0] points) instead of variable-sized ones. */
  fixed?: boolean;
  scale?: [number, number, number];
  offset?: [number, number, number];
  /** VLRs before the LASzip VLR (COPC's info VLR must come first). */
  vlrsBefore?: LasRecord[];
}

export interface LayeredLayout {
  bytes: Uint8Array;
  /** File offset and byte count of each chunk. */
  chunkAt: { offset: number; bytes: number }[];
  /** Where the chunk table starts (EVLRs may be appended after it). */
  end: number;
}

/**
 * A LAS 1.4 file of the records compressed in the given chunks, with its chunk table after them; the
 * header's counts (64-bit and by return) and bounds are those of the records.
 */
export function layeredLaz(records: Uint8Array, file: LayeredFile): LayeredLayout {
  const extra = file.extra ?? 0;
  const length = layeredRecordLength(file.format, extra);
  const count = records.length / length;
  const scale = file.scale ?? [0.01, 0.01, 0.01], offset = file.offset ?? [0, 0, 0];
  const vlrs = [...(file.vlrsBefore ?? []), laszipVlr(file.format, extra, file.fixed ? file.chunks[0] : 0xffffffff)];
  const head = lasBytes([], { minor: 4, format: file.format, formatByte: file.format | 0x80, recordLength: length, scale, offset, vlrs });
  const chunks: Uint8Array[] = [];
  let first = 0;
  for (const points of file.chunks) {
    chunks.push(compressChunk(records.subarray(first * length, (first + points) * length), points, file.format, extra));
    first += points;
  }
  if (first !== count) throw new Error(`the chunks hold ${first} points, the records ${count}`);
  const table = chunkTableBytes(chunks.map((c, i) => ({ points: file.chunks[i], bytes: c.length })), !file.fixed);
  const dataAt = head.length;
  const tableAt = dataAt + 8 + chunks.reduce((n, c) => n + c.length, 0);
  const bytes = new Uint8Array(tableAt + table.length);
  bytes.set(head);
  const view = new DataView(bytes.buffer);
  view.setBigInt64(dataAt, BigInt(tableAt), true);
  const chunkAt: { offset: number; bytes: number }[] = [];
  let at = dataAt + 8;
  for (const c of chunks) {
    bytes.set(c, at);
    chunkAt.push({ offset: at, bytes: c.length });
    at += c.length;
  }
  bytes.set(table, tableAt);
  fillHeader(view, records, length, count, scale, offset);
  return { bytes, chunkAt, end: bytes.length };
}

/** The header's point counts (legacy 0: format 6+), counts by return and bounds, from the records. */
function fillHeader(view: DataView, records: Uint8Array, length: number, count: number, scale: number[], offset: number[]): void {
  const rv = new DataView(records.buffer, records.byteOffset, records.byteLength);
  const byReturn = new Array(15).fill(0);
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < count; i++) {
    const at = i * length;
    const rn = records[at + 14] & 15;
    if (rn >= 1) byReturn[rn - 1]++;
    for (let k = 0; k < 3; k++) {
      const v = rv.getInt32(at + 4 * k, true) * scale[k] + offset[k];
      if (v < min[k]) min[k] = v;
      if (v > max[k]) max[k] = v;
    }
  }
  view.setUint32(107, 0, true);
  for (let i = 0; i < 5; i++) view.setUint32(111 + 4 * i, 0, true);
  for (let k = 0; k < 3; k++) {
    view.setFloat64(179 + 16 * k, count ? max[k] : 0, true);
    view.setFloat64(187 + 16 * k, count ? min[k] : 0, true);
  }
  view.setBigUint64(247, BigInt(count), true);
  for (let i = 0; i < 15; i++) view.setBigUint64(255 + 8 * i, BigInt(byReturn[i]), true);
}

/** Splits `count` points into chunks of `size` (the last one shorter). */
export function chunkSizes(count: number, size: number): number[] {
  const sizes: number[] = [];
  for (let at = 0; at < count; at += size) sizes.push(Math.min(size, count - at));
  return sizes;
}
