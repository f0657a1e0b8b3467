// Writes DICOM Part 10 files for tests, DICOM-SEG ones in particular, so that synthetic segmentations need no fixture
// files. Written here from PS3.5 and PS3.10 independently of the reader (which uses dicom-parser): the 128-byte
// preamble, "DICM", the group 0002 file meta information (explicit VR little endian, its group length first), then the
// dataset in explicit or implicit VR little endian, deflated or not; sequences and items of defined or undefined
// length (with their delimitation items); PixelData native or encapsulated (a basic offset table, one fragment a frame).
// A SEG builder on top places a label volume's slices as frames the way PS3.3 C.8.20 describes.
import { deflateRawSync } from 'node:zlib';

export const UID = {
  explicit: '1.2.840.10008.1.2.1', implicit: '1.2.840.10008.1.2', deflated: '1.2.840.10008.1.2.1.99', rle: '1.2.840.10008.1.2.5',
  jpegBaseline: '1.2.840.10008.1.2.4.50', segmentation: '1.2.840.10008.5.1.4.1.1.66.4', labelMap: '1.2.840.10008.5.1.4.1.1.66.7',
  ct: '1.2.840.10008.5.1.4.1.1.2',
};

/** One data element. A value is a string (text VRs), numbers (US, UL), bytes (OB, OW, UN), or items (SQ). */
export interface DicomElement {
  /** (group << 16) | element. */
  tag: number;
  vr: string;
  value: string | number[] | Uint8Array | DicomElement[][];
  /** SQ: sequence and items of undefined length (delimited). */
  undefinedLength?: boolean;
  /** PixelData encapsulated in these fragments (one a frame), with a basic offset table when `offsets` is set. */
  fragments?: Uint8Array[];
  offsets?: boolean;
  /** A length to write instead of the true one (a lying header). */
  length?: number;
}

export function el(tag: number, vr: string, value: DicomElement['value'], more: Partial<DicomElement> = {}): DicomElement {
  return { tag, vr, value, ...more };
}

const LONG_VRS = new Set(['OB', 'OW', 'OF', 'OD', 'OL', 'SQ', 'UN', 'UT', 'UC', 'UR']);

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}
function tagBytes(tag: number): Buffer {
  return Buffer.concat([u16(tag >>> 16), u16(tag & 0xffff)]);
}
const UNDEFINED = 0xffffffff;

function valueBytes(e: DicomElement, explicit: boolean): Buffer {
  if (typeof e.value === 'string') {
    const text = Buffer.from(e.value, 'latin1');
    return text.length % 2 === 0 ? text : Buffer.concat([text, Buffer.from(e.vr === 'UI' ? [0] : [0x20])]);
  }
  if (e.value instanceof Uint8Array) return e.value.length % 2 === 0 ? Buffer.from(e.value) : Buffer.concat([e.value, Buffer.from([0])]);
  if (e.vr === 'SQ') {
    const items = (e.value as DicomElement[][]).map((item) => {
      const body = encodeDataset(item, explicit);
      return e.undefinedLength
        ? Buffer.concat([tagBytes(0xfffee000), u32(UNDEFINED), body, tagBytes(0xfffee00d), u32(0)])
        : Buffer.concat([tagBytes(0xfffee000), u32(body.length), body]);
    });
    return Buffer.concat(items);
  }
  const numbers = e.value as number[];
  return Buffer.concat(numbers.map((n) => (e.vr === 'UL' ? u32(n) : u16(n))));
}

