// Writes NIfTI-1 and NIfTI-2 files for tests, so that synthetic masks need no fixture files.
// Field offsets are written out here independently of src/io/nifti-header.ts, so a shared mistake cannot hide.
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

export type NiftiTestDatatype =
  | 'uint8' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float32' | 'float64';

export interface NiftiSpec {
  /** dim[1..]: [nx, ny, nz], or more entries for a 4D+ file. dim[0] is their count unless `rank` says otherwise. */
  dims: number[];
  /** dim[0], when it should differ from dims.length (e.g. to write an invalid one). */
  rank?: number;
  /**
   * Voxel values in file order (i fastest), written as given: their count is not checked against dims, so a
   * test can write a truncated or lying file. Default: a zero for every voxel. 64-bit types accept bigint.
   */
  values?: ArrayLike<number | bigint>;
  /** Default 'uint8'. A number writes that datatype code, with the values written one byte each. */
  datatype?: NiftiTestDatatype | number;
  /** Default 1. */
  version?: 1 | 2;
  /** Default true. */
  littleEndian?: boolean;
  /** gzip the whole file, as in .nii.gz. */
  gzip?: boolean;
  /** pixdim[1..] (voxel sizes); default 1 for each. */
  spacing?: number[];
  /** pixdim[0]: the qform's qfac. Default 1. */
  qfac?: number;
  /** Default 2 (millimetres). 1 metre, 3 micron, 0 unknown. */
  xyztUnits?: number;
  /** srow_x, srow_y, srow_z as 12 row-major entries; code defaults to 1 (scanner). */
  sform?: { rows: number[]; code?: number };
  /** Quaternion (b, c, d) and offset; code defaults to 1 (scanner). */
  qform?: { quatern: [number, number, number]; offset?: [number, number, number]; code?: number };
  /** Default 0 and 0 (no scaling). */
  sclSlope?: number;
  sclInter?: number;
  /**
   * vox_offset, where the values are written; default just after the header's 4-byte extension flag
   * (352 or 544). For an offset inside the header, pass `values: []` so the header is not overwritten.
   */
  voxOffset?: number;
  /** Replaces the magic (the writer pads or cuts it to the field's size). */
  magic?: string;
}

interface TypeInfo { code: number; bytes: number; write: (view: DataView, at: number, value: number | bigint, le: boolean) => void }

const num = (v: number | bigint) => Number(v);
const big = (v: number | bigint) => BigInt(v);

const TYPES: Record<NiftiTestDatatype, TypeInfo> = {
  uint8: { code: 2, bytes: 1, write: (d, at, v) => d.setUint8(at, num(v)) },
  int16: { code: 4, bytes: 2, write: (d, at, v, le) => d.setInt16(at, num(v), le) },
  int32: { code: 8, bytes: 4, write: (d, at, v, le) => d.setInt32(at, num(v), le) },
  float32: { code: 16, bytes: 4, write: (d, at, v, le) => d.setFloat32(at, num(v), le) },
  float64: { code: 64, bytes: 8, write: (d, at, v, le) => d.setFloat64(at, num(v), le) },
  int8: { code: 256, bytes: 1, write: (d, at, v) => d.setInt8(at, num(v)) },
  uint16: { code: 512, bytes: 2, write: (d, at, v, le) => d.setUint16(at, num(v), le) },
  uint32: { code: 768, bytes: 4, write: (d, at, v, le) => d.setUint32(at, num(v), le) },
  int64: { code: 1024, bytes: 8, write: (d, at, v, le) => d.setBigInt64(at, big(v), le) },
  uint64: { code: 1280, bytes: 8, write: (d, at, v, le) => d.setBigUint64(at, big(v), le) },
};

/** Byte size of one stored value of a datatype. */
export function datatypeBytes(datatype: NiftiTestDatatype): number {
  return TYPES[datatype].bytes;
}

/** Header size: 348 for NIfTI-1, 540 for NIfTI-2. */
export function headerBytes(version: 1 | 2): number {
  return version === 1 ? 348 : 540;
}

