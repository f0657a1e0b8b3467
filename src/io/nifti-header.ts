// NIfTI-1 and NIfTI-2 headers: where each field lives, which byte order the file uses, the checks a
// header must pass before any voxel is touched, and the voxel-to-millimetre affine it describes.
import { InputError } from '../core/errors.js';

type FieldKind = 'u8' | 'i16' | 'i32' | 'i64' | 'f32' | 'f64';

/** A header field: its byte offset and storage type (arrays continue at the next element). */
export interface HeaderField {
  readonly at: number;
  readonly kind: FieldKind;
}

const WIDTH: Record<FieldKind, number> = { u8: 1, i16: 2, i32: 4, i64: 8, f32: 4, f64: 8 };

/** The fields the reader uses, for one NIfTI version. The two versions hold the same fields in different places and widths. */
export interface NiftiLayout {
  readonly version: 1 | 2;
  readonly headerBytes: number;
  readonly magic: number;
  readonly dim: HeaderField;
  readonly datatype: HeaderField;
  readonly bitpix: HeaderField;
  readonly pixdim: HeaderField;
  readonly voxOffset: HeaderField;
  readonly sclSlope: HeaderField;
  readonly sclInter: HeaderField;
  readonly xyztUnits: HeaderField;
  readonly qformCode: HeaderField;
  readonly sformCode: HeaderField;
  readonly quatern: HeaderField;
  readonly qoffset: HeaderField;
  readonly srow: HeaderField;
}

export const NIFTI1_LAYOUT: NiftiLayout = {
  version: 1, headerBytes: 348, magic: 344,
  dim: { at: 40, kind: 'i16' }, datatype: { at: 70, kind: 'i16' }, bitpix: { at: 72, kind: 'i16' },
  pixdim: { at: 76, kind: 'f32' }, voxOffset: { at: 108, kind: 'f32' },
  sclSlope: { at: 112, kind: 'f32' }, sclInter: { at: 116, kind: 'f32' }, xyztUnits: { at: 123, kind: 'u8' },
  qformCode: { at: 252, kind: 'i16' }, sformCode: { at: 254, kind: 'i16' },
  quatern: { at: 256, kind: 'f32' }, qoffset: { at: 268, kind: 'f32' }, srow: { at: 280, kind: 'f32' },
};

export const NIFTI2_LAYOUT: NiftiLayout = {
  version: 2, headerBytes: 540, magic: 4,
  dim: { at: 16, kind: 'i64' }, datatype: { at: 12, kind: 'i16' }, bitpix: { at: 14, kind: 'i16' },
  pixdim: { at: 104, kind: 'f64' }, voxOffset: { at: 168, kind: 'i64' },
  sclSlope: { at: 176, kind: 'f64' }, sclInter: { at: 184, kind: 'f64' }, xyztUnits: { at: 500, kind: 'i32' },
  qformCode: { at: 344, kind: 'i32' }, sformCode: { at: 348, kind: 'i32' },
  quatern: { at: 352, kind: 'f64' }, qoffset: { at: 376, kind: 'f64' }, srow: { at: 400, kind: 'f64' },
};

/** Byte offset of element `index` of a header field, as error messages report it. */
export function fieldOffset(field: HeaderField, index = 0): number {
  return field.at + index * WIDTH[field.kind];
}