function encodeElement(e: DicomElement, explicit: boolean): Buffer {
  let body: Buffer, length: number;
  if (e.fragments) {
    const offsets: number[] = [];
    let at = 0;
    const fragments = e.fragments.map((f) => {
      const data = f.length % 2 === 0 ? Buffer.from(f) : Buffer.concat([f, Buffer.from([0])]);
      offsets.push(at);
      at += 8 + data.length;
      return Buffer.concat([tagBytes(0xfffee000), u32(data.length), data]);
    });
    const table = e.offsets ? Buffer.concat(offsets.map(u32)) : Buffer.alloc(0);
    body = Buffer.concat([tagBytes(0xfffee000), u32(table.length), table, ...fragments, tagBytes(0xfffee0dd), u32(0)]);
    length = UNDEFINED;
  } else {
    body = valueBytes(e, explicit);
    length = e.vr === 'SQ' && e.undefinedLength ? UNDEFINED : body.length;
    if (e.vr === 'SQ' && e.undefinedLength) body = Buffer.concat([body, tagBytes(0xfffee0dd), u32(0)]);
  }
  length = e.length ?? length;
  let header: Buffer;
  if (!explicit) header = Buffer.concat([tagBytes(e.tag), u32(length)]);
  else if (LONG_VRS.has(e.vr)) header = Buffer.concat([tagBytes(e.tag), Buffer.from(e.vr, 'latin1'), u16(0), u32(length)]);
  else header = Buffer.concat([tagBytes(e.tag), Buffer.from(e.vr, 'latin1'), u16(length)]);
  return Buffer.concat([header, body]);
}

/** The elements in ascending tag order, as a dataset must be. */
export function encodeDataset(elements: DicomElement[], explicit: boolean): Buffer {
  return Buffer.concat([...elements].sort((a, b) => a.tag - b.tag).map((e) => encodeElement(e, explicit)));
}

export interface FileOptions {
  transferSyntax: string;
  /** MediaStorageSOPClassUID; default the dataset's SOPClassUID. */
  sopClass?: string;
  /** Replaces the "DICM" prefix. */
  magic?: string;
  /** Cut the file to this many bytes. */
  truncate?: number;
  /** Leave (0002,0010) out of the file meta information. */
  noTransferSyntax?: boolean;
}

export function dicomFile(dataset: DicomElement[], options: FileOptions): Uint8Array {
  const sop = options.sopClass ?? String(dataset.find((e) => e.tag === 0x00080016)?.value ?? UID.segmentation);
  const meta = [
    el(0x00020001, 'OB', Uint8Array.of(0, 1)), el(0x00020002, 'UI', sop), el(0x00020003, 'UI', '1.2.3.4.5.6.7'),
    ...(options.noTransferSyntax ? [] : [el(0x00020010, 'UI', options.transferSyntax)]), el(0x00020012, 'UI', '1.2.3.4.99'),
  ];
  const metaBytes = encodeDataset(meta, true);
  const groupLength = encodeElement(el(0x00020000, 'UL', [metaBytes.length]), true);
  let body = encodeDataset(dataset, options.transferSyntax !== UID.implicit);
  if (options.transferSyntax === UID.deflated) body = deflateRawSync(body);
  const out = Buffer.concat([Buffer.alloc(128), Buffer.from(options.magic ?? 'DICM', 'latin1'), groupLength, metaBytes, body]);
  return options.truncate !== undefined ? out.subarray(0, options.truncate) : out;
}

/** PackBits (PS3.5 G.3.1): replicate runs of 3 to 128 equal bytes, literal runs of up to 128 others. */
export function packBits(data: Uint8Array): Buffer {
  const out: number[] = [];
  let n = 0;
  while (n < data.length) {
    let run = 1;
    while (n + run < data.length && run < 128 && data[n + run] === data[n]) run++;
    if (run >= 3) {
      out.push(257 - run, data[n]);
      n += run;
      continue;
    }
    const start = n;
    while (n < data.length && n - start < 128 && !(n + 2 < data.length && data[n] === data[n + 1] && data[n] === data[n + 2])) n++;
    out.push(n - start - 1, ...data.subarray(start, n));
  }
  if (out.length % 2 === 1) out.push(128); // a no-op byte keeps the segment even
  return Buffer.from(out);
}

/** One RLE frame: the 64-byte header, then each byte plane as a PackBits segment. */
export function rleFrame(planes: Uint8Array[], segmentCount = planes.length): Buffer {
  const segments = planes.map(packBits);
  const header = Buffer.alloc(64);
  header.writeUInt32LE(segmentCount, 0);
  let at = 64;
  segments.forEach((s, n) => {
    header.writeUInt32LE(at, 4 + 4 * n);
    at += s.length;
  });
  return Buffer.concat([header, ...segments]);
}

export type Vec3 = [number, number, number];

