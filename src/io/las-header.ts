// The public header block of a LAS file (versions 1.0-1.4; LAZ files share it, with the point format's top
// bits set), read from the file's first bytes and checked against the file's size before anything is
// allocated from it: every count and offset a reader later trusts is checked here.
import { InputError } from '../core/errors.js';
import { LAS_POINT_FORMATS, type LasPointFormat } from './las-point-formats.js';

export interface LasHeader {
  versionMajor: number;
  versionMinor: number;
  /** The global encoding bits (bit 4: the CRS is WKT, LAS 1.4). */
  globalEncoding: number;
  systemId: string;
  software: string;
  headerSize: number;
  pointDataOffset: number;
  vlrCount: number;
  pointFormat: LasPointFormat;
  /** True when the format byte has its compression bit (LAZ). */
  compressed: boolean;
  recordLength: number;
  /** The point count: the 64-bit one of LAS 1.4, else the legacy 32-bit one. */
  pointCount: number;
  /** Points by return number as the header states them (5 in LAS 1.0-1.3, 15 in 1.4). */
  pointsByReturn: number[];
  scale: [number, number, number];
  offset: [number, number, number];
  /** The header's bounds of the scaled coordinates. */
  min: [number, number, number];
  max: [number, number, number];
  /** LAS 1.4: where the extended VLRs start, and how many there are (0 and 0 before 1.4). */
  evlrOffset: number;
  evlrCount: number;
}

/** The smallest header each minor version allows (1.0-1.2: 227 bytes; 1.3 adds the waveform offset; 1.4 the EVLRs and 64-bit counts). */
const HEADER_SIZES = [227, 227, 227, 235, 375];

/** Bytes read from the file's start to parse the header (the largest header with room to spare). */
export const LAS_HEADER_PROBE = 375;

/** True when `bytes` start with the LAS file signature. */
export function looksLikeLas(bytes: Uint8Array): boolean {
  return bytes[0] === 0x4c && bytes[1] === 0x41 && bytes[2] === 0x53 && bytes[3] === 0x46; // "LASF"
}

function text(bytes: Uint8Array, start: number, length: number): string {
  const field = bytes.subarray(start, start + length);
  const end = field.indexOf(0);
  return new TextDecoder('latin1').decode(end < 0 ? field : field.subarray(0, end)).trim();
}

/** An unsigned 64-bit count at `at`, refused (naming its byte) when no file could hold that many of anything. */
function count64(view: DataView, at: number, file: string, what: string): number {
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new InputError(file, { byte: at }, `${what} ${value} is beyond any file's size`);
  return Number(value);
}

