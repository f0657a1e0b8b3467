// A DICOM Part 10 file's dataset (PS3.10: a 128-byte preamble, "DICM", the group 0002 file meta information in
// explicit VR little endian, then the dataset in the transfer syntax that names, PS3.5), parsed by dicom-parser,
// with what a reader needs on top of it: the transfer syntax checked against the ones xhd reads before the dataset
// is parsed; a deflated dataset inflated here with a cap (dicom-parser's own inflating has none); whatever
// dicom-parser throws (strings, or objects wrapping them) turned into one line naming the file; and values read only
// from elements that lie inside the bytes (dicom-parser skips an element's length without checking it against the
// end of the data), each error naming the tag, its path through the sequences, and its byte offset.
import { inflateRawSync } from 'node:zlib';
import { createRequire } from 'node:module';
import type * as DicomParser from 'dicom-parser';
import type { DataSet, Element, ParseDicomOptions } from 'dicom-parser';

import { InputError } from '../core/errors.js';
import { describeBytes, MAX_NIFTI_BYTES } from './nifti.js';
import { fieldError, type TagPlace } from './volume-data.js';

/** dicom-parser, loaded the first time a DICOM file is read: every other command starts without compiling it. */
let parser: typeof DicomParser | undefined;
function dicomParser(): typeof DicomParser {
  parser ??= createRequire(import.meta.url)('dicom-parser') as typeof DicomParser;
  return parser;
}

export const EXPLICIT_LE = '1.2.840.10008.1.2.1';
export const IMPLICIT_LE = '1.2.840.10008.1.2';
export const DEFLATED_LE = '1.2.840.10008.1.2.1.99';
export const RLE_LOSSLESS = '1.2.840.10008.1.2.5';

/** The transfer syntaxes read (PS3.5 section 10 and Annexes A.4, A.5, G), by the names notes give them. */
const READ: Record<string, string> = {
  [EXPLICIT_LE]: 'explicit VR little endian', [IMPLICIT_LE]: 'implicit VR little endian',
  [DEFLATED_LE]: 'deflated explicit VR little endian', [RLE_LOSSLESS]: 'RLE lossless',
};

/** Transfer syntaxes refused, named so that the message says what the file holds. */
const REFUSED: Record<string, string> = {
  '1.2.840.10008.1.2.2': 'explicit VR big endian (retired)',
  '1.2.840.10008.1.2.4.50': 'JPEG baseline', '1.2.840.10008.1.2.4.51': 'JPEG extended',
  '1.2.840.10008.1.2.4.57': 'JPEG lossless', '1.2.840.10008.1.2.4.70': 'JPEG lossless SV1',
  '1.2.840.10008.1.2.4.80': 'JPEG-LS lossless', '1.2.840.10008.1.2.4.81': 'JPEG-LS near-lossless',
  '1.2.840.10008.1.2.4.90': 'JPEG 2000 lossless', '1.2.840.10008.1.2.4.91': 'JPEG 2000',
  '1.2.840.10008.1.2.4.201': 'HTJ2K lossless', '1.2.840.10008.1.2.4.202': 'HTJ2K lossless RPCL', '1.2.840.10008.1.2.4.203': 'HTJ2K',
};

/** Names of the tags xhd reads, for messages. */
const TAG_NAMES: Record<string, string> = {
  x00020010: 'TransferSyntaxUID', x00080016: 'SOPClassUID', x00280002: 'SamplesPerPixel', x00280008: 'NumberOfFrames',
  x00280010: 'Rows', x00280011: 'Columns', x00280100: 'BitsAllocated', x00280030: 'PixelSpacing', x00180050: 'SliceThickness',
  x00180088: 'SpacingBetweenSlices', x00200032: 'ImagePositionPatient', x00200037: 'ImageOrientationPatient',
  x00289110: 'PixelMeasuresSequence', x00209113: 'PlanePositionSequence', x00209116: 'PlaneOrientationSequence',
  x52009229: 'SharedFunctionalGroupsSequence', x52009230: 'PerFrameFunctionalGroupsSequence', x00620001: 'SegmentationType',
  x00620002: 'SegmentSequence', x00620004: 'SegmentNumber', x00620005: 'SegmentLabel', x0062000a: 'SegmentIdentificationSequence',
  x0062000b: 'ReferencedSegmentNumber', x0062000e: 'MaximumFractionalValue', x7fe00010: 'PixelData',
};

/** "(0028,0010) Rows" for "x00280010". */
export function tagLabel(tag: string): string {
  const name = TAG_NAMES[tag];
  return `(${tag.slice(1, 5).toUpperCase()},${tag.slice(5).toUpperCase()})${name ? ` ${name}` : ''}`;
}