export interface SegSpec {
  /** The label volume, i fastest (i = column, j = row, k = slice). */
  dims: Vec3;
  labels: ArrayLike<number>;
  type: 'BINARY' | 'FRACTIONAL' | 'LABELMAP';
  /** LABELMAP: 8 (default) or 16. */
  bits?: 8 | 16;
  /** Segment numbers described in SegmentSequence; default the nonzero labels present. */
  segments?: number[];
  row: number[];
  column: number[];
  /** The slice normal (row × column), given so that the test does not compute it as the reader does. */
  normal: number[];
  /** [between rows, between columns] (PixelSpacing). */
  pixelSpacing: [number, number];
  sliceStep: number;
  origin: number[];
  transferSyntax: string;
  sopClass?: string;
  /** Write SpacingBetweenSlices. */
  spacingBetweenSlices?: boolean;
  /** Leave frames without a set pixel out. */
  omitEmpty?: boolean;
  /** Shuffle the frames with this seed. */
  shuffle?: number;
  /** Pixel measures and orientation in each frame's item rather than the shared one. */
  perFrameGeometry?: boolean;
  /** Sequences of undefined length. */
  undefinedLengths?: boolean;
  /** FRACTIONAL: MaximumFractionalValue (default 255), and the value set pixels get (default that). */
  maxFraction?: number;
  fractionValue?: number;
  /** RLE, 1 bit: one byte a pixel instead of the packed bits. */
  rleUnpacked?: boolean;
  /** Extra frames: (segment, slice, pixel indices) appended after the volume's. */
  extraFrames?: Array<{ segment: number; slice: number; pixels: number[] }>;
  /** Changes to the top-level dataset (elements replaced, removed, added) before it is written. */
  edit?: (top: DicomElement[], frames: FrameRecord[]) => void;
  file?: Partial<FileOptions>;
}

