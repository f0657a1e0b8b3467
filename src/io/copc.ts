// A COPC file's points as LAZ chunks: its hierarchy's nodes (all of them, or those whose cube meets --bbox)
// become the chunks the LAZ decoders read, each node's points once, in file order. The LAZ chunk table is not
// read: the hierarchy says where every node's chunk is.
import type { LasHeader } from './las-header.js';
import type { RecordFilter } from './las-records.js';
import type { LasVlr } from './las-vlrs.js';
import { readLaszipVlr, type LazLayout } from './laz-chunks.js';
import { readCopcHierarchy } from './copc-hierarchy.js';
import { readCopcInfo } from './copc-info.js';
import { copcSummary, selectNodes, type CopcSummary } from './copc-select.js';

export function readCopcLayout(fd: number, file: string, fileSize: number, header: LasHeader, vlrs: LasVlr[], info: LasVlr, filter: RecordFilter | null):
  { layout: LazLayout; copc: CopcSummary } {
  const copcInfo = readCopcInfo(fd, file, header, info);
  const vlr = readLaszipVlr(fd, file, header, vlrs);
  const nodes = readCopcHierarchy(fd, file, fileSize, header, copcInfo);
  const read = selectNodes(nodes, copcInfo, filter?.box ?? null, header.scale);
  let firstPoint = 0;
  const chunks = read.map((n) => {
    const chunk = { offset: n.offset, bytes: n.bytes, points: n.points, firstPoint };
    firstPoint += n.points;
    return chunk;
  });
  return { layout: { ...vlr, chunks, tableOffsetAt: header.pointDataOffset }, copc: copcSummary(nodes, read) };
}
