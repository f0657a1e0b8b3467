// COPC files for the tests: records of point format 6-8 spread over an octree (each point in the shallowest
// node of its cube that still has room, so that every level samples the whole cloud, as COPC writers do),
// each node's points one layered LAZ chunk (laz-layered-writer.ts), and the hierarchy written as an EVLR:
// a root page holding the root node and, for each level-1 node, an entry pointing to a page of its own
// subtree (or everything in the root page). The info VLR comes first, right after the header.
import { layeredLaz, layeredRecordLength } from './laz-layered-writer.js';

export interface CopcBuild {
  format: number;
  extra?: number;
  /** Points a node holds before the points of its cube go one level deeper. */
  capacity: number;
  /** Deepest level (its nodes take whatever reaches them). */
  maxLevel: number;
  /** Subtrees below level 1 in pages of their own (default), or one root page. */
  pages?: boolean;
  scale?: [number, number, number];
  offset?: [number, number, number];
}

export interface CopcNodeWritten {
  key: [number, number, number, number];
  /** Indices of its records in the input. */
  records: number[];
  offset: number;
  bytes: number;
  /** Where its hierarchy entry is in the file. */
  entryAt: number;
}

export interface CopcFile {
  bytes: Uint8Array;
  nodes: CopcNodeWritten[];
  center: [number, number, number];
  halfSize: number;
  /** File offsets of the root page and of the entries pointing to child pages. */
  rootPage: { offset: number; bytes: number };
  pagePointers: number[];
  /** Where the info VLR's root page offset is. */
  rootFieldAt: number;
}

const INFO_AT = 375 + 54; // the info VLR's payload: the first VLR after a LAS 1.4 header

export function copcBytes(records: Uint8Array, build: CopcBuild): CopcFile {
  const extra = build.extra ?? 0;
  const length = layeredRecordLength(build.format, extra);
  const count = records.length / length;
  const scale = build.scale ?? [0.01, 0.01, 0.01], offset = build.offset ?? [0, 0, 0];
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  const xyz = (i: number) => [0, 1, 2].map((k) => view.getInt32(i * length + 4 * k, true) * scale[k] + offset[k]);
  const min = [Infinity, Infinity, Infinity], max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < count; i++) {
    xyz(i).forEach((v, k) => {
      min[k] = Math.min(min[k], v);
      max[k] = Math.max(max[k], v);
    });
  }
  const center = [0, 1, 2].map((k) => (min[k] + max[k]) / 2) as [number, number, number];
  const halfSize = Math.max(...[0, 1, 2].map((k) => (max[k] - min[k]) / 2)) * 1.001 + 1;
  // Each point goes to the shallowest level whose node of its cube has room.
  const byKey = new Map<string, CopcNodeWritten>();
  for (let i = 0; i < count; i++) {
    const p = xyz(i);
    for (let level = 0; level <= build.maxLevel; level++) {
      const cells = 2 ** level, side = (2 * halfSize) / cells;
      const cell = p.map((v, k) => Math.min(cells - 1, Math.floor((v - (center[k] - halfSize)) / side)));
      const name = `${level}-${cell.join('-')}`;
      let node = byKey.get(name);
      if (!node) byKey.set(name, (node = { key: [level, cell[0], cell[1], cell[2]], records: [], offset: 0, bytes: 0, entryAt: 0 }));
      if (node.records.length < build.capacity || level === build.maxLevel) {
        node.records.push(i);
        break;
      }
    }
  }
  const nodes = [...byKey.values()].filter((n) => n.records.length > 0);
  nodes.sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2] || a.key[3] - b.key[3]);
  // The records in node order, each node one chunk.
  const ordered = new Uint8Array(records.length);
  let at = 0;
  for (const n of nodes) for (const i of n.records) ordered.set(records.subarray(i * length, (i + 1) * length), length * at++);
  const info = { userId: 'copc', recordId: 1, payload: new Uint8Array(160) };
  const laz = layeredLaz(ordered, { format: build.format, extra, chunks: nodes.map((n) => n.records.length), scale, offset, vlrsBefore: [info] });
  nodes.forEach((n, i) => Object.assign(n, laz.chunkAt[i]));

  // The hierarchy pages: the root (level 0 and pointers to level-1 subtrees), then a page a subtree.
  const entry = (key: number[], offset: number, bytes: number, points: number) => {
    const e = new Uint8Array(32);
    const v = new DataView(e.buffer);
    key.forEach((k, i) => v.setInt32(4 * i, k, true));
    v.setBigUint64(16, BigInt(offset), true);
    v.setInt32(24, bytes, true);
    v.setInt32(28, points, true);
    return e;
  };
  const paged = build.pages !== false;
  const subtree = (n: CopcNodeWritten) => n.key[0] === 0 ? 'root' : `${n.key[1] >> (n.key[0] - 1)}-${n.key[2] >> (n.key[0] - 1)}-${n.key[3] >> (n.key[0] - 1)}`;
  const groups = new Map<string, CopcNodeWritten[]>();
  for (const n of nodes) {
    const g = paged ? subtree(n) : 'root';
    groups.set(g, [...(groups.get(g) ?? []), n]);
  }
  const children = [...groups.keys()].filter((g) => g !== 'root');
  const rootEntries = (groups.get('root') ?? []).length + children.length;
  const evlrAt = laz.end, pageAt = evlrAt + 60;
  const rootBytes = 32 * rootEntries;
  const pageOffsets = new Map<string, number>();
  let next = pageAt + rootBytes;
  for (const g of children) {
    pageOffsets.set(g, next);
    next += 32 * groups.get(g)!.length;
  }
  const hierarchy = new Uint8Array(next - pageAt);
  let w = 0;
  const pagePointers: number[] = [];
  const put = (e: Uint8Array, node?: CopcNodeWritten) => {
    if (node) node.entryAt = pageAt + w;
    hierarchy.set(e, w);
    w += 32;
  };
  for (const n of groups.get('root') ?? []) put(entry(n.key, n.offset, n.bytes, n.records.length), n);
  for (const g of children) {
    const [x, y, z] = g.split('-').map(Number);
    pagePointers.push(pageAt + w);
    put(entry([1, x, y, z], pageOffsets.get(g)!, 32 * groups.get(g)!.length, -1));
  }
  for (const g of children) for (const n of groups.get(g)!) put(entry(n.key, n.offset, n.bytes, n.records.length), n);

  const bytes = new Uint8Array(next);
  bytes.set(laz.bytes);
  const out = new DataView(bytes.buffer);
  // The EVLR's header: user id "copc", record 1000, its payload's length.
  bytes.set(new TextEncoder().encode('copc'), evlrAt + 2);
  out.setUint16(evlrAt + 18, 1000, true);
  out.setBigUint64(evlrAt + 20, BigInt(hierarchy.length), true);
  bytes.set(hierarchy, pageAt);
  out.setBigUint64(235, BigInt(evlrAt), true);
  out.setUint32(243, 1, true);
  // The info VLR: the cube, a spacing, the root page.
  center.forEach((c, k) => out.setFloat64(INFO_AT + 8 * k, c, true));
  out.setFloat64(INFO_AT + 24, halfSize, true);
  out.setFloat64(INFO_AT + 32, (2 * halfSize) / Math.sqrt(build.capacity), true);
  out.setBigUint64(INFO_AT + 40, BigInt(pageAt), true);
  out.setBigUint64(INFO_AT + 48, BigInt(rootBytes), true);
  return { bytes, nodes, center, halfSize, rootPage: { offset: pageAt, bytes: rootBytes }, pagePointers, rootFieldAt: INFO_AT + 40 };
}
