// Reads a MetaImage volume (ITK's MetaIO: .mha with the data after the header, .mhd with it in the file that
// ElementDataFile names): "Key = Value" lines ending with ElementDataFile. Label masks are the use: 1 to 3
// dimensions, one channel, every scalar ElementType, either byte order, raw or zlib-compressed (CompressedData);
// the geometry from ElementSpacing, Offset (or Origin, Position) and TransformMatrix (or Rotation, Orientation),
// whose successive triples are the grid axes' directions, in ITK's LPS space, turned into RAS+.
import { dirname, resolve } from 'node:path';

import { InputError } from '../core/errors.js';
import { readInputFile } from './input-file.js';
import type { NiftiDatatypeName, VoxelVolume } from './nifti.js';
import { affineFromAxes, axisLengths, RAS_FLIPS } from './volume-axes.js';
import { decodeValues, fieldError, inflateExactly, neededBytes, type FieldPlace } from './volume-data.js';
import { headerLines, numbersIn, sizesIn } from './volume-header-lines.js';

const ELEMENT_TYPES: Record<string, NiftiDatatypeName> = {
  MET_CHAR: 'int8', MET_UCHAR: 'uint8', MET_SHORT: 'int16', MET_USHORT: 'uint16', MET_INT: 'int32', MET_UINT: 'uint32',
  // MetaIO's MET_LONG and MET_ULONG are 4 bytes wide; the 8-byte types are the LONG_LONG ones.
  MET_LONG: 'int32', MET_ULONG: 'uint32', MET_LONG_LONG: 'int64', MET_ULONG_LONG: 'uint64', MET_FLOAT: 'float32', MET_DOUBLE: 'float64',
};

/** Keys that say the same thing, read under one name. */
const SYNONYMS: Record<string, string> = {
  origin: 'offset', position: 'offset', rotation: 'transformmatrix', orientation: 'transformmatrix',
  elementbyteordermsb: 'binarydatabyteordermsb',
};

interface Field {
  value: string;
  place: FieldPlace;
}

/** A MetaImage header starts with one of the keys writers put first. */
export function looksLikeMetaImage(bytes: Uint8Array): boolean {
  const head = String.fromCharCode(...bytes.subarray(0, 64));
  return /^(ObjectType|NDims|Comment|ObjectSubType|TransformType)\s*=/.test(head);
}

export function parseMetaImage(bytes: Uint8Array, name: string): VoxelVolume {
  const { fields, dataStart } = readHeader(bytes, name);
  const place = (key: string): FieldPlace => fields.get(key)?.place ?? { file: name, line: 1, field: key };
  const need = (key: string, shown: string): Field => {
    const f = fields.get(key);
    if (!f) throw new InputError(name, {}, `the MetaImage header has no ${shown}, which it needs`);
    return f;
  };

  const objectType = fields.get('objecttype');
  if (objectType && objectType.value.trim().toLowerCase() !== 'image') throw fieldError(objectType.place, `"${objectType.value}" is not an Image`);
  const ndimsField = need('ndims', 'NDims');
  const ndims = Number(ndimsField.value.trim());
  if (!(Number.isInteger(ndims) && ndims >= 1 && ndims <= 3)) throw fieldError(ndimsField.place, `${ndimsField.value.trim()}: only 1 to 3 dimensions are supported`);
  const dimField = need('dimsize', 'DimSize');
  const sizes = sizesIn(dimField.value);
  if (!sizes || sizes.length !== ndims) throw fieldError(dimField.place, `"${dimField.value}" is not ${ndims} whole number${ndims === 1 ? '' : 's'} of at least 1`);
  const dims: [number, number, number] = [sizes[0], sizes[1] ?? 1, sizes[2] ?? 1];

  const typeField = need('elementtype', 'ElementType');
  const type = ELEMENT_TYPES[typeField.value.trim().toUpperCase()];
  if (!type) throw fieldError(typeField.place, `unsupported ElementType "${typeField.value.trim()}" (scalar MET_ types are read)`);
  const channels = fields.get('elementnumberofchannels');
  if (channels && channels.value.trim() !== '1') throw fieldError(channels.place, `${channels.value.trim()} channels: a mask has one`);
  const binary = fields.get('binarydata');
  if (binary && !isTrue(binary)) throw fieldError(binary.place, 'ASCII data (BinaryData = False) is not supported');
  const msb = fields.get('binarydatabyteordermsb');
  const littleEndian = msb ? !isTrue(msb) : true;
  const compressedField = fields.get('compresseddata');
  const compressed = compressedField ? isTrue(compressedField) : false;

  const affine = affineOf(fields, ndims, place);
  const expected = neededBytes(dims, type, place('dimsize'));
  const { raw, dataFile, dataOffset } = dataBytes(bytes, name, fields, dataStart, compressed, expected, place);
  const values = decodeValues(raw, type, littleEndian, dataFile, dataOffset);
  const notes = [`MetaImage: ${type}${compressed ? ', zlib-compressed' : ''}${dataFile !== name ? `, data in ${dataFile}` : ''}`,
    'coordinates turned from ITK\'s LPS into RAS+ (as NIfTI\'s), which changes no distance'];
  return { dims, values, datatype: type, scaling: null, affine, affineSource: 'TransformMatrix', spacing: axisLengths(affine), notes };
}

function isTrue(field: Field): boolean {
  const v = field.value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw fieldError(field.place, `"${field.value.trim()}" is neither True nor False`);
}