/** The raw header fields the reader needs, plus where they came from (for error messages). */
export interface NiftiHeader {
  readonly file: string;
  /** True when the bytes were gunzipped first: byte offsets then count in the decompressed data. */
  readonly decompressed: boolean;
  readonly layout: NiftiLayout;
  readonly version: 1 | 2;
  readonly littleEndian: boolean;
  /** dim[0..7] as stored. */
  readonly dim: readonly number[];
  /** [nx, ny, nz]; spatial axes beyond dim[0] count as 1. */
  readonly dims: readonly [number, number, number];
  readonly datatype: number;
  readonly bitpix: number;
  /** pixdim[0..7] as stored; pixdim[0] is qfac. */
  readonly pixdim: readonly number[];
  readonly voxOffset: number;
  readonly sclSlope: number;
  readonly sclInter: number;
  readonly xyztUnits: number;
  readonly qformCode: number;
  readonly sformCode: number;
  /** quatern_b, quatern_c, quatern_d. */
  readonly quatern: readonly number[];
  /** qoffset_x, qoffset_y, qoffset_z. */
  readonly qoffset: readonly number[];
  /** srow_x, srow_y, srow_z: 12 entries, row-major. */
  readonly srow: readonly number[];
}

/** An InputError at a byte of this header's file. */
export function headerError(header: Pick<NiftiHeader, 'file' | 'decompressed'>, byte: number, detail: string): InputError {
  return new InputError(header.file, { byte }, header.decompressed ? `${detail} (offset in the decompressed data)` : detail);
}

/** Larger axis sizes are treated as a corrupt header rather than a volume. */
const MAX_AXIS = 2 ** 31 - 1;

const SINGLE_FILE_MAGIC = { 1: 'n+1\0', 2: 'n+2\0\r\n\x1a\n' } as const;
const PAIR_MAGIC = { 1: 'ni1\0', 2: 'ni2\0' } as const;

/**
 * Parses and checks a NIfTI-1 or NIfTI-2 header at the start of `bytes` (already decompressed).
 * The byte order is the one in which sizeof_hdr reads 348 or 540. Checks that the dims describe one 3D
 * volume and that vox_offset lies between the header and the end of the bytes; the voxel data itself is
 * not looked at.
 */
