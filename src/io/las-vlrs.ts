// The variable length records of a LAS file: the VLRs between the header and the points, and LAS 1.4's
// extended VLRs (EVLRs) wherever the header puts them. Each is checked to lie where it must before its
// payload is read; only the payloads xhd uses (CRS, LASzip) are read at all.
import { InputError } from '../core/errors.js';
import { readFully } from './input-file.js';
import type { LasHeader } from './las-header.js';

export interface LasVlr {
  userId: string;
  recordId: number;
  /** File offset of the payload (after the record's own header). */
  payloadOffset: number;
  payloadLength: number;
  /** True for an EVLR. */
  extended: boolean;
}

const VLR_HEADER = 54;
const EVLR_HEADER = 60;
/** The largest EVLR payload read (a WKT or GeoTIFF record is a few KiB; anything larger is not one xhd reads). */
export const MAX_PAYLOAD = 16 * 1024 * 1024;

function userId(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return new TextDecoder('latin1').decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** Every VLR and EVLR header of the file open as `fd`. */
export function readLasVlrs(fd: number, header: LasHeader, fileSize: number, file: string): LasVlr[] {
  const vlrs: LasVlr[] = [];
  const record = new Uint8Array(EVLR_HEADER);
  const view = new DataView(record.buffer);
  let at = header.headerSize;
  for (let i = 0; i < header.vlrCount; i++) {
    if (at + VLR_HEADER > header.pointDataOffset) {
      throw new InputError(file, { byte: at }, `VLR ${i + 1} of ${header.vlrCount} runs past the start of the point data (byte ${header.pointDataOffset})`);
    }
    readFully(fd, record, 0, VLR_HEADER, at);
    const payloadLength = view.getUint16(20, true);
    const payloadOffset = at + VLR_HEADER;
    if (payloadOffset + payloadLength > header.pointDataOffset) {
      throw new InputError(file, { byte: at + 20 }, `VLR ${i + 1} of ${header.vlrCount} declares ${payloadLength} bytes, running past the start of the point data (byte ${header.pointDataOffset})`);
    }
    vlrs.push({ userId: userId(record.subarray(2, 18)), recordId: view.getUint16(18, true), payloadOffset, payloadLength, extended: false });
    at = payloadOffset + payloadLength;
  }
  if (header.evlrCount === 0) return vlrs;
  at = header.evlrOffset;
  if (at < header.pointDataOffset) throw new InputError(file, { byte: 235 }, `the first EVLR's offset ${at} lies before the point data (byte ${header.pointDataOffset})`);
  for (let i = 0; i < header.evlrCount; i++) {
    if (at + EVLR_HEADER > fileSize) {
      throw new InputError(file, { byte: Math.min(at, fileSize) }, `EVLR ${i + 1} of ${header.evlrCount} starts at byte ${at}, past the file's end (${fileSize} bytes)`);
    }
    readFully(fd, record, 0, EVLR_HEADER, at);
    const length = view.getBigUint64(20, true);
    const payloadOffset = at + EVLR_HEADER;
    if (length > BigInt(fileSize - payloadOffset)) {
      throw new InputError(file, { byte: at + 20 }, `EVLR ${i + 1} of ${header.evlrCount} declares ${length} bytes, past the file's end (${fileSize} bytes)`);
    }
    const payloadLength = Number(length);
    vlrs.push({ userId: userId(record.subarray(2, 18)), recordId: view.getUint16(18, true), payloadOffset, payloadLength, extended: true });
    at = payloadOffset + payloadLength;
  }
  return vlrs;
}

/** A record's payload, read from the file (the caller has decided it is one worth reading). */
export function readVlrPayload(fd: number, vlr: LasVlr): Uint8Array {
  const bytes = new Uint8Array(vlr.payloadLength);
  readFully(fd, bytes, 0, vlr.payloadLength, vlr.payloadOffset);
  return bytes;
}