/** Keys lower-cased (and synonyms merged) up to ElementDataFile, which ends the header; the byte after its line. */
function readHeader(bytes: Uint8Array, name: string): { fields: Map<string, Field>; dataStart: number } {
  const fields = new Map<string, Field>();
  for (const line of headerLines(bytes)) {
    if (line.text.trim() === '') continue;
    const equals = line.text.indexOf('=');
    if (equals < 0) {
      if (fields.size === 0) throw new InputError(name, { line: 1 }, 'not a MetaImage file (no "Key = Value" header)');
      throw new InputError(name, { line: line.number }, `"${printable(line.text.slice(0, 16))}…" is not a "Key = Value" line (the header ends with ElementDataFile)`);
    }
    const shown = line.text.slice(0, equals).trim();
    const key = SYNONYMS[shown.toLowerCase()] ?? shown.toLowerCase();
    if (fields.has(key)) throw new InputError(name, { line: line.number }, `${shown}: given twice (first on line ${fields.get(key)!.place.line})`);
    fields.set(key, { value: line.text.slice(equals + 1), place: { file: name, line: line.number, field: shown } });
    if (key === 'elementdatafile') return { fields, dataStart: line.next };
  }
  throw new InputError(name, {}, 'the MetaImage header ends without an ElementDataFile line, so there is no data');
}

/** Control characters of binary data shown as \xNN, so that a message stays one readable line. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function affineOf(fields: Map<string, Field>, ndims: number, place: (key: string) => FieldPlace): Float64Array {
  const numbers = (key: string, count: number, fallback: number[]): number[] => {
    const f = fields.get(key);
    if (!f) return fallback;
    const values = numbersIn(f.value);
    if (!values || values.length !== count) throw fieldError(f.place, `"${f.value.trim()}" is not ${count} finite numbers`);
    return values;
  };
  const spacing = numbers('elementspacing', ndims, Array(ndims).fill(1));
  spacing.forEach((s) => {
    if (!(s > 0)) throw fieldError(place('elementspacing'), `${s}: every spacing must be positive`);
  });
  const offset = numbers('offset', ndims, Array(ndims).fill(0));
  const identity = Array.from({ length: ndims * ndims }, (_, n) => (n % (ndims + 1) === 0 ? 1 : 0));
  const matrix = numbers('transformmatrix', ndims * ndims, identity);
  // Axis c's direction is the matrix's c-th group of ndims numbers (as ITK's MetaImageIO reads it), padded to 3D.
  const axes: number[][] = [];
  for (let c = 0; c < 3; c++) {
    const axis = [0, 0, 0];
    if (c < ndims) for (let r = 0; r < ndims; r++) axis[r] = matrix[c * ndims + r] * spacing[c];
    else axis[c] = 1; // an axis the grid does not have is never stepped along
    axes.push(axis);
  }
  const origin = [0, 1, 2].map((r) => offset[r] ?? 0);
  return affineFromAxes(axes, origin, RAS_FLIPS['left-posterior-superior'], place('transformmatrix'), place('offset'));
}

function dataBytes(bytes: Uint8Array, name: string, fields: Map<string, Field>, dataStart: number, compressed: boolean,
  expected: number, place: (key: string) => FieldPlace): { raw: Uint8Array; dataFile: string; dataOffset: number } {
  const dataField = fields.get('elementdatafile')!;
  const value = dataField.value.trim();
  let source: Uint8Array, dataFile: string, base: number;
  if (value.toUpperCase() === 'LOCAL') {
    source = bytes.subarray(dataStart);
    dataFile = name;
    base = dataStart;
  } else {
    if (value.toUpperCase().startsWith('LIST') || /%/.test(value)) {
      throw fieldError(dataField.place, `"${value}": data split over several files is not supported; one data file is read`);
    }
    dataFile = resolve(name === 'standard input' ? '.' : dirname(name), value);
    try {
      source = readInputFile(dataFile, 'a data file');
    } catch (error) {
      throw fieldError(dataField.place, `cannot read ${value} (${error instanceof InputError ? error.message : String(error)})`);
    }
    base = 0;
  }
  const headerSizeField = fields.get('headersize');
  let skip = 0;
  if (headerSizeField) {
    skip = Number(headerSizeField.value.trim());
    if (!(Number.isInteger(skip) && skip >= -1)) throw fieldError(headerSizeField.place, `"${headerSizeField.value.trim()}" is not a whole number of at least -1`);
    if (skip === -1 && compressed) throw fieldError(headerSizeField.place, '-1 (the data at the end of the file) cannot be used with CompressedData');
  }
  if (compressed) {
    const sizeField = fields.get('compresseddatasize');
    let end = source.length;
    if (sizeField) {
      const size = Number(sizeField.value.trim());
      if (!(Number.isInteger(size) && size >= 1 && skip + size <= source.length)) {
        throw fieldError(sizeField.place, `${sizeField.value.trim()} bytes of compressed data, ${dataFile} has ${source.length - skip}`);
      }
      end = skip + size;
    }
    return { raw: inflateExactly(source.subarray(skip, end), expected, dataFile, place('dimsize')), dataFile, dataOffset: 0 };
  }
  const at = skip === -1 ? source.length - expected : skip;
  const present = source.length - at;
  if (at < 0 || present !== expected) {
    throw fieldError(place('dimsize'), `the grid needs ${expected} bytes of data, ${dataFile} has ${Math.max(at < 0 ? source.length : present, 0)} after the header`);
  }
  return { raw: source.subarray(at, at + expected), dataFile, dataOffset: base + at };
}