/** The bytes of a NIfTI file as `spec` describes it. */
export function niftiBytes(spec: NiftiSpec): Uint8Array {
  const version = spec.version ?? 1;
  const le = spec.littleEndian ?? true;
  const type: TypeInfo = typeof spec.datatype === 'number'
    ? { code: spec.datatype, bytes: 1, write: (d, at, v) => d.setUint8(at, num(v)) }
    : TYPES[spec.datatype ?? 'uint8'];
  const values = spec.values ?? new Array<number>(spec.dims.reduce((p, n) => p * n, 1)).fill(0);
  const voxOffset = spec.voxOffset ?? headerBytes(version) + 4;
  const bytes = new Uint8Array(Math.max(voxOffset, headerBytes(version) + 4) + values.length * type.bytes);
  const view = new DataView(bytes.buffer);
  (version === 1 ? writeNifti1Header : writeNifti2Header)(view, bytes, spec, type, voxOffset, le);
  for (let n = 0; n < values.length; n++) type.write(view, voxOffset + n * type.bytes, values[n], le);
  return spec.gzip ? new Uint8Array(gzipSync(bytes)) : bytes;
}

/** Writes `niftiBytes(spec)` to `path`. */
export function writeNifti(path: string, spec: NiftiSpec): void {
  writeFileSync(path, niftiBytes(spec));
}

function dimArray(spec: NiftiSpec): number[] {
  const dim = [spec.rank ?? spec.dims.length, ...spec.dims];
  while (dim.length < 8) dim.push(1);
  return dim.slice(0, 8);
}

function pixdimArray(spec: NiftiSpec): number[] {
  const pixdim = [spec.qfac ?? 1, ...(spec.spacing ?? [])];
  while (pixdim.length < 8) pixdim.push(1);
  return pixdim.slice(0, 8);
}

function writeMagic(bytes: Uint8Array, at: number, magic: string, size: number): void {
  for (let n = 0; n < size; n++) bytes[at + n] = n < magic.length ? magic.charCodeAt(n) : 0;
}

function writeNifti1Header(view: DataView, bytes: Uint8Array, spec: NiftiSpec, type: TypeInfo, voxOffset: number, le: boolean): void {
  view.setInt32(0, 348, le);
  bytes[38] = 'r'.charCodeAt(0); // "regular", as ANALYZE expects
  dimArray(spec).forEach((v, n) => view.setInt16(40 + 2 * n, v, le));
  view.setInt16(70, type.code, le);
  view.setInt16(72, 8 * type.bytes, le);
  pixdimArray(spec).forEach((v, n) => view.setFloat32(76 + 4 * n, v, le));
  view.setFloat32(108, voxOffset, le);
  view.setFloat32(112, spec.sclSlope ?? 0, le);
  view.setFloat32(116, spec.sclInter ?? 0, le);
  view.setUint8(123, spec.xyztUnits ?? 2);
  if (spec.qform) {
    view.setInt16(252, spec.qform.code ?? 1, le);
    spec.qform.quatern.forEach((v, n) => view.setFloat32(256 + 4 * n, v, le));
    (spec.qform.offset ?? [0, 0, 0]).forEach((v, n) => view.setFloat32(268 + 4 * n, v, le));
  }
  if (spec.sform) {
    view.setInt16(254, spec.sform.code ?? 1, le);
    spec.sform.rows.forEach((v, n) => view.setFloat32(280 + 4 * n, v, le));
  }
  writeMagic(bytes, 344, spec.magic ?? 'n+1\0', 4);
}

function writeNifti2Header(view: DataView, bytes: Uint8Array, spec: NiftiSpec, type: TypeInfo, voxOffset: number, le: boolean): void {
  view.setInt32(0, 540, le);
  writeMagic(bytes, 4, spec.magic ?? 'n+2\0\r\n\x1a\n', 8);
  view.setInt16(12, type.code, le);
  view.setInt16(14, 8 * type.bytes, le);
  dimArray(spec).forEach((v, n) => view.setBigInt64(16 + 8 * n, BigInt(v), le));
  pixdimArray(spec).forEach((v, n) => view.setFloat64(104 + 8 * n, v, le));
  view.setBigInt64(168, BigInt(voxOffset), le);
  view.setFloat64(176, spec.sclSlope ?? 0, le);
  view.setFloat64(184, spec.sclInter ?? 0, le);
  if (spec.qform) {
    view.setInt32(344, spec.qform.code ?? 1, le);
    spec.qform.quatern.forEach((v, n) => view.setFloat64(352 + 8 * n, v, le));
    (spec.qform.offset ?? [0, 0, 0]).forEach((v, n) => view.setFloat64(376 + 8 * n, v, le));
  }
  if (spec.sform) {
    view.setInt32(348, spec.sform.code ?? 1, le);
    spec.sform.rows.forEach((v, n) => view.setFloat64(400 + 8 * n, v, le));
  }
  view.setInt32(500, spec.xyztUnits ?? 2, le);
}