export interface DicomFile {
  /** The dataset's top level (file meta information merged in, as dicom-parser gives it). */
  top: DicomItem;
  transferSyntax: string;
  /** Its name in notes, e.g. "RLE lossless". */
  transferSyntaxName: string;
}

/** "DICM" after the 128-byte preamble (PS3.10 section 7.1). */
export function looksLikeDicom(bytes: Uint8Array): boolean {
  return bytes.length >= 132 && bytes[128] === 0x44 && bytes[129] === 0x49 && bytes[130] === 0x43 && bytes[131] === 0x4d;
}

export function parseDicomFile(bytes: Uint8Array, name: string): DicomFile {
  if (!looksLikeDicom(bytes)) throw new InputError(name, { byte: 128 }, 'not a DICOM file: no "DICM" after the 128-byte preamble (PS3.10 files are read)');
  metaFits(bytes, name);
  let meta: DataSet;
  try {
    meta = dicomParser().readPart10Header(bytes);
  } catch (error) {
    throw parserError(name, error, 'the file meta information (group 0002)');
  }
  const syntaxItem = new DicomItem(name, meta, '', false);
  const transferSyntax = syntaxItem.string('x00020010');
  if (transferSyntax === undefined) throw fieldError(syntaxItem.place('x00020010'), 'missing from the file meta information, which needs it');
  const syntaxName = READ[transferSyntax];
  if (!syntaxName) {
    const known = REFUSED[transferSyntax] ? ` (${REFUSED[transferSyntax]})` : '';
    throw fieldError(syntaxItem.place('x00020010'),
      `${printable(transferSyntax.slice(0, 64))}${known} is not read; explicit or implicit VR little endian, deflated explicit VR little endian and RLE lossless are`);
  }
  const deflated = transferSyntax === DEFLATED_LE;
  let dataSet: DataSet;
  try {
    // (dicom-parser's type says the inflater returns nothing; it uses what it returns as the whole file's bytes.)
    const inflater = ((all: Uint8Array, position: number) => withInflatedDataset(all, position, name)) as unknown as ParseDicomOptions['inflater'];
    dataSet = dicomParser().parseDicom(bytes, { inflater });
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw parserError(name, error, deflated ? 'the inflated dataset' : 'the dataset');
  }
  return { top: new DicomItem(name, dataSet, '', deflated), transferSyntax, transferSyntaxName: syntaxName };
}

/** Refuses a file that ends inside the file meta information its group length (0002,0000) announces. */
function metaFits(bytes: Uint8Array, name: string): void {
  if (bytes.length < 144 || bytes[132] !== 2 || bytes[133] !== 0 || bytes[134] !== 0 || bytes[135] !== 0) return;
  const length = new DataView(bytes.buffer, bytes.byteOffset + 140, 4).getUint32(0, true);
  if (144 + length > bytes.length) {
    throw new InputError(name, { byte: bytes.length }, `the file ends inside its file meta information ((0002,0000) says ${length} bytes, ${bytes.length - 144} follow)`);
  }
}

/**
 * The file meta information followed by the inflated dataset (PS3.5 A.5: raw deflate, no zlib header), as dicom-parser's
 * inflater option wants it. The output is capped at the largest volume xhd reads, so a small file cannot make it
 * allocate without bound; the sizes the header then declares are checked against the data as for any file.
 */
function withInflatedDataset(all: Uint8Array, position: number, name: string): Uint8Array {
  let inflated: Uint8Array;
  try {
    inflated = inflateRawSync(all.subarray(position), { maxOutputLength: MAX_NIFTI_BYTES });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      throw new InputError(name, { byte: position }, `the deflated dataset inflates to more than ${describeBytes(MAX_NIFTI_BYTES)}, more than xhd reads`);
    }
    if (code === 'Z_BUF_ERROR') throw new InputError(name, { byte: all.length }, 'the deflated dataset ends early (truncated file?)');
    throw new InputError(name, { byte: position }, `the deflated dataset is not a valid deflate stream (${message})`);
  }
  if (inflated.length === 0) throw new InputError(name, { byte: position }, 'the deflated dataset inflates to nothing (truncated?)');
  const out = new Uint8Array(position + inflated.length);
  out.set(all.subarray(0, position));
  out.set(inflated, position);
  return out;
}

