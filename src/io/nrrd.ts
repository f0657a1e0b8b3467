// Reads an NRRD volume (teem's "nearly raw raster data", NRRD0001 to NRRD0005): a text header of "field: value"
// lines, then the data in the same file (.nrrd) or in the file its "data file" field names (.nhdr + .raw / .raw.gz).
// Label masks are the use: 1 to 3 dimensions, every scalar type, raw or gzip encoding, either byte order; the
// geometry from "space directions" and "space origin" (turned into RAS+ from the named space), else "spacings".
// Fields that change nothing for a mask (kinds, units, centers, labels, key/value pairs) are passed over.
import { dirname, resolve } from 'node:path';

import { InputError } from '../core/errors.js';
import { readInputFile } from './input-file.js';
import type { NiftiDatatypeName, VoxelVolume } from './nifti.js';
import { affineFromAxes, axisLengths, RAS_FLIPS } from './volume-axes.js';
import { decodeValues, fieldError, inflateExactly, neededBytes, TYPE_BYTES, type FieldPlace } from './volume-data.js';
import { headerLines, numbersIn, sizesIn } from './volume-header-lines.js';

/** Every spelling of each scalar type the NRRD format defines. */
const NRRD_TYPES: Record<string, NiftiDatatypeName> = {};
for (const [names, type] of [
  [['signed char', 'int8', 'int8_t'], 'int8'],
  [['uchar', 'unsigned char', 'uint8', 'uint8_t'], 'uint8'],
  [['short', 'short int', 'signed short', 'signed short int', 'int16', 'int16_t'], 'int16'],
  [['ushort', 'unsigned short', 'unsigned short int', 'uint16', 'uint16_t'], 'uint16'],
  [['int', 'signed int', 'int32', 'int32_t'], 'int32'],
  [['uint', 'unsigned int', 'uint32', 'uint32_t'], 'uint32'],
  [['longlong', 'long long', 'long long int', 'signed long long', 'signed long long int', 'int64', 'int64_t'], 'int64'],
  [['ulonglong', 'unsigned long long', 'unsigned long long int', 'uint64', 'uint64_t'], 'uint64'],
  [['float'], 'float32'],
  [['double'], 'float64'],
] as const) for (const name of names) NRRD_TYPES[name] = type;

const ENCODINGS: Record<string, 'raw' | 'gzip'> = { raw: 'raw', gzip: 'gzip', gz: 'gzip' };
/** Encodings the format has that are not read here, named so that the error says what the file holds. */
const OTHER_ENCODINGS = new Set(['txt', 'text', 'ascii', 'hex', 'bzip2', 'bz2', 'zstd', 'zrl']);

/** A field's value and where it was read. */
interface Field {
  value: string;
  place: FieldPlace;
}

export function looksLikeNrrd(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && String.fromCharCode(...bytes.subarray(0, 7)) === 'NRRD000';
}

