// COPC (Cloud Optimized Point Cloud, copc.io): a LAZ 1.4 file of point format 6, 7 or 8 whose first VLR, right
// after the header, is the `copc` info record: the octree's root cube (centre and half size), the point spacing
// at its root, and where the root page of its hierarchy lies. This module finds and checks that record.
import { InputError } from '../core/errors.js';
import type { LasHeader } from './las-header.js';
import { readVlrPayload, type LasVlr } from './las-vlrs.js';

export interface CopcInfo {
  center: [number, number, number];
  halfSize: number;
  spacing: number;
  /** File offset and bytes of the hierarchy's root page. */
  rootPageOffset: number;
  rootPageBytes: number;
  /** Where the root page's offset is written (the byte an error about it names). */
  rootFieldAt: number;
}

const INFO_BYTES = 160;

/** The COPC info VLR, when the file is COPC: the first VLR, user id "copc", record 1. */
export function findCopcInfo(vlrs: LasVlr[]): LasVlr | undefined {
  const first = vlrs[0];
  return first && !first.extended && first.userId === 'copc' && first.recordId === 1 ? first : undefined;
}

export function readCopcInfo(fd: number, file: string, header: LasHeader, vlr: LasVlr): CopcInfo {
  if (!header.compressed || header.pointFormat.id < 6 || header.pointFormat.id > 8) {
    throw new InputError(file, { byte: 104 }, `a COPC file holds LAZ point format 6, 7 or 8, not ${header.compressed ? 'LAZ' : 'LAS'} point format ${header.pointFormat.id}`);
  }
  if (vlr.payloadLength < INFO_BYTES) throw new InputError(file, { byte: vlr.payloadOffset }, `the COPC info VLR is ${vlr.payloadLength} bytes, not ${INFO_BYTES}`);
  const view = new DataView(readVlrPayload(fd, vlr).buffer);
  const center: [number, number, number] = [view.getFloat64(0, true), view.getFloat64(8, true), view.getFloat64(16, true)];
  const halfSize = view.getFloat64(24, true);
  if (!center.every(Number.isFinite) || !(halfSize > 0 && Number.isFinite(halfSize))) {
    throw new InputError(file, { byte: vlr.payloadOffset }, `the COPC octree's cube (centre ${center.join(', ')}, half size ${halfSize}) is not a cube`);
  }
  const rootPageOffset = Number(view.getBigUint64(40, true)), rootPageBytes = Number(view.getBigUint64(48, true));
  return { center, halfSize, spacing: view.getFloat64(32, true), rootPageOffset, rootPageBytes, rootFieldAt: vlr.payloadOffset + 40 };
}