/** One line for what dicom-parser threw: its message, and the last element it read (where it gives them). */
function parserError(name: string, error: unknown, what: string): InputError {
  const wrapped = error !== null && typeof error === 'object' && 'exception' in error ? error as { exception: unknown; dataSet?: DataSet } : undefined;
  const inner = wrapped ? wrapped.exception : error;
  let message = typeof inner === 'string' ? inner : inner instanceof Error ? inner.message : String(inner);
  message = message.replace(/^dicomParser[.:][\w.]*:\s*/, '').replace(/[\r\n]+/g, ' ');
  const offset = /at offset (\d+)/.exec(message);
  let last = '';
  if (wrapped?.dataSet) {
    const elements = Object.values(wrapped.dataSet.elements);
    const latest = elements.reduce<Element | undefined>((a, e) => (a === undefined || e.dataOffset > a.dataOffset ? e : a), undefined);
    if (latest) last = `; the last element read is ${tagLabel(latest.tag)}`;
  }
  if (/past end of buffer|buffer overrun|overread/.test(message)) message = `${message}: the data ends inside an element (a truncated file, or a length that runs past its end)`;
  return new InputError(name, offset ? { byte: Number(offset[1]) } : {}, `${what} cannot be parsed: ${printable(message.slice(0, 300))}${last}`);
}

/** Whole numbers US and IS values must be, from 0 to 2^32 − 1 at most. */
function isCount(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
}

/**
 * The dataset or one sequence item, read safely: every value from an element checked to lie inside the bytes, every
 * error naming the file, the tag's path through the sequences, and (unless the dataset was inflated, whose offsets are
 * not the file's) its byte offset.
 */
export class DicomItem {
  constructor(readonly file: string, readonly dataSet: DataSet, readonly path: string, private readonly inflated: boolean) {}

  place(tag: string): TagPlace {
    const element = this.dataSet.elements[tag];
    return { file: this.file, field: `${this.path}${tagLabel(tag)}`, ...(element && !this.inflated ? { byte: element.dataOffset } : {}) };
  }

  /** The element, undefined when absent or empty; refused when its value runs past the end of the data. */
  element(tag: string): Element | undefined {
    const element = this.dataSet.elements[tag];
    if (!element || element.length === 0) return undefined;
    if (!element.items && !element.encapsulatedPixelData && element.dataOffset + element.length > this.dataSet.byteArray.length) {
      throw fieldError(this.place(tag), `its length (${element.length} bytes) runs past the end of the data (truncated file?)`);
    }
    return element;
  }

  has(tag: string): boolean {
    return this.element(tag) !== undefined;
  }

  /** A string value (UI, CS, LO, DS, IS), trimmed of padding spaces and NULs; undefined when absent or empty. */
  string(tag: string): string | undefined {
    const element = this.element(tag);
    if (!element) return undefined;
    const bytes = this.dataSet.byteArray.subarray(element.dataOffset, element.dataOffset + element.length);
    const text = String.fromCharCode(...bytes.subarray(0, 1024)).replace(/[\0 ]+$/, '').replace(/^ +/, '');
    return text === '' ? undefined : text;
  }

  /** A DS or IS value of `count` numbers (backslash-separated), each finite; undefined when absent. */
  numbers(tag: string, count: number): number[] | undefined {
    const text = this.string(tag);
    if (text === undefined) return undefined;
    const words = text.split('\\').map((w) => w.trim());
    const values = words.map((w) => (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(w) ? Number(w) : NaN));
    if (values.length !== count || !values.every(Number.isFinite)) {
      throw fieldError(this.place(tag), `"${printable(text.slice(0, 80))}" is not ${count} finite number${count === 1 ? '' : 's'}`);
    }
    return values;
  }

  /** One whole number, US (binary) or IS (text) by the element's VR (implicit VR files: `vr` says which to expect). */
  count(tag: string, vr: 'US' | 'IS'): number | undefined {
    const element = this.element(tag);
    if (!element) return undefined;
    if ((element.vr ?? vr) === 'IS') {
      const values = this.numbers(tag, 1);
      if (!values) return undefined; // only padding: as good as absent
      const [value] = values;
      if (!isCount(value)) throw fieldError(this.place(tag), `${value} is not a whole number of at least 0`);
      return value;
    }
    if (element.length < 2) throw fieldError(this.place(tag), `${element.length} byte${element.length === 1 ? '' : 's'}, too short for a US value`);
    return this.dataSet.uint16(tag)!;
  }

  /** The items of a sequence, each as a DicomItem; [] when absent or empty. */
  items(tag: string): DicomItem[] {
    const element = this.dataSet.elements[tag];
    if (!element || (!element.items && element.length === 0)) return [];
    if (!element.items) throw fieldError(this.place(tag), 'is not a sequence');
    return element.items.map((item, n) => {
      if (!item.dataSet) throw fieldError(this.place(tag), `item ${n + 1} holds no dataset`);
      return new DicomItem(this.file, item.dataSet, `${this.path}${tagLabel(tag)} item ${n + 1} > `, this.inflated);
    });
  }
}

/** Control characters shown as \xNN, so that a message stays one readable line. */
export function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