export interface FrameRecord {
  segment: number;
  slice: number;
  /** One value a pixel (rows·columns). */
  pixels: Uint16Array;
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Replaces (or adds) the element with this tag. */
export function setElement(elements: DicomElement[], e: DicomElement): void {
  const at = elements.findIndex((x) => x.tag === e.tag);
  if (at >= 0) elements[at] = e;
  else elements.push(e);
}

export function removeElement(elements: DicomElement[], tag: number): void {
  const at = elements.findIndex((x) => x.tag === tag);
  if (at >= 0) elements.splice(at, 1);
}

/** The DICOM-SEG file of `spec`'s label volume. */
export function segFile(spec: SegSpec): Uint8Array {
  const [nx, ny, nz] = spec.dims;
  const pixels = nx * ny;
  const present = [...new Set(Array.from(spec.labels))].filter((v) => v !== 0).sort((a, b) => a - b);
  const segments = spec.segments ?? present;
  const frames: FrameRecord[] = [];
  const slice = (k: number) => Uint16Array.from({ length: pixels }, (_, p) => spec.labels[k * pixels + p]);
  if (spec.type === 'LABELMAP') {
    for (let k = 0; k < nz; k++) {
      const values = slice(k);
      if (!(spec.omitEmpty && values.every((v) => v === 0))) frames.push({ segment: 0, slice: k, pixels: values });
    }
  } else {
    const on = spec.type === 'BINARY' ? 1 : spec.fractionValue ?? spec.maxFraction ?? 255;
    for (const s of present) {
      for (let k = 0; k < nz; k++) {
        const values = slice(k).map((v) => (v === s ? on : 0));
        if (!(spec.omitEmpty && values.every((v) => v === 0))) frames.push({ segment: s, slice: k, pixels: values });
      }
    }
  }
  for (const extra of spec.extraFrames ?? []) {
    const values = new Uint16Array(pixels);
    for (const p of extra.pixels) values[p] = 1;
    frames.push({ segment: extra.segment, slice: extra.slice, pixels: values });
  }
  if (spec.shuffle !== undefined) {
    const random = lcg(spec.shuffle);
    for (let n = frames.length - 1; n > 0; n--) {
      const m = Math.floor(random() * (n + 1));
      [frames[n], frames[m]] = [frames[m], frames[n]];
    }
  }
  const bits = spec.type === 'BINARY' ? 1 : spec.type === 'FRACTIONAL' ? 8 : spec.bits ?? 8;
  const seq = (tag: number, items: DicomElement[][]) => el(tag, 'SQ', items, { undefinedLength: spec.undefinedLengths });
  const measures = seq(0x00289110, [[
    el(0x00280030, 'DS', `${spec.pixelSpacing[0]}\\${spec.pixelSpacing[1]}`), el(0x00180050, 'DS', String(spec.sliceStep)),
    ...(spec.spacingBetweenSlices ? [el(0x00180088, 'DS', String(spec.sliceStep))] : []),
  ]]);
  const orientation = seq(0x00209116, [[el(0x00200037, 'DS', [...spec.row, ...spec.column].map(String).join('\\'))]]);
  const perFrame = frames.map((f) => {
    const position = spec.origin.map((o, r) => o + f.slice * spec.sliceStep * spec.normal[r]);
    return [
      seq(0x00209113, [[el(0x00200032, 'DS', position.map(String).join('\\'))]]),
      ...(spec.type === 'LABELMAP' ? [] : [seq(0x0062000a, [[el(0x0062000b, 'US', [f.segment])]])]),
      ...(spec.perFrameGeometry ? [measures, orientation] : []),
    ];
  });
  const shared = spec.perFrameGeometry ? [] : [measures, orientation];

  const top: DicomElement[] = [
    el(0x00080016, 'UI', spec.sopClass ?? (spec.type === 'LABELMAP' ? UID.labelMap : UID.segmentation)),
    el(0x00080018, 'UI', '1.2.3.4.5.6.7'), el(0x00080060, 'CS', 'SEG'),
    el(0x00280002, 'US', [1]), el(0x00280004, 'CS', 'MONOCHROME2'), el(0x00280008, 'IS', String(frames.length)),
    el(0x00280010, 'US', [ny]), el(0x00280011, 'US', [nx]), el(0x00280100, 'US', [bits]), el(0x00280101, 'US', [bits]),
    el(0x00280102, 'US', [bits - 1]), el(0x00280103, 'US', [0]), el(0x00620001, 'CS', spec.type),
    ...(spec.type === 'FRACTIONAL' ? [el(0x0062000e, 'US', [spec.maxFraction ?? 255]), el(0x00620010, 'CS', 'PROBABILITY')] : []),
    seq(0x00620002, segments.map((s) => [el(0x00620004, 'US', [s]), el(0x00620005, 'LO', `segment ${s}`)])),
    seq(0x52009229, [shared]),
    seq(0x52009230, perFrame),
    pixelData(frames, bits, pixels, spec),
  ];
  spec.edit?.(top, frames);
  return dicomFile(top, { transferSyntax: spec.transferSyntax, ...spec.file });
}

function pixelData(frames: FrameRecord[], bits: number, pixels: number, spec: SegSpec): DicomElement {
  const vr = bits === 16 ? 'OW' : 'OB';
  if (spec.transferSyntax === UID.rle) {
    const fragments = frames.map((f) => {
      if (bits === 1) return rleFrame([spec.rleUnpacked ? Uint8Array.from(f.pixels) : packFrames([f], pixels)]);
      if (bits === 8) return rleFrame([Uint8Array.from(f.pixels)]);
      return rleFrame([Uint8Array.from(f.pixels, (v) => v >>> 8), Uint8Array.from(f.pixels, (v) => v & 0xff)]);
    });
    return el(0x7fe00010, 'OB', new Uint8Array(0), { fragments, offsets: true });
  }
  if (bits === 1) return el(0x7fe00010, vr, packFrames(frames, pixels));
  if (bits === 8) return el(0x7fe00010, vr, Uint8Array.from(frames.flatMap((f) => Array.from(f.pixels))));
  const out = new Uint8Array(2 * pixels * frames.length);
  frames.forEach((f, n) => f.pixels.forEach((v, p) => {
    out[2 * (n * pixels + p)] = v & 0xff;
    out[2 * (n * pixels + p) + 1] = v >>> 8;
  }));
  return el(0x7fe00010, vr, out);
}

/** Frames of 0/1 pixels packed least significant bit first, one after another with no padding between frames. */
export function packFrames(frames: FrameRecord[], pixels: number): Uint8Array {
  const out = new Uint8Array(Math.ceil((frames.length * pixels) / 8));
  frames.forEach((f, n) => f.pixels.forEach((v, p) => {
    const bit = n * pixels + p;
    if (v) out[bit >>> 3] |= 1 << (bit & 7);
  }));
  return out;
}
