// Writes NRRD and MetaImage volumes for tests, every variant the readers take (attached and detached data, raw and
// gzip / zlib, both byte orders, space directions or spacings, RAS or LPS), so that synthetic masks need no fixture
// files. Written from the formats' own descriptions, independently of src/io/nrrd.ts and metaimage.ts.
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';

export type VolumeType = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float32' | 'float64';

/** A volume in RAS+ millimetres: x = axes[0]·i + axes[1]·j + axes[2]·k + origin (axes: one step along each axis). */
export interface TestVolume {
  dims: [number, number, number];
  values: ArrayLike<number>;
  type: VolumeType;
  axes: [number[], number[], number[]];
  origin: number[];
}

const BYTES: Record<VolumeType, number> = { uint8: 1, int8: 1, uint16: 2, int16: 2, uint32: 4, int32: 4, float32: 4, float64: 8 };

/** The values as bytes in the given order. */
export function volumeBytes(v: Pick<TestVolume, 'values' | 'type'>, littleEndian: boolean): Uint8Array {
  const width = BYTES[v.type];
  const out = new Uint8Array(v.values.length * width);
  const view = new DataView(out.buffer);
  for (let n = 0; n < v.values.length; n++) {
    const x = v.values[n], at = n * width;
    switch (v.type) {
      case 'uint8': view.setUint8(at, x); break;
      case 'int8': view.setInt8(at, x); break;
      case 'uint16': view.setUint16(at, x, littleEndian); break;
      case 'int16': view.setInt16(at, x, littleEndian); break;
      case 'uint32': view.setUint32(at, x, littleEndian); break;
      case 'int32': view.setInt32(at, x, littleEndian); break;
      case 'float32': view.setFloat32(at, x, littleEndian); break;
      case 'float64': view.setFloat64(at, x, littleEndian); break;
    }
  }
  return out;
}

const NRRD_TYPE_NAMES: Record<VolumeType, string> = {
  uint8: 'unsigned char', int8: 'signed char', uint16: 'ushort', int16: 'short', uint32: 'unsigned int', int32: 'int', float32: 'float', float64: 'double',
};

export interface NrrdVariant {
  /** Data after the header (.nrrd) or in a separate file (.nhdr + .raw / .raw.gz). */
  detached?: boolean;
  gzip?: boolean;
  littleEndian?: boolean;
  /** RAS (default) or LPS: with LPS, x and y of every vector are written negated. */
  space?: 'RAS' | 'LPS' | 'right-anterior-superior' | 'left-posterior-superior';
  /** Write "spacings" (axis-aligned volumes only) instead of space directions and origin. */
  spacingsOnly?: boolean;
  /** Lines added to the header (before the data file line), or replacing fields: key → full line ('' drops it). */
  fields?: Record<string, string>;
  /** Bytes written instead of the encoded values (to write lying files). */
  data?: Uint8Array;
  byteSkip?: number;
}

const vector = (v: number[]) => `(${v.map((x) => String(x)).join(',')})`;

/** Writes `base`.nrrd, or `base`.nhdr and its data file; returns the path to pass to xhd. */
export function writeNrrd(base: string, v: TestVolume, variant: NrrdVariant = {}): string {
  const le = variant.littleEndian ?? true;
  const lps = variant.space === 'LPS' || variant.space === 'left-posterior-superior';
  const flip = (p: number[]) => (lps ? [-p[0], -p[1], p[2]] : [...p]);
  const lines = new Map<string, string>([
    ['magic', 'NRRD0005'],
    ['comment', '# written by the xhd tests'],
    ['type', `type: ${NRRD_TYPE_NAMES[v.type]}`],
    ['dimension', 'dimension: 3'],
    ['space', variant.spacingsOnly ? '' : `space: ${variant.space ?? 'RAS'}`],
    ['sizes', `sizes: ${v.dims.join(' ')}`],
    ['space directions', variant.spacingsOnly ? '' : `space directions: ${v.axes.map((a) => vector(flip(a))).join(' ')}`],
    ['spacings', variant.spacingsOnly ? `spacings: ${v.axes.map((a, c) => a[c]).join(' ')}` : ''],
    ['kinds', 'kinds: domain domain domain'],
    ['endian', `endian: ${le ? 'little' : 'big'}`],
    ['encoding', `encoding: ${variant.gzip ? 'gzip' : 'raw'}`],
    ['space origin', variant.spacingsOnly ? '' : `space origin: ${vector(flip(v.origin))}`],
    ['keyvalue', 'xhd_test:=a key/value pair'],
  ]);
  if (variant.byteSkip !== undefined) lines.set('byte skip', `byte skip: ${variant.byteSkip}`);
  for (const [key, line] of Object.entries(variant.fields ?? {})) lines.set(key, line);
  const raw = variant.data ?? volumeBytes(v, le);
  const payload = variant.data ? raw : variant.gzip ? gzipSync(raw) : raw;
  if (variant.detached) {
    const dataPath = `${base}.raw${variant.gzip ? '.gz' : ''}`;
    if (!lines.has('data file')) lines.set('data file', `data file: ${basename(dataPath)}`);
    writeFileSync(`${base}.nhdr`, [...lines.values()].filter((l) => l !== '').join('\n') + '\n');
    writeFileSync(dataPath, payload);
    return `${base}.nhdr`;
  }
  const header = Buffer.from([...lines.values()].filter((l) => l !== '').join('\n') + '\n\n', 'latin1');
  writeFileSync(`${base}.nrrd`, Buffer.concat([header, payload]));
  return `${base}.nrrd`;
}

