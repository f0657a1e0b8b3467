// What xhd info shows of a LAS/LAZ file: its header's facts, and the records counted by class and return
// while they were decoded (every record in the file, whatever the filters kept).
import { lasVersion, type LasHeader } from './las-header.js';
import { TALLY_CLASSES, TALLY_RETURNS } from './las-tally.js';
import type { CopcSummary } from './copc-select.js';

export interface LidarSummary {
  version: string;
  pointFormat: number;
  recordLength: number;
  compressed: boolean;
  /** Records in the file (before filters). */
  pointsInFile: number;
  /** Records by classification code, codes with none left out. */
  byClass: Record<string, number>;
  /** Records by return number, numbers with none left out. */
  byReturn: Record<string, number>;
  scale: [number, number, number];
  offset: [number, number, number];
  /** The bounds the header states. */
  headerMin: [number, number, number];
  headerMax: [number, number, number];
  systemId: string;
  software: string;
  /** LAZ: the LASzip compressor, its chunk size (null for variable-sized chunks), the chunk count, and which decoder decoded them. */
  laz?: { compressor: string; chunkSize: number | null; chunks: number; decoder: 'xhd native' | 'xhd' | 'laz-perf' };
  /** COPC: the octree (depth, nodes, points by level) and the nodes decoded. */
  copc?: CopcSummary;
}

function nonzero(tally: Float64Array, from: number, length: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = 0; i < length; i++) if (tally[from + i] > 0) counts[String(i)] = tally[from + i];
  return counts;
}

export function lidarSummary(header: LasHeader, tally: Float64Array, laz?: LidarSummary['laz'], copc?: CopcSummary): LidarSummary {
  const summary: LidarSummary = {
    version: lasVersion(header),
    pointFormat: header.pointFormat.id,
    recordLength: header.recordLength,
    compressed: header.compressed,
    pointsInFile: header.pointCount,
    byClass: nonzero(tally, TALLY_CLASSES, 256),
    byReturn: nonzero(tally, TALLY_RETURNS, 16),
    scale: header.scale,
    offset: header.offset,
    headerMin: header.min,
    headerMax: header.max,
    systemId: header.systemId,
    software: header.software,
  };
  if (laz) summary.laz = laz;
  if (copc) summary.copc = copc;
  return summary;
}