/** Parses an NRRD file's bytes; `name` is its path (a detached data file is found relative to it). */
export function parseNrrd(bytes: Uint8Array, name: string): VoxelVolume {
  const { fields, dataStart } = readHeader(bytes, name);
  const place = (field: string): FieldPlace => fields.get(field)?.place ?? { file: name, line: 1, field };
  const need = (field: string): Field => {
    const f = fields.get(field);
    if (!f) throw new InputError(name, {}, `the NRRD header has no "${field}" field, which it needs`);
    return f;
  };

  const dimensionField = need('dimension');
  const dimension = Number(dimensionField.value);
  if (!(Number.isInteger(dimension) && dimension >= 1 && dimension <= 3)) {
    throw fieldError(dimensionField.place, `${dimensionField.value}: only 1 to 3 dimensions (one scalar volume) are supported`);
  }
  const sizesField = need('sizes');
  const sizes = sizesIn(sizesField.value);
  if (!sizes || sizes.length !== dimension) throw fieldError(sizesField.place, `"${sizesField.value}" is not ${dimension} whole number${dimension === 1 ? '' : 's'} of at least 1`);
  const dims: [number, number, number] = [sizes[0], sizes[1] ?? 1, sizes[2] ?? 1];

  const typeField = need('type');
  const type = NRRD_TYPES[typeField.value.trim().toLowerCase().replace(/\s+/g, ' ')];
  if (!type) throw fieldError(typeField.place, `unsupported type "${typeField.value}" (block and unknown types cannot be masks)`);

  const encodingField = need('encoding');
  const encodingName = encodingField.value.trim().toLowerCase();
  const encoding = ENCODINGS[encodingName];
  if (!encoding) {
    const known = OTHER_ENCODINGS.has(encodingName) ? 'is not supported' : 'is unknown';
    throw fieldError(encodingField.place, `"${encodingField.value}" ${known}; raw and gzip are read`);
  }

  const littleEndian = endianOf(fields, type, name);
  const { affine, affineSource, flipNote } = geometryOf(fields, dimension, name, place);
  const expected = neededBytes(dims, type, place('sizes'));
  const { raw, dataFile, dataOffset } = dataBytes(bytes, name, fields, dataStart, encoding, expected, place);
  const values = decodeValues(raw, type, littleEndian, dataFile, dataOffset);
  const notes = [`NRRD: ${type} ${encoding}${fields.has('data file') ? `, data in ${dataFile}` : ''}`];
  if (flipNote) notes.push(flipNote);
  return { dims, values, datatype: type, scaling: null, affine, affineSource, spacing: axisLengths(affine), notes };
}

/** The header's fields (names lower-cased, "datafile" read as "data file") and the byte where attached data starts. */
function readHeader(bytes: Uint8Array, name: string): { fields: Map<string, Field>; dataStart: number } {
  const fields = new Map<string, Field>();
  let dataStart = -1;
  for (const line of headerLines(bytes)) {
    if (line.number === 1) {
      if (!/^NRRD000[1-5]$/.test(line.text)) {
        throw new InputError(name, { line: 1 }, `not an NRRD file: the first line is "${line.text.slice(0, 40)}", expected NRRD0001 to NRRD0005`);
      }
      continue;
    }
    if (line.text === '') {
      dataStart = line.next;
      break;
    }
    if (line.text.startsWith('#') || line.text.includes(':=')) continue; // comments, key/value pairs
    const colon = line.text.indexOf(': ');
    if (colon < 0) throw new InputError(name, { line: line.number }, `"${line.text.slice(0, 60)}" is neither a field ("name: value"), a key/value pair nor a comment`);
    let field = line.text.slice(0, colon).trim().toLowerCase();
    field = ({ datafile: 'data file', byteskip: 'byte skip', lineskip: 'line skip', 'space direction': 'space directions' } as Record<string, string>)[field] ?? field;
    if (fields.has(field)) throw new InputError(name, { line: line.number }, `${field}: given twice (first on line ${fields.get(field)!.place.line})`);
    fields.set(field, { value: line.text.slice(colon + 2), place: { file: name, line: line.number, field } });
  }
  if (fields.size === 0 && dataStart < 0) throw new InputError(name, { line: 1 }, 'not an NRRD file (no header)');
  return { fields, dataStart };
}

function endianOf(fields: Map<string, Field>, type: NiftiDatatypeName, name: string): boolean {
  const field = fields.get('endian');
  if (!field) {
    if (TYPE_BYTES[type] === 1) return true; // one byte a value: no order to state
    throw new InputError(name, {}, `the NRRD header has no "endian" field, which ${type} values need`);
  }
  const value = field.value.trim().toLowerCase();
  if (value !== 'little' && value !== 'big') throw fieldError(field.place, `"${field.value}" is neither little nor big`);
  return value === 'little';
}

