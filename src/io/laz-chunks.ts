// A LAZ file's layout: the LASzip VLR (compressor, chunk size, items) and the chunk table, whose entries
// say where each chunk of compressed points starts and how many points it holds. Everything is checked
// against the file before a point is decoded: chunks inside the point data, in order, their points adding
// up to the header's count.
import { InputError } from '../core/errors.js';
import { readFully } from './input-file.js';
import type { LasHeader } from './las-header.js';
import { readVlrPayload, type LasVlr } from './las-vlrs.js';
import { ArithmeticDecoder, IntegerDecompressor } from './laz-arithmetic.js';
import type { LazItem } from './laz-v2-chunk.js';

export interface LazChunk {
  /** File offset of the chunk's first byte. */
  offset: number;
  bytes: number;
  points: number;
  /** Index of its first point among all the file's points. */
  firstPoint: number;
}

export interface LazLayout {
  compressor: 'pointwise' | 'pointwise chunked' | 'layered chunked';
  /** Points a chunk (all but the last); null for variable-sized chunks, whose counts are in the table. */
  chunkSize: number | null;
  chunks: LazChunk[];
  /** Where the chunk table's offset is read from (the start of the point data). */
  tableOffsetAt: number;
  /** The items of a record, in order, as the LASzip VLR lists them. */
  items: LazItem[];
}

const COMPRESSORS = ['none', 'pointwise', 'pointwise chunked', 'layered chunked'] as const;
const VARIABLE_CHUNKS = 0xffffffff;
/** LASzip's item types of wave packets (version 2 and layered). */
const WAVEPACKET13 = 9, WAVEPACKET14 = 13;
/** More points than LASzip can pack into a chunk's bytes (see readChunkTable). */
export const MAX_POINTS_PER_BYTE = 1024;

/** Reads the LASzip VLR and the chunk table of the LAZ file open as `fd`. */
export function readLazLayout(fd: number, file: string, fileSize: number, header: LasHeader, vlrs: LasVlr[]): LazLayout {
  const { compressor, chunkSize, items } = readLaszipVlr(fd, file, header, vlrs);
  const chunks = readChunkTable(fd, file, fileSize, header, chunkSize);
  return { compressor, chunkSize, chunks, tableOffsetAt: header.pointDataOffset, items };
}

/** The LASzip VLR: how the points are compressed (COPC files take their chunks from their hierarchy instead of the table). */
export function readLaszipVlr(fd: number, file: string, header: LasHeader, vlrs: LasVlr[]): Pick<LazLayout, 'compressor' | 'chunkSize' | 'items'> {
  const vlr = vlrs.find((v) => v.userId === 'laszip encoded' && v.recordId === 22204);
  if (!vlr) throw new InputError(file, { byte: 104 }, 'the point format says compressed (LAZ), but there is no LASzip VLR describing the compression');
  if (vlr.payloadLength < 34) throw new InputError(file, { byte: vlr.payloadOffset }, `the LASzip VLR is ${vlr.payloadLength} bytes, too short (at least 34)`);
  const payload = readVlrPayload(fd, vlr);
  const view = new DataView(payload.buffer);
  const compressorCode = view.getUint16(0, true);
  const compressor = COMPRESSORS[compressorCode];
  if (compressor === undefined || compressor === 'none') throw new InputError(file, { byte: vlr.payloadOffset }, `LASzip compressor ${compressorCode} is not one xhd reads (2, chunked; 3, layered chunked)`);
  if (compressor === 'pointwise') throw new InputError(file, { byte: vlr.payloadOffset }, 'LASzip 1.0 pointwise compression (unchunked) is not supported: re-compress the file with a current LASzip');
  const items = checkItems(file, vlr, view, header);
  const chunkField = view.getUint32(12, true);
  const chunkSize = chunkField === VARIABLE_CHUNKS ? null : chunkField;
  if (chunkSize === 0) throw new InputError(file, { byte: vlr.payloadOffset + 12 }, 'the LASzip chunk size is 0');
  return { compressor, chunkSize, items };
}

/**
 * The VLR lists the items each compressed record holds (point, GPS time, colour, extra bytes...) with their
 * sizes; they must add up to the header's record length, or one of the two lies, and decoding the wrong
 * layout would give wrong points (or take minutes over a record length that claims 64 KiB of extra bytes).
 */
