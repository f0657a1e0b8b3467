// A COPC file's hierarchy: pages of 32-byte entries, each a node of the octree (level, x, y, z) with the
// offset, bytes and point count of its LAZ chunk, or (point count -1) the offset and bytes of another page.
// Every entry is checked against the file before a point is decoded: pages inside the file and read once
// (no cycle), nodes' chunks inside the point data and apart, point counts neither negative nor more than the
// file or their bytes hold, keys inside their level, and the nodes' points adding up to the header's count.
import { InputError } from '../core/errors.js';
import { readFully } from './input-file.js';
import type { CopcInfo } from './copc-info.js';
import type { LasHeader } from './las-header.js';
import { MAX_POINTS_PER_BYTE } from './laz-chunks.js';

export interface CopcNode {
  level: number;
  x: number;
  y: number;
  z: number;
  /** The node's LAZ chunk. */
  offset: number;
  bytes: number;
  points: number;
  /** The file offset of its hierarchy entry (errors name it). */
  entryAt: number;
}

const ENTRY = 32;
/** Levels a key may have: a cube halved 32 times is finer than any LAS grid. */
const MAX_LEVEL = 32;

/** Every node of the hierarchy holding points, in file order of their chunks. */
export function readCopcHierarchy(fd: number, file: string, fileSize: number, header: LasHeader, info: CopcInfo): CopcNode[] {
  const fail = (byte: number, message: string) => new InputError(file, { byte }, message);
  if (info.rootPageBytes === 0 || info.rootPageOffset === 0) throw fail(info.rootFieldAt, 'the COPC hierarchy has no root page');
  const nodes: CopcNode[] = [];
  const seenPages = new Set<number>();
  const seenKeys = new Set<string>();
  // Real pages never overlap, so their entries together are fewer than the file's bytes hold.
  let entriesLeft = Math.floor(fileSize / ENTRY);
  const pages: { offset: number; bytes: number; from: number }[] = [{ offset: info.rootPageOffset, bytes: info.rootPageBytes, from: info.rootFieldAt }];
  let total = 0;
  while (pages.length > 0) {
    const page = pages.pop()!;
    if (!(page.offset >= header.headerSize && page.bytes > 0 && page.offset + page.bytes <= fileSize)) {
      throw fail(page.from, `the COPC hierarchy page of ${page.bytes} bytes at byte ${page.offset} lies outside the file (${fileSize} bytes)`);
    }
    if (page.bytes % ENTRY !== 0) throw fail(page.from, `the COPC hierarchy page at byte ${page.offset} is ${page.bytes} bytes, not a whole number of ${ENTRY}-byte entries`);
    if (seenPages.has(page.offset)) throw fail(page.from, `the COPC hierarchy page at byte ${page.offset} is reached twice: the hierarchy has a cycle`);
    seenPages.add(page.offset);
    entriesLeft -= page.bytes / ENTRY;
    if (entriesLeft < 0) throw fail(page.from, 'the COPC hierarchy pages overlap: they hold more entries than the file has room for');
    const bytes = new Uint8Array(page.bytes);
    readFully(fd, bytes, 0, page.bytes, page.offset);
    const view = new DataView(bytes.buffer);
    for (let at = 0; at < page.bytes; at += ENTRY) {
      const entryAt = page.offset + at;
      const level = view.getInt32(at, true), x = view.getInt32(at + 4, true), y = view.getInt32(at + 8, true), z = view.getInt32(at + 12, true);
      const offset = Number(view.getBigUint64(at + 16, true));
      const size = view.getInt32(at + 24, true), points = view.getInt32(at + 28, true);
      const side = 2 ** level;
      if (!(level >= 0 && level <= MAX_LEVEL) || [x, y, z].some((k) => k < 0 || k >= side)) {
        throw fail(entryAt, `COPC hierarchy entry ${level}-${x}-${y}-${z} is not a node of the octree (level 0 to ${MAX_LEVEL}, each index below 2^level)`);
      }
      const key = `${level}-${x}-${y}-${z}`;
      if (points === -1) {
        pages.push({ offset, bytes: size, from: entryAt });
        continue;
      }
      if (seenKeys.has(key)) throw fail(entryAt, `COPC hierarchy node ${key} is listed twice`);
      seenKeys.add(key);
      if (points < 0) throw fail(entryAt, `COPC hierarchy node ${key} has a negative point count (${points})`);
      if (points === 0) continue;
      if (points > header.pointCount - total) {
        throw fail(entryAt, `COPC hierarchy node ${key} claims ${points} points: with the nodes before it, more than the file's ${header.pointCount}`);
      }
      if (!(size > 0 && offset >= header.pointDataOffset + 8 && offset + size <= fileSize)) {
        throw fail(entryAt, `COPC hierarchy node ${key} points to ${size} bytes at byte ${offset}, outside the file's point data (${header.pointDataOffset + 8}..${fileSize})`);
      }
      if (points > MAX_POINTS_PER_BYTE * size) throw fail(entryAt, `COPC hierarchy node ${key} claims ${points} points in ${size} bytes, more than LASzip can pack into them`);
      total += points;
      nodes.push({ level, x, y, z, offset, bytes: size, points, entryAt });
    }
  }
  if (total !== header.pointCount) {
    throw fail(info.rootFieldAt, `the COPC hierarchy's nodes hold ${total} points, but the header declares ${header.pointCount}`);
  }
  nodes.sort((a, b) => a.offset - b.offset || a.entryAt - b.entryAt);
  for (let i = 1; i < nodes.length; i++) {
    const before = nodes[i - 1];
    if (nodes[i].offset < before.offset + before.bytes) {
      throw fail(nodes[i].entryAt, `COPC hierarchy node ${nodes[i].level}-${nodes[i].x}-${nodes[i].y}-${nodes[i].z}'s chunk (byte ${nodes[i].offset}) overlaps node ${before.level}-${before.x}-${before.y}-${before.z}'s`);
    }
  }
  return nodes;
}