/** "(x,y,z)" → numbers, or undefined. */
function vectorOf(text: string): number[] | undefined {
  const match = /^\(([^()]*)\)$/.exec(text.trim());
  if (!match) return undefined;
  return numbersIn(match[1].replace(/,/g, ' '));
}

function geometryOf(fields: Map<string, Field>, dimension: number, name: string, place: (field: string) => FieldPlace):
  { affine: Float64Array; affineSource: VoxelVolume['affineSource']; flipNote?: string } {
  const directions = fields.get('space directions');
  const spaceField = fields.get('space');
  let flip: [boolean, boolean] = [false, false];
  let flipNote: string | undefined;
  if (spaceField) {
    const space = spaceField.value.trim().toLowerCase();
    const short: Record<string, string> = { ras: 'right-anterior-superior', las: 'left-anterior-superior', lps: 'left-posterior-superior' };
    const known = RAS_FLIPS[short[space] ?? space];
    if (!known) throw fieldError(spaceField.place, `"${spaceField.value}" is not a 3D space xhd knows (RAS, LAS, LPS, scanner-xyz, 3D-right-handed, 3D-left-handed)`);
    flip = known;
    if (flip[0] || flip[1]) flipNote = `coordinates turned from ${spaceField.value.trim()} into RAS+ (as NIfTI's), which changes no distance`;
  } else if (fields.has('space dimension')) {
    const f = fields.get('space dimension')!;
    if (f.value.trim() !== '3') throw fieldError(f.place, `${f.value}: only 3D spaces are supported`);
  }
  if (directions) {
    if (!spaceField && !fields.has('space dimension')) throw new InputError(name, { line: directions.place.line }, 'space directions: given without a "space" or "space dimension" field');
    const words = directions.value.trim().split(/\s+(?=\(|none)/).filter((w) => w !== '');
    if (words.length !== dimension) throw fieldError(directions.place, `${words.length} vectors for ${dimension} axes`);
    const axes = words.map((w, axis) => {
      const v = vectorOf(w);
      if (!v || v.length !== 3) throw fieldError(directions.place, `axis ${axis + 1} is "${w}", not a vector (x,y,z) of finite numbers`);
      return v;
    });
    while (axes.length < 3) axes.push(unitNormal(axes));
    const originField = fields.get('space origin');
    const origin = originField ? vectorOf(originField.value) : [0, 0, 0];
    if (!origin) throw fieldError(place('space origin'), `"${originField!.value}" is not a vector (x,y,z) of finite numbers`);
    return { affine: affineFromAxes(axes, origin, flip, directions.place, place('space origin')), affineSource: 'space directions', flipNote };
  }
  // Without space directions: spacings along the grid's own axes (nan or absent: 1), the origin at 0 unless given.
  const spacingsField = fields.get('spacings');
  const spacings = [1, 1, 1];
  if (spacingsField) {
    const words = spacingsField.value.trim().split(/\s+/);
    if (words.length !== dimension) throw fieldError(spacingsField.place, `${words.length} values for ${dimension} axes`);
    words.forEach((w, axis) => {
      if (w.toLowerCase() === 'nan') return;
      const v = Number(w);
      if (!(Number.isFinite(v) && v > 0)) throw fieldError(spacingsField.place, `axis ${axis + 1} is "${w}"; a spacing must be a positive number (or nan)`);
      spacings[axis] = v;
    });
  }
  const originField = fields.get('space origin');
  const origin = originField ? vectorOf(originField.value) : [0, 0, 0];
  if (!origin) throw fieldError(place('space origin'), `"${originField!.value}" is not a vector (x,y,z) of finite numbers`);
  const axes = [[spacings[0], 0, 0], [0, spacings[1], 0], [0, 0, spacings[2]]];
  return { affine: affineFromAxes(axes, origin, flip, place('spacings'), place('space origin')), affineSource: 'spacings', flipNote };
}

/** A unit vector at right angles to the given axes, for the axes a 1D or 2D grid does not have (never stepped along). */
function unitNormal(axes: number[][]): number[] {
  if (axes.length === 2) {
    const [u, v] = axes;
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const length = Math.hypot(n[0], n[1], n[2]);
    return length > 0 ? n.map((x) => x / length) : [0, 0, 1];
  }
  const u = axes[0];
  const other = Math.abs(u[0]) <= Math.abs(u[1]) && Math.abs(u[0]) <= Math.abs(u[2]) ? [1, 0, 0] : Math.abs(u[1]) <= Math.abs(u[2]) ? [0, 1, 0] : [0, 0, 1];
  const n = [u[1] * other[2] - u[2] * other[1], u[2] * other[0] - u[0] * other[2], u[0] * other[1] - u[1] * other[0]];
  const length = Math.hypot(n[0], n[1], n[2]);
  return n.map((x) => x / length);
}

/** A whole number field (line skip, byte skip) at least `min`, or its default. */
function integerField(fields: Map<string, Field>, field: string, min: number): number {
  const f = fields.get(field);
  if (!f) return 0;
  const v = Number(f.value.trim());
  if (!(Number.isInteger(v) && v >= min)) throw fieldError(f.place, `"${f.value}" is not a whole number of at least ${min}`);
  return v;
}

/** The voxel bytes, exactly `expected` of them: attached after the header, or from the data file, skips applied. */
function dataBytes(bytes: Uint8Array, name: string, fields: Map<string, Field>, dataStart: number, encoding: 'raw' | 'gzip',
  expected: number, place: (field: string) => FieldPlace): { raw: Uint8Array; dataFile: string; dataOffset: number } {
  const dataField = fields.get('data file');
  let source: Uint8Array, dataFile: string;
  if (dataField) {
    const value = dataField.value.trim();
    if (value.startsWith('LIST') || /%/.test(value) || /\s/.test(value)) {
      throw fieldError(dataField.place, `"${value}": data split over several files is not supported; one data file is read`);
    }
    dataFile = resolve(name === 'standard input' ? '.' : dirname(name), value);
    try {
      source = readInputFile(dataFile, 'a data file');
    } catch (error) {
      const why = error instanceof InputError ? error.message : String(error);
      throw fieldError(dataField.place, `cannot read ${value} (${why})`);
    }
  } else {
    if (dataStart < 0) throw new InputError(name, {}, 'the NRRD header ends without a blank line and names no "data file": there is no data');
    source = bytes.subarray(dataStart);
    dataFile = name;
  }
  const base = dataField ? 0 : dataStart; // where `source` starts in its file, for byte offsets in messages
  let at = 0;
  for (let skip = integerField(fields, 'line skip', 0); skip > 0; skip--) {
    const end = source.indexOf(0x0a, at);
    if (end < 0) throw fieldError(place('line skip'), `the data ends before ${integerField(fields, 'line skip', 0)} lines are skipped (${dataFile})`);
    at = end + 1;
  }
  const byteSkip = integerField(fields, 'byte skip', -1);
  if (encoding === 'raw') {
    if (byteSkip === -1) at = source.length - expected; // the data is the file's last bytes
    else at += byteSkip;
    const present = source.length - at;
    if (at < 0 || present !== expected) {
      throw fieldError(place('sizes'), `the grid needs ${expected} bytes of data, ${dataFile} has ${Math.max(at < 0 ? source.length : present, 0)} after the header and skips`);
    }
    return { raw: source.subarray(at, at + expected), dataFile, dataOffset: base + at };
  }
  if (byteSkip === -1) throw fieldError(place('byte skip'), '-1 (the data at the end of the file) cannot be used with gzip encoding');
  // Teem skips bytes of the decompressed data for compressed encodings.
  const inflated = inflateExactly(source.subarray(at), expected + byteSkip, dataFile, place('sizes'));
  return { raw: inflated.subarray(byteSkip), dataFile, dataOffset: byteSkip };
}
