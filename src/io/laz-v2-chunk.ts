// A LAZ chunk of point formats 0 to 3 (and their extra bytes) decoded in TypeScript, from LASzip's version-2
// items (laz-items-v2.ts): the chunk's first point is stored raw, the rest arithmetic coded point after point,
// every item of a point in turn. laz-perf decodes everything else (formats 4 to 10, older item versions).
import { ArithmeticDecoder } from './laz-arithmetic.js';
import { BytesDecoder, GpsTimeDecoder, Point10Decoder, RgbDecoder, type ItemDecoder } from './laz-items-v2.js';

export interface LazItem {
  type: number;
  size: number;
  version: number;
}

const POINT10 = 6, GPSTIME11 = 7, RGB12 = 8, BYTE = 0;

/** Whether every item is one this decoder reads (version 2 of POINT10, GPSTIME11, RGB12, BYTE). */
export function decodesV2(items: LazItem[]): boolean {
  return items.length > 0 && items[0].type === POINT10 && items.every((i) => i.version === 2 &&
    ((i.type === POINT10 && i.size === 20) || (i.type === GPSTIME11 && i.size === 8) || (i.type === RGB12 && i.size === 6) || (i.type === BYTE && i.size > 0)));
}

function itemDecoder(item: LazItem, decoder: ArithmeticDecoder): ItemDecoder {
  switch (item.type) {
    case POINT10: return new Point10Decoder(decoder);
    case GPSTIME11: return new GpsTimeDecoder(decoder);
    case RGB12: return new RgbDecoder(decoder);
    default: return new BytesDecoder(decoder, item.size);
  }
}

/**
 * Decodes `points` records of `recordLength` bytes from `chunk` into `out` (at least points * recordLength
 * bytes); returns a view of them. Throws when the chunk ends before its points do.
 */
export function decodeV2Chunk(chunk: Uint8Array, points: number, items: LazItem[], recordLength: number, out: Uint8Array): DataView {
  const view = new DataView(out.buffer, out.byteOffset, points * recordLength);
  if (points === 0) return view;
  if (chunk.length < recordLength) throw new Error(`the chunk is ${chunk.length} bytes, shorter than its first point`);
  out.set(chunk.subarray(0, recordLength), 0);
  const decoder = new ArithmeticDecoder(chunk, recordLength);
  const decoders = items.map((item) => itemDecoder(item, decoder));
  const offsets: number[] = [];
  let offset = 0;
  for (const item of items) {
    offsets.push(offset);
    offset += item.size;
  }
  decoders.forEach((d, i) => d.init(view, offsets[i]));
  for (let p = 1, at = recordLength; p < points; p++, at += recordLength) {
    for (let i = 0; i < decoders.length; i++) decoders[i].read(view, at + offsets[i]);
  }
  // The coder reads up to four bytes ahead of what it decodes; beyond that the chunk was cut short.
  if (decoder.overrun > 4) throw new Error(`the chunk's ${chunk.length} bytes ran out before its ${points} points did`);
  return view;
}