/** Parses and checks the header of a LAS/LAZ file of `fileSize` bytes from its first bytes. */
export function parseLasHeader(bytes: Uint8Array, fileSize: number, file: string): LasHeader {
  if (!looksLikeLas(bytes)) throw new InputError(file, { byte: 0 }, "not a LAS file: it does not start with 'LASF'");
  if (bytes.length < 227) throw new InputError(file, { byte: bytes.length }, `file is truncated: a LAS header takes at least 227 bytes, the file has ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const versionMajor = bytes[24], versionMinor = bytes[25];
  if (versionMajor !== 1 || versionMinor > 4) {
    throw new InputError(file, { byte: 24 }, `LAS version ${versionMajor}.${versionMinor} is not supported (1.0 to 1.4 are)`);
  }
  const headerSize = view.getUint16(94, true);
  const needed = HEADER_SIZES[versionMinor];
  if (headerSize < needed) throw new InputError(file, { byte: 94 }, `header size ${headerSize} is too small for LAS 1.${versionMinor} (at least ${needed} bytes)`);
  if (headerSize > fileSize) throw new InputError(file, { byte: 94 }, `header size ${headerSize} is beyond the file's end (${fileSize} bytes)`);
  if (bytes.length < needed) throw new InputError(file, { byte: bytes.length }, `file is truncated inside its ${needed}-byte header`);
  const pointDataOffset = view.getUint32(96, true);
  if (pointDataOffset < headerSize || pointDataOffset > fileSize) {
    throw new InputError(file, { byte: 96 }, `offset to point data ${pointDataOffset} lies outside ${headerSize}..${fileSize} (after the header, inside the file)`);
  }
  const formatByte = bytes[104];
  // LAZ writers set bit 7 (and some bit 6) of the format byte to stop LAS readers from misreading the points.
  const compressed = (formatByte & 0x80) !== 0;
  const pointFormat = LAS_POINT_FORMATS[formatByte & 0x3f];
  if (!pointFormat) throw new InputError(file, { byte: 104 }, `point data format ${formatByte & 0x3f} is not one of LAS's 0 to 10`);
  const recordLength = view.getUint16(105, true);
  if (recordLength < pointFormat.minLength) {
    throw new InputError(file, { byte: 105 }, `point record length ${recordLength} is shorter than point format ${pointFormat.id}'s ${pointFormat.minLength} bytes`);
  }
  const legacyCount = view.getUint32(107, true);
  const pointsByReturn = Array.from({ length: 5 }, (_, i) => view.getUint32(111 + 4 * i, true));
  let pointCount = legacyCount;
  let evlrOffset = 0, evlrCount = 0;
  if (versionMinor >= 4) {
    evlrOffset = count64(view, 235, file, 'offset to the first extended VLR');
    evlrCount = view.getUint32(243, true);
    pointCount = count64(view, 247, file, 'point count');
    // Formats 6-10 leave the legacy count 0; where both are set they must agree, or one of them lies.
    if (legacyCount !== 0 && legacyCount !== pointCount) {
      throw new InputError(file, { byte: 107 }, `legacy point count ${legacyCount} disagrees with the 64-bit point count ${pointCount} (byte 247)`);
    }
    for (let i = 0; i < 15; i++) pointsByReturn[i] = count64(view, 255 + 8 * i, file, 'points by return');
  }
  const scale = [131, 139, 147].map((at) => view.getFloat64(at, true)) as [number, number, number];
  const offset = [155, 163, 171].map((at) => view.getFloat64(at, true)) as [number, number, number];
  scale.forEach((s, axis) => {
    if (!(Number.isFinite(s) && s !== 0)) throw new InputError(file, { byte: 131 + 8 * axis }, `${'xyz'[axis]} scale factor ${s} is not a finite nonzero number`);
  });
  offset.forEach((o, axis) => {
    if (!Number.isFinite(o)) throw new InputError(file, { byte: 155 + 8 * axis }, `${'xyz'[axis]} offset ${o} is not finite`);
  });
  const bound = (at: number) => view.getFloat64(at, true);
  return {
    versionMajor,
    versionMinor,
    globalEncoding: versionMinor >= 1 ? view.getUint16(6, true) : 0, // LAS 1.0 has 4 reserved bytes there
    systemId: text(bytes, 26, 32),
    software: text(bytes, 58, 32),
    headerSize,
    pointDataOffset,
    vlrCount: view.getUint32(100, true),
    pointFormat,
    compressed,
    recordLength,
    pointCount,
    pointsByReturn,
    scale,
    offset,
    max: [bound(179), bound(195), bound(211)],
    min: [bound(187), bound(203), bound(219)],
    evlrOffset,
    evlrCount,
  };
}

/**
 * Refuses an uncompressed body that cannot hold the declared points, before any point is allocated:
 * the error is at the file's end, where the data ran out.
 */
export function checkLasBodySize(header: LasHeader, fileSize: number, file: string): void {
  const needed = header.pointDataOffset + header.pointCount * header.recordLength;
  if (needed > fileSize) {
    const whole = Math.floor((fileSize - header.pointDataOffset) / header.recordLength);
    throw new InputError(file, { byte: fileSize },
      `file is truncated: the header declares ${header.pointCount} points of ${header.recordLength} bytes from byte ${header.pointDataOffset}, ` +
      `which needs ${needed} bytes, but the file has ${fileSize} (room for ${whole} points)`);
  }
}

/** "1.4", the way LAS versions are written. */
export function lasVersion(header: LasHeader): string {
  return `${header.versionMajor}.${header.versionMinor}`;
}