const MET_TYPES: Record<VolumeType, string> = {
  uint8: 'MET_UCHAR', int8: 'MET_CHAR', uint16: 'MET_USHORT', int16: 'MET_SHORT', uint32: 'MET_UINT', int32: 'MET_INT', float32: 'MET_FLOAT', float64: 'MET_DOUBLE',
};

export interface MetaImageVariant {
  /** .mhd with a .raw (or .zraw) data file instead of .mha. */
  detached?: boolean;
  compressed?: boolean;
  msb?: boolean;
  /** Lines replacing or added to the header: key → full line ('' drops it). ElementDataFile always comes last. */
  fields?: Record<string, string>;
  data?: Uint8Array;
}

/**
 * Writes `base`.mha or `base`.mhd (+ data). MetaImage is LPS: Offset and the axes' x and y are written negated; the
 * axes go out as ElementSpacing (their lengths) and TransformMatrix (their unit directions, one axis after another).
 * `spacing` and `directions` override the split (their products must equal the axes for the points to agree).
 */
export function writeMetaImage(base: string, v: TestVolume, variant: MetaImageVariant = {}, split?: { spacing: number[]; directions: number[][] }): string {
  const lps = (p: number[]) => [-p[0], -p[1], p[2]];
  const spacing = split?.spacing ?? v.axes.map((a) => Math.hypot(a[0], a[1], a[2]));
  const directions = split?.directions ?? v.axes.map((a, c) => a.map((x) => x / spacing[c]));
  const lines = new Map<string, string>([
    ['ObjectType', 'ObjectType = Image'],
    ['NDims', 'NDims = 3'],
    ['BinaryData', 'BinaryData = True'],
    ['BinaryDataByteOrderMSB', `BinaryDataByteOrderMSB = ${variant.msb ? 'True' : 'False'}`],
    ['CompressedData', `CompressedData = ${variant.compressed ? 'True' : 'False'}`],
    ['TransformMatrix', `TransformMatrix = ${directions.map(lps).flat().join(' ')}`],
    ['Offset', `Offset = ${lps(v.origin).join(' ')}`],
    ['CenterOfRotation', 'CenterOfRotation = 0 0 0'],
    ['AnatomicalOrientation', 'AnatomicalOrientation = RAI'],
    ['ElementSpacing', `ElementSpacing = ${spacing.join(' ')}`],
    ['DimSize', `DimSize = ${v.dims.join(' ')}`],
    ['ElementType', `ElementType = ${MET_TYPES[v.type]}`],
  ]);
  const raw = variant.data ?? volumeBytes(v, !variant.msb);
  const payload = variant.data ? raw : variant.compressed ? deflateSync(raw) : raw;
  if (variant.compressed && !variant.data) lines.set('CompressedDataSize', `CompressedDataSize = ${payload.length}`);
  for (const [key, line] of Object.entries(variant.fields ?? {})) lines.set(key, line);
  const dataName = `${basename(base)}.${variant.compressed ? 'zraw' : 'raw'}`;
  const dataLine = variant.fields?.ElementDataFile ?? `ElementDataFile = ${variant.detached ? dataName : 'LOCAL'}`;
  lines.delete('ElementDataFile');
  const header = [...lines.values()].filter((l) => l !== '').join('\n') + '\n' + dataLine + '\n';
  if (variant.detached) {
    writeFileSync(`${base}.mhd`, header);
    writeFileSync(`${base}.${variant.compressed ? 'zraw' : 'raw'}`, payload);
    return `${base}.mhd`;
  }
  writeFileSync(`${base}.mha`, Buffer.concat([Buffer.from(header, 'latin1'), payload]));
  return `${base}.mha`;
}