function checkItems(file: string, vlr: LasVlr, view: DataView, header: LasHeader): LazItem[] {
  const items = view.getUint16(32, true);
  if (34 + 6 * items > view.byteLength) {
    throw new InputError(file, { byte: vlr.payloadOffset + 32 }, `the LASzip VLR lists ${items} items, more than its ${view.byteLength} bytes hold`);
  }
  const list = Array.from({ length: items }, (_, i) => ({
    type: view.getUint16(34 + 6 * i, true), size: view.getUint16(36 + 6 * i, true), version: view.getUint16(38 + 6 * i, true),
  }));
  // Wave packet items (point formats 4, 5, 9, 10): neither xhd's decoders nor laz-perf read them.
  const waves = list.findIndex((item) => item.type === WAVEPACKET13 || item.type === WAVEPACKET14);
  if (waves >= 0) {
    throw new InputError(file, { byte: vlr.payloadOffset + 34 + 6 * waves },
      `LAZ with wave packets (point format ${header.pointFormat.id}) is not supported: no decoder xhd has reads LASzip's wave packet items; decompress the file to LAS (laszip) to read it`);
  }
  const bytes = list.reduce((sum, item) => sum + item.size, 0);
  if (bytes !== header.recordLength) {
    throw new InputError(file, { byte: 105 }, `point record length ${header.recordLength} disagrees with the ${bytes} bytes of the LASzip VLR's items`);
  }
  return list;
}

function readChunkTable(fd: number, file: string, fileSize: number, header: LasHeader, chunkSize: number | null): LazChunk[] {
  const start = header.pointDataOffset;
  if (header.pointCount === 0 && start + 8 > fileSize) return [];
  const eight = new Uint8Array(8);
  if (readFully(fd, eight, 0, 8, start) < 8) throw new InputError(file, { byte: start }, 'file is truncated: no chunk table offset after the header and VLRs');
  let tableOffset = Number(new DataView(eight.buffer).getBigInt64(0, true));
  let offsetAt = start;
  if (tableOffset === -1) {
    // A writer that could not seek back leaves -1 here and the table's offset in the file's last 8 bytes.
    offsetAt = fileSize - 8;
    readFully(fd, eight, 0, 8, offsetAt);
    tableOffset = Number(new DataView(eight.buffer).getBigInt64(0, true));
  }
  const chunksStart = start + 8;
  if (!(tableOffset >= chunksStart && tableOffset + 8 <= fileSize)) {
    throw new InputError(file, { byte: offsetAt }, `the chunk table offset ${tableOffset} points outside the file's compressed data (${chunksStart}..${fileSize - 8})`);
  }
  const tableHead = new Uint8Array(8);
  readFully(fd, tableHead, 0, 8, tableOffset);
  const headView = new DataView(tableHead.buffer);
  const version = headView.getUint32(0, true), count = headView.getUint32(4, true);
  if (version !== 0) throw new InputError(file, { byte: tableOffset }, `chunk table version ${version} is not 0`);
  const expected = chunkSize === null ? undefined : Math.ceil(header.pointCount / chunkSize);
  if (expected !== undefined && count !== expected) {
    throw new InputError(file, { byte: tableOffset + 4 }, `the chunk table lists ${count} chunks, but ${header.pointCount} points in chunks of ${chunkSize} make ${expected}`);
  }
  // Every chunk holds at least one whole point, so no file holds more chunks than it has bytes.
  if (count > fileSize) throw new InputError(file, { byte: tableOffset + 4 }, `the chunk table lists ${count} chunks, more than the file has bytes`);
  // Two coded integers an entry take at most 11 bytes; EVLRs may follow the table, and are not read here.
  const encoded = new Uint8Array(Math.min(fileSize - tableOffset - 8, 16 * count + 64));
  readFully(fd, encoded, 0, encoded.length, tableOffset + 8);
  const decoder = new ArithmeticDecoder(encoded);
  const integers = new IntegerDecompressor(decoder, 2);
  const chunks: LazChunk[] = [];
  let previousPoints = 0, previousBytes = 0, offset = chunksStart, firstPoint = 0;
  for (let i = 0; i < count; i++) {
    let points: number;
    if (chunkSize === null) points = previousPoints = integers.decompress(previousPoints, 0);
    else points = Math.min(chunkSize, header.pointCount - firstPoint);
    const bytes = previousBytes = integers.decompress(previousBytes, 1);
    if (decoder.overrun > 0) throw new InputError(file, { byte: fileSize }, `file is truncated: the chunk table ends inside chunk ${i + 1} of ${count}`);
    if (points <= 0 || bytes <= 0 || offset + bytes > tableOffset) {
      throw new InputError(file, { byte: tableOffset },
        `chunk ${i + 1} of ${count} (${points} points, ${bytes} bytes from byte ${offset}) lies outside the compressed data (${chunksStart}..${tableOffset})`);
    }
    // LASzip codes every point with at least a few adaptive symbols: even a chunk of identical points takes
    // far more than a byte per thousand points. A table claiming more would have xhd decode garbage for long.
    if (points > MAX_POINTS_PER_BYTE * bytes) {
      throw new InputError(file, { byte: tableOffset }, `chunk ${i + 1} of ${count} claims ${points} points in ${bytes} bytes, more than LASzip can pack into them`);
    }
    chunks.push({ offset, bytes, points, firstPoint });
    offset += bytes;
    firstPoint += points;
  }
  if (firstPoint !== header.pointCount) {
    throw new InputError(file, { byte: tableOffset }, `the chunk table's chunks hold ${firstPoint} points, but the header declares ${header.pointCount}`);
  }
  return chunks;
}
