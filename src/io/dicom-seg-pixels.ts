// A DICOM-SEG's frames, one at a time, as one value a pixel (row by row, the column index fastest). Native PixelData
// (PS3.5 8.1.1, 8.2): 1-bit pixels packed least significant bit first, the frames one after another with no padding
// between them (frame f's pixel p is bit f·Rows·Columns + p); 8 and 16 bits little endian. Its length is checked
// against Rows·Columns·NumberOfFrames before any frame is read. RLE lossless (PS3.5 Annex G): one fragment a frame,
// a 64-byte header of segment offsets, PackBits segments (most significant byte first for 16 bits); a 1-bit frame is
// read both ways writers give it, its bits packed (as pydicom and highdicom encode it: ⌈Rows·Columns/8⌉ bytes) or
// one byte a pixel. Decoding writes no byte past the frame's size, whatever the runs say.
import { fieldError } from './volume-data.js';
import type { DicomItem } from './dicom-dataset.js';

const PIXEL_DATA = 'x7fe00010';

export interface PixelLayout {
  rows: number;
  columns: number;
  frames: number;
  bits: 1 | 8 | 16;
}

/** Reads frame f (0-based) into `out` (rows·columns values). */
export type FrameReader = (frame: number, out: Uint16Array) => void;

export function frameReader(top: DicomItem, layout: PixelLayout, rle: boolean): FrameReader {
  const element = top.element(PIXEL_DATA);
  if (!element) throw fieldError(top.place(PIXEL_DATA), 'missing or empty: there are no frames');
  if (rle !== (element.encapsulatedPixelData === true)) {
    throw fieldError(top.place(PIXEL_DATA), rle ? 'not encapsulated (fragments), as RLE lossless needs' : 'encapsulated (fragments), but the transfer syntax is native');
  }
  return rle ? rleFrames(top, layout) : nativeFrames(top, layout);
}

function nativeFrames(top: DicomItem, { rows, columns, frames, bits }: PixelLayout): FrameReader {
  const element = top.element(PIXEL_DATA)!;
  const pixels = rows * columns;
  const expected = bits === 1 ? Math.ceil((pixels * frames) / 8) : pixels * frames * (bits / 8);
  // An odd length is padded to even with one byte (PS3.5 7.1.1).
  if (element.length !== expected && element.length !== expected + (expected % 2)) {
    throw fieldError(top.place(PIXEL_DATA), `${element.length} bytes, but Rows × Columns × NumberOfFrames `
      + `(${rows} × ${columns} × ${frames}) at BitsAllocated ${bits} need ${expected}`);
  }
  const data = top.dataSet.byteArray.subarray(element.dataOffset, element.dataOffset + expected);
  return (frame, out) => {
    if (bits === 1) {
      let bit = frame * pixels;
      for (let p = 0; p < pixels; p++, bit++) out[p] = (data[bit >>> 3] >>> (bit & 7)) & 1;
    } else if (bits === 8) {
      out.set(data.subarray(frame * pixels, (frame + 1) * pixels));
    } else {
      const start = 2 * frame * pixels;
      for (let p = 0; p < pixels; p++) out[p] = data[start + 2 * p] | (data[start + 2 * p + 1] << 8);
    }
  };
}

function rleFrames(top: DicomItem, layout: PixelLayout): FrameReader {
  const element = top.element(PIXEL_DATA)!;
  const place = top.place(PIXEL_DATA);
  const fragments = element.fragments ?? [];
  if (fragments.length !== layout.frames) {
    throw fieldError(place, `${fragments.length} fragments for ${layout.frames} frames: RLE lossless encodes each frame in one fragment`);
  }
  const bytes = top.dataSet.byteArray;
  for (const [f, fragment] of fragments.entries()) {
    if (fragment.position + fragment.length > bytes.length) throw fieldError(place, `fragment ${f + 1} runs past the end of the data (truncated file?)`);
  }
  const pixels = layout.rows * layout.columns;
  const planes = layout.bits === 16 ? 2 : 1;
  const plane = new Uint8Array(pixels);
  return (frame, out) => {
    const fragment = fragments[frame];
    const data = bytes.subarray(fragment.position, fragment.position + fragment.length);
    const where = `frame ${frame + 1}'s RLE fragment`;
    if (data.length < 64) throw fieldError(place, `${where} is ${data.length} bytes, shorter than the 64-byte RLE header`);
    const view = new DataView(data.buffer, data.byteOffset, 64);
    const segments = view.getUint32(0, true);
    if (segments !== planes) throw fieldError(place, `${where} has ${segments} segments; BitsAllocated ${layout.bits} needs ${planes}`);
    for (let s = 0; s < planes; s++) {
      const start = view.getUint32(4 + 4 * s, true);
      const end = s + 1 < planes ? view.getUint32(8 + 4 * s, true) : data.length;
      if (!(start >= 64 && start <= end && end <= data.length)) {
        throw fieldError(place, `${where}: segment ${s + 1} spans bytes ${start} to ${end} of ${data.length}`);
      }
      const got = unpackBits(data.subarray(start, end), plane);
      const size = layout.bits === 1 && got === Math.ceil(pixels / 8) ? got : pixels;
      if (got !== size) {
        throw fieldError(place, `${where}: segment ${s + 1} decodes to ${got} bytes; Rows × Columns needs ${pixels}${layout.bits === 1 ? ` (or ${Math.ceil(pixels / 8)} packed)` : ''}`);
      }
      if (layout.bits === 1 && size < pixels) {
        for (let p = 0; p < pixels; p++) out[p] = (plane[p >>> 3] >>> (p & 7)) & 1;
      } else if (layout.bits === 1) {
        for (let p = 0; p < pixels; p++) out[p] = plane[p] === 0 ? 0 : 1;
      } else if (planes === 1) {
        out.set(plane);
      } else if (s === 0) {
        for (let p = 0; p < pixels; p++) out[p] = plane[p] << 8;
      } else {
        for (let p = 0; p < pixels; p++) out[p] |= plane[p];
      }
    }
  };
}

/**
 * PackBits (PS3.5 G.3.1): a header byte n, then n + 1 literal bytes (n 0 to 127) or one byte repeated 257 − n times
 * (n 129 to 255); 128 does nothing. Decodes into `out` and stops when it is full (what follows is a segment's padding);
 * returns the bytes written. A final run cut short by the segment's end writes what it has.
 */
export function unpackBits(input: Uint8Array, out: Uint8Array): number {
  let at = 0, written = 0;
  while (at < input.length && written < out.length) {
    const n = input[at++];
    if (n < 128) {
      const count = Math.min(n + 1, input.length - at, out.length - written);
      out.set(input.subarray(at, at + count), written);
      at += n + 1;
      written += count;
    } else if (n > 128) {
      if (at >= input.length) break;
      const count = Math.min(257 - n, out.length - written);
      out.fill(input[at++], written, written + count);
      written += count;
    }
  }
  return written;
}