export function parseNiftiHeader(bytes: Uint8Array, file: string,
  options: { decompressed?: boolean; totalBytes?: number } = {}): NiftiHeader {
  const source = { file, decompressed: options.decompressed ?? false };
  if (bytes.length < 4) {
    throw headerError(source, bytes.length, `too short for a NIfTI header (${bytes.length} bytes; a NIfTI-1 header needs 348)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const order = detectByteOrder(view);
  if (!order) {
    const little = view.getInt32(0, true);
    throw headerError(source, 0, `not a NIfTI file: sizeof_hdr is ${little}, expected 348 (NIfTI-1) or 540 (NIfTI-2) in either byte order`);
  }
  const { layout, littleEndian } = order;
  if (bytes.length < layout.headerBytes) {
    throw headerError(source, bytes.length,
      `too short for a NIfTI-${layout.version} header (${bytes.length} bytes, need ${layout.headerBytes})`);
  }
  checkMagic(bytes, layout, source);
  const read = (field: HeaderField, index = 0) => readField(view, field, littleEndian, index);
  // A loop, and the fields named below rather than `...source`: Array.from with a callback and an object spread
  // made this 10× slower (about 25 µs a header, read twice for each .nii.gz mask of a batch).
  const readArray = (field: HeaderField, count: number) => {
    const values: number[] = [];
    for (let i = 0; i < count; i++) values.push(read(field, i));
    return values;
  };
  const dim = readArray(layout.dim, 8);
  const dims = checkDims(dim, layout, source);
  const voxOffset = read(layout.voxOffset);
  // totalBytes: the size of the whole data when `bytes` is only its start (a gzip stream's first block).
  checkVoxOffset(voxOffset, options.totalBytes ?? bytes.length, layout, source);
  return {
    file: source.file, decompressed: source.decompressed, layout, version: layout.version, littleEndian, dim, dims,
    datatype: read(layout.datatype), bitpix: read(layout.bitpix), pixdim: readArray(layout.pixdim, 8), voxOffset,
    sclSlope: read(layout.sclSlope), sclInter: read(layout.sclInter), xyztUnits: read(layout.xyztUnits),
    qformCode: read(layout.qformCode), sformCode: read(layout.sformCode),
    quatern: readArray(layout.quatern, 3), qoffset: readArray(layout.qoffset, 3), srow: readArray(layout.srow, 12),
  };
}

function detectByteOrder(view: DataView): { layout: NiftiLayout; littleEndian: boolean } | undefined {
  for (const littleEndian of [true, false]) {
    const size = view.getInt32(0, littleEndian);
    if (size === NIFTI1_LAYOUT.headerBytes) return { layout: NIFTI1_LAYOUT, littleEndian };
    if (size === NIFTI2_LAYOUT.headerBytes) return { layout: NIFTI2_LAYOUT, littleEndian };
  }
  return undefined;
}

function readField(view: DataView, field: HeaderField, littleEndian: boolean, index: number): number {
  const at = fieldOffset(field, index);
  switch (field.kind) {
    case 'u8': return view.getUint8(at);
    case 'i16': return view.getInt16(at, littleEndian);
    case 'i32': return view.getInt32(at, littleEndian);
    // Beyond 2^53 the value loses precision, but every such size or offset is refused anyway.
    case 'i64': return Number(view.getBigInt64(at, littleEndian));
    case 'f32': return view.getFloat32(at, littleEndian);
    case 'f64': return view.getFloat64(at, littleEndian);
  }
}

function checkMagic(bytes: Uint8Array, layout: NiftiLayout, source: Pick<NiftiHeader, 'file' | 'decompressed'>): void {
  const expected = SINGLE_FILE_MAGIC[layout.version];
  const found = String.fromCharCode(...bytes.subarray(layout.magic, layout.magic + expected.length));
  if (found === expected) return;
  if (found.startsWith(PAIR_MAGIC[layout.version])) {
    throw headerError(source, layout.magic, `this is the header of a NIfTI-${layout.version} .hdr/.img pair; `
      + 'only single-file .nii or .nii.gz volumes are supported');
  }
  throw headerError(source, layout.magic,
    `bad NIfTI-${layout.version} magic ${printable(found)}, expected ${printable(expected)}`);
}

function printable(text: string): string {
  const escaped = Array.from(text, (ch) => {
    const code = ch.charCodeAt(0);
    return code >= 0x20 && code < 0x7f && ch !== '"' && ch !== '\\' ? ch : `\\x${code.toString(16).padStart(2, '0')}`;
  });
  return `"${escaped.join('')}"`;
}

function checkDims(dim: number[], layout: NiftiLayout, source: Pick<NiftiHeader, 'file' | 'decompressed'>): [number, number, number] {
  const rank = dim[0];
  if (!(rank >= 1 && rank <= 7)) {
    throw headerError(source, fieldOffset(layout.dim), `dim[0] is ${rank}; the number of dimensions must be 1 to 7`);
  }
  for (let axis = 1; axis <= rank; axis++) {
    const size = dim[axis];
    const at = fieldOffset(layout.dim, axis);
    if (size < 1) throw headerError(source, at, `dim[${axis}] is ${size}; every size must be at least 1`);
    if (axis >= 4 && size > 1) {
      throw headerError(source, at, `4D volumes are not supported (dim[${axis}] is ${size}); extract a single 3D volume first`);
    }
    if (size > MAX_AXIS) throw headerError(source, at, `dim[${axis}] is ${size}, not a plausible volume size`);
  }
  const size = (axis: number) => (axis <= rank ? dim[axis] : 1);
  return [size(1), size(2), size(3)];
}

function checkVoxOffset(voxOffset: number, fileBytes: number, layout: NiftiLayout, source: Pick<NiftiHeader, 'file' | 'decompressed'>): void {
  const at = fieldOffset(layout.voxOffset);
  if (!Number.isInteger(voxOffset) || voxOffset < layout.headerBytes) {
    throw headerError(source, at, `vox_offset is ${voxOffset}; it must be a whole number of at least ${layout.headerBytes} (the header size)`);
  }
  if (voxOffset > fileBytes) {
    throw headerError(source, at, `vox_offset ${voxOffset} is beyond the end of the file (${fileBytes} bytes)`);
  }
}

export type AffineSource = 'sform' | 'qform' | 'pixdim';

/**
 * The voxel-to-millimetre affine the header describes (12 entries, row-major 3×4; voxel index (i, j, k)
 * is the voxel's centre), chosen as the NIfTI-1 standard says: the sform when sform_code > 0, else the
 * qform when qform_code > 0, else the pixdim diagonal. Spatial units (xyzt_units) scale every entry.
 */
export function niftiAffine(header: NiftiHeader): { affine: Float64Array; source: AffineSource; note?: string } {
  let source: AffineSource = header.sformCode > 0 ? 'sform' : header.qformCode > 0 ? 'qform' : 'pixdim';
  let affine = source === 'sform' ? sformAffine(header) : source === 'qform' ? qformAffine(header) : pixdimAffine(header);
  let note: string | undefined;
  if (source === 'sform' && !mapsDistinctVoxelsApart(affine, header.dims)) {
    // A singular sform puts different voxels at one place (an all-zero sform: every voxel at the origin), so
    // every distance would be wrong. The qform, when the file has one, is the standard's other description.
    if (!(header.qformCode > 0)) {
      throw headerError(header, fieldOffset(header.layout.srow),
        'the sform (srow_x, srow_y, srow_z) is singular: it maps different voxels to the same place, and the file has no qform to fall back on');
    }
    source = 'qform';
    affine = qformAffine(header);
    note = 'its sform is singular (it maps different voxels to the same place): the qform is used instead';
  }
  const scale = spatialUnitScale(header.xyztUnits);
  for (let n = 0; n < 12; n++) affine[n] *= scale;
  if (!affine.every(Number.isFinite)) {
    throw headerError(header, fieldOffset(header.layout.xyztUnits), `the ${source} affine is not finite after unit scaling`);
  }
  return note ? { affine, source, note } : { affine, source };
}

/**
 * Whether the affine keeps distinct voxels apart: its columns for the axes the volume extends along (size
 * above 1) are linearly independent, judged relative to their lengths so that tiny voxels are not mistaken
 * for a collapse.
 */
function mapsDistinctVoxelsApart(affine: Float64Array, dims: readonly [number, number, number]): boolean {
  const columns = [0, 1, 2].filter((k) => dims[k] > 1).map((k) => [affine[k], affine[4 + k], affine[8 + k]]);
  const length = (v: number[]) => Math.hypot(v[0], v[1], v[2]);
  const cross = (u: number[], v: number[]) => [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  const RELATIVE = 1e-9; // far below any real voxel's skew, far above rounding
  if (columns.some((c) => !(length(c) > 0))) return false;
  if (columns.length === 2) return length(cross(columns[0], columns[1])) > RELATIVE * length(columns[0]) * length(columns[1]);
  if (columns.length === 3) {
    const [u, v, w] = columns, n = cross(u, v);
    const volume = Math.abs(n[0] * w[0] + n[1] * w[1] + n[2] * w[2]);
    return volume > RELATIVE * length(u) * length(v) * length(w);
  }
  return true;
}

/** Millimetres per spatial unit: xyzt_units & 7 is 1 metre, 2 millimetre, 3 micron; anything else is taken as millimetres. */
export function spatialUnitScale(xyztUnits: number): number {
  switch (xyztUnits & 7) {
    case 1: return 1000;
    case 3: return 0.001;
    default: return 1;
  }
}

/** srow_x, srow_y, srow_z in file units. */
export function sformAffine(header: NiftiHeader): Float64Array {
  header.srow.forEach((value, n) => {
    if (!Number.isFinite(value)) {
      const row = 'xyz'[Math.floor(n / 4)];
      throw headerError(header, fieldOffset(header.layout.srow, n), `srow_${row}[${n % 4}] is ${value}; the sform must be finite`);
    }
  });
  return Float64Array.from(header.srow);
}

/** Further past a unit length than float32 rounding explains, the quaternion is broken. */
const QUATERNION_SLACK = 1e-4;
/**
 * Float32 storage leaves a² = 1 − b² − c² − d² uncertain by about 1e-7, so a smaller a² is read as a 180°
 * turn (a = 0, (b, c, d) normalised), as nifti1_io does; otherwise that noise would tilt the axes by
 * up to 0.04°, about 0.1 mm across a brain.
 */
const HALF_TURN_A_SQUARED = 1e-7;

/** NIfTI-1 method 2: rotation from the quaternion (b, c, d), voxel sizes from pixdim, qfac = pixdim[0] flips k. */
export function qformAffine(header: NiftiHeader): Float64Array {
  const { layout } = header;
  let [b, c, d] = header.quatern;
  [...header.quatern, ...header.qoffset].forEach((value, n) => {
    if (!Number.isFinite(value)) {
      const name = n < 3 ? `quatern_${'bcd'[n]}` : `qoffset_${'xyz'[n - 3]}`;
      const at = n < 3 ? fieldOffset(layout.quatern, n) : fieldOffset(layout.qoffset, n - 3);
      throw headerError(header, at, `${name} is ${value}; the qform must be finite`);
    }
  });
  let aSquared = 1 - (b * b + c * c + d * d);
  if (aSquared < -QUATERNION_SLACK) {
    throw headerError(header, fieldOffset(layout.quatern),
      `quaternion (b, c, d) = (${b}, ${c}, ${d}) is longer than 1, so it is no rotation`);
  }
  if (aSquared < HALF_TURN_A_SQUARED) {
    const length = Math.sqrt(b * b + c * c + d * d);
    b /= length; c /= length; d /= length;
    aSquared = 0;
  }
  const a = Math.sqrt(aSquared);
  const qfac = header.pixdim[0] < 0 ? -1 : 1; // the standard allows only ±1 and says to treat 0 as 1
  const [dx, dy, dz] = pixdimSpacing(header, 'qform');
  const [ox, oy, oz] = header.qoffset;
  const sx = dx, sy = dy, sz = dz * qfac;
  return Float64Array.of(
    (a * a + b * b - c * c - d * d) * sx, 2 * (b * c - a * d) * sy, 2 * (b * d + a * c) * sz, ox,
    2 * (b * c + a * d) * sx, (a * a + c * c - b * b - d * d) * sy, 2 * (c * d - a * b) * sz, oy,
    2 * (b * d - a * c) * sx, 2 * (c * d + a * b) * sy, (a * a + d * d - b * b - c * c) * sz, oz,
  );
}

/** NIfTI-1 method 1 (no sform or qform): x = i·dx, y = j·dy, z = k·dz. */
export function pixdimAffine(header: NiftiHeader): Float64Array {
  const [dx, dy, dz] = pixdimSpacing(header, 'pixdim');
  return Float64Array.of(dx, 0, 0, 0, 0, dy, 0, 0, 0, 0, dz, 0);
}

/** pixdim[1..3], which must be positive for the axes the volume has. */
function pixdimSpacing(header: NiftiHeader, usedBy: AffineSource): [number, number, number] {
  const spacing = [1, 2, 3].map((axis) => {
    const value = header.pixdim[axis];
    if (value > 0 && Number.isFinite(value)) return value;
    // An axis the file does not have (beyond dim[0]) often stores 0; any positive size keeps the affine invertible.
    if (axis > header.dim[0]) return 1;
    throw headerError(header, fieldOffset(header.layout.pixdim, axis),
      `pixdim[${axis}] is ${value}; voxel sizes used by the ${usedBy} must be positive`);
  });
  return [spacing[0], spacing[1], spacing[2]];
}
