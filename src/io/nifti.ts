// Reads a single-file NIfTI-1 or NIfTI-2 volume (.nii, or .nii.gz) into voxel values and the affine
// that maps voxel indices to millimetres. Label masks are the use: one 3D volume, values as stored.
import { constants as zlibConstants, gunzip, gunzipSync } from 'node:zlib';
import { InputError } from '../core/errors.js';
import { readInputFile } from './input-file.js';
import { fieldOffset, headerError, niftiAffine, parseNiftiHeader, type AffineSource, type NiftiHeader } from './nifti-header.js';

export type NiftiDatatypeName =
  | 'uint8' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'float32' | 'float64';

/** Voxel values, i fastest, then j, then k. 64-bit integers and scaled values come as Float64Array. */
export type VoxelValues = Uint8Array | Int8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

/** Where a volume's voxel-to-millimetre affine came from: a NIfTI form, the NRRD or MetaImage fields, or DICOM-SEG's functional groups. */
export type VolumeAffineSource = AffineSource | 'space directions' | 'spacings' | 'TransformMatrix' | 'functional groups';

/** A label volume as every reader gives it (NIfTI, NRRD, MetaImage, DICOM-SEG), in NIfTI's RAS+ millimetres. */
export interface VoxelVolume {
  /** The NIfTI version; absent for the other formats. */
  version?: 1 | 2;
  /** [nx, ny, nz]; a 2D file has nz = 1. */
  dims: [number, number, number];
  /** nx·ny·nz values, scl_slope/scl_inter already applied. May share memory with the bytes that were parsed. */
  values: VoxelValues;
  /** How the file stores the values (before any scaling). */
  datatype: NiftiDatatypeName;
  /** The scaling applied to the stored values, or null when they are used as stored. */
  scaling: { slope: number; inter: number } | null;
  /** Row-major 3×4: voxel centre (i, j, k) → millimetres, x = a[0]·i + a[1]·j + a[2]·k + a[3], and so on. */
  affine: Float64Array;
  affineSource: VolumeAffineSource;
  /** Millimetres between neighbouring voxel centres along i, j, k (the lengths of the affine's columns). */
  spacing: [number, number, number];
  /** What the reader chose that the user should know (a singular sform replaced by the qform). */
  notes: string[];
}

/** Files, and gzip output, beyond this are refused rather than exhaust memory. */
export const MAX_NIFTI_BYTES = 2 * 1024 ** 3;

interface Datatype {
  name: NiftiDatatypeName;
  bytes: 1 | 2 | 4 | 8;
  float: boolean;
  /** Typed view of `length` values at `offset`; 64-bit integers are converted instead (see wideIntegers). */
  view?: (buffer: ArrayBufferLike, offset: number, length: number) => VoxelValues;
}

const DATATYPES = new Map<number, Datatype>([
  [2, { name: 'uint8', bytes: 1, float: false, view: (b, o, n) => new Uint8Array(b, o, n) }],
  [4, { name: 'int16', bytes: 2, float: false, view: (b, o, n) => new Int16Array(b, o, n) }],
  [8, { name: 'int32', bytes: 4, float: false, view: (b, o, n) => new Int32Array(b, o, n) }],
  [16, { name: 'float32', bytes: 4, float: true, view: (b, o, n) => new Float32Array(b, o, n) }],
  [64, { name: 'float64', bytes: 8, float: true, view: (b, o, n) => new Float64Array(b, o, n) }],
  [256, { name: 'int8', bytes: 1, float: false, view: (b, o, n) => new Int8Array(b, o, n) }],
  [512, { name: 'uint16', bytes: 2, float: false, view: (b, o, n) => new Uint16Array(b, o, n) }],
  [768, { name: 'uint32', bytes: 4, float: false, view: (b, o, n) => new Uint32Array(b, o, n) }],
  [1024, { name: 'int64', bytes: 8, float: false }],
  [1280, { name: 'uint64', bytes: 8, float: false }],
]);

/** Codes the standard defines but a mask reader has no use for, named so the error says what the file holds. */
const UNSUPPORTED_DATATYPES = new Map<number, string>([
  [0, 'unknown'], [1, 'binary (1 bit)'], [32, 'complex64'], [128, 'rgb24'], [1536, 'float128'],
  [1792, 'complex128'], [2048, 'complex256'], [2304, 'rgba32'],
]);

const HOST_LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Reads a .nii or .nii.gz file (gzip is recognised by its first two bytes, not by the name). */
export function readNifti(path: string): VoxelVolume {
  return parseNifti(readInputFile(path, 'a NIfTI file'), path);
}

/** Parses the bytes of a .nii file, gunzipping them first when they start with the gzip signature. */
export function parseNifti(bytes: Uint8Array, name: string): VoxelVolume {
  const decompressed = isGzip(bytes);
  return volumeOf(decompressed ? gunzipDeclared(bytes, name) : bytes, name, decompressed);
}

/**
 * parseNifti with the inflating on libuv's thread pool (zlib's asynchronous API) instead of the main thread, where
 * `xhd batch` lanes would wait on each other: the same volume, or the same error.
 */
export async function parseNiftiAsync(bytes: Uint8Array, name: string): Promise<VoxelVolume> {
  const decompressed = isGzip(bytes);
  return volumeOf(decompressed ? await gunzipDeclaredAsync(bytes, name) : bytes, name, decompressed);
}

/** The volume in a .nii file's (decompressed) bytes. */
function volumeOf(data: Uint8Array, name: string, decompressed: boolean): VoxelVolume {
  const header = parseNiftiHeader(data, name, { decompressed });
  const datatype = datatypeOf(header);
  checkDataSize(header, datatype, data.length);
  const { affine, source, note } = niftiAffine(header);
  const stored = decodeVoxels(data, header, datatype);
  const scaling = scalingOf(header);
  return {
    version: header.version,
    dims: [...header.dims],
    values: scaling ? scaled(stored, scaling, header, datatype) : stored,
    datatype: datatype.name,
    scaling,
    affine,
    affineSource: source,
    spacing: columnLengths(affine),
    notes: note ? [note] : [],
  };
}

/** Compressed bytes that hold a header: deflate cannot pack 540 header bytes into more than a few hundred. */
const GZIP_HEADER_INPUT = 4096;

/**
 * How far the whole gzip stream may decompress: what the header declares (vox_offset plus the voxels), read
 * from the stream's first bytes before anything large is inflated, so a file whose header declares more
 * than MAX_NIFTI_BYTES is refused at once instead of after gigabytes of work. Data beyond the declared
 * voxels is allowed up to 1 MiB. The whole limit when the header cannot be read this way (the full
 * decompression then reports the real problem).
 */
export function gzipOutputLimit(bytes: Uint8Array, name: string): number {
  let head: Uint8Array;
  try {
    head = gunzipSync(bytes.subarray(0, GZIP_HEADER_INPUT), { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: 1 << 24 });
  } catch {
    return MAX_NIFTI_BYTES;
  }
  return declaredLimit(head, name) ?? MAX_NIFTI_BYTES;
}

/**
 * The limit the header at the start of `head` (decompressed bytes) declares; undefined when they hold no
 * header that says (too short, not NIfTI, an unknown datatype). Throws when it declares over MAX_NIFTI_BYTES.
 */
function declaredLimit(head: Uint8Array, name: string): number | undefined {
  let header: NiftiHeader;
  try {
    header = parseNiftiHeader(head, name, { decompressed: true, totalBytes: Number.MAX_SAFE_INTEGER });
  } catch {
    return undefined; // a short or odd start: the full path names the problem
  }
  const datatype = DATATYPES.get(header.datatype);
  if (!datatype) return undefined;
  const [nx, ny, nz] = header.dims;
  const declared = header.voxOffset + nx * ny * nz * datatype.bytes;
  if (declared > MAX_NIFTI_BYTES) {
    throw headerError(header, fieldOffset(header.layout.dim), `the header declares ${nx}×${ny}×${nz} ${datatype.name} voxels, `
      + `${describeBytes(declared)} decompressed; volumes over ${describeBytes(MAX_NIFTI_BYTES)} are not supported`);
  }
  return Math.min(MAX_NIFTI_BYTES, declared + (1 << 20));
}

/**
 * Compressed bytes tried, in turn, for the header before gzipOutputLimit's 4096: a NIfTI-1 header deflates into
 * about 150 bytes, a NIfTI-2 one into about 350. Few, because inflating a prefix gives everything it holds: 4096
 * bytes of a mask that starts with empty slices inflate to hundreds of kilobytes (as much work as the whole file,
 * and as much garbage), 256 bytes to some tens.
 */
const GZIP_QUICK_HEADER_INPUTS = [256, 1024];

/**
 * gzipOutputLimit from fewer compressed bytes, or undefined when they do not give it (no header in them, a
 * stream error, a volume declared too large: gzipOutputLimit then decides and says why). Where it gives a limit
 * and the whole stream inflates within it, gzipOutputLimit would have given the same: its header bytes are the
 * same (a prefix's inflated bytes begin what a longer prefix inflates to), and its first 4096 bytes inflate
 * without error (the whole stream did) to less than its 16 MiB cap (deflate expands at most 1032-fold).
 */
export function quickGzipOutputLimit(bytes: Uint8Array, name: string): number | undefined {
  for (const input of GZIP_QUICK_HEADER_INPUTS) {
    let limit: number | undefined;
    try {
      const head = gunzipSync(bytes.subarray(0, input), { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: 1 << 24 });
      limit = declaredLimit(head, name);
    } catch {
      return undefined;
    }
    if (limit !== undefined) return limit;
    if (input >= bytes.length) return undefined; // the whole stream was looked at
  }
  return undefined;
}

/**
 * How far the fast path inflates a .nii.gz file, or undefined when it does not. A file no longer than the 4096 bytes
 * gzipOutputLimit inflates to find the header is inflated whole at once, within what its bytes can inflate to
 * (deflate expands at most 1032-fold: no more than gzipOutputLimit's own look inflates), and checked after
 * (fastOutputHolds): one inflating instead of two. A longer one within the header's limit from its first few
 * hundred bytes (quickGzipOutputLimit).
 */
function fastOutputCap(bytes: Uint8Array, name: string): number | undefined {
  if (bytes.length <= GZIP_HEADER_INPUT) return Math.min(MAX_NIFTI_BYTES, DEFLATE_MAX_RATIO * bytes.length + 1024);
  return quickGzipOutputLimit(bytes, name);
}

/**
 * Whether what the fast path inflated is what gzipOutputLimit and gunzipNifti give. A short stream inflated whole
 * without error is its own first 4096 bytes: gzipOutputLimit's limit is the one its header declares, and
 * gunzipNifti gives these bytes when they are within it, else refuses (as the old way then does, word for word).
 * A longer one was inflated within that limit already.
 */
function fastOutputHolds(bytes: Uint8Array, name: string, output: Uint8Array): boolean {
  if (bytes.length > GZIP_HEADER_INPUT) return true;
  try {
    const limit = declaredLimit(output, name);
    return limit === undefined || output.length <= limit;
  } catch {
    return false; // a volume declared too large: refused below
  }
}

/**
 * A .nii.gz file's bytes decompressed within the limit its header declares. Only a success comes from the fast
 * path: any failure is left to gzipOutputLimit and gunzipNifti, so every error is theirs, word for word.
 */
export function gunzipDeclared(bytes: Uint8Array, name: string): Uint8Array {
  const cap = fastOutputCap(bytes, name);
  if (cap !== undefined) {
    try {
      const output = gunzipNifti(bytes, name, cap);
      if (fastOutputHolds(bytes, name, output)) return output;
    } catch {
      // reported below, as it always was
    }
  }
  return gunzipNifti(bytes, name, gzipOutputLimit(bytes, name));
}

/**
 * gunzipDeclared with the fast path's inflating on the thread pool (the same zlib, options and bytes: the same
 * output). What does not succeed that way (a stream that fails, a header not found in the first bytes) goes the
 * synchronous way as before, which reports it: every error is the old one by construction.
 */
export async function gunzipDeclaredAsync(bytes: Uint8Array, name: string): Promise<Uint8Array> {
  const cap = fastOutputCap(bytes, name);
  if (cap !== undefined) {
    const output = await new Promise<Uint8Array | undefined>((resolve) => {
      gunzip(bytes, { maxOutputLength: cap, chunkSize: inflateChunkSize(bytes, cap) }, (error, inflated) => resolve(error ? undefined : inflated));
    }).catch(() => undefined); // (thrown at once: the synchronous way below says what it is)
    if (output && fastOutputHolds(bytes, name, output)) return output;
  }
  return gunzipNifti(bytes, name, gzipOutputLimit(bytes, name));
}

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** Deflate's largest compression ratio (258-byte matches coded in about 2 bits): no stream inflates more than this. */
const DEFLATE_MAX_RATIO = 1032;

/**
 * How much zlib should inflate into at once: the whole output when the gzip trailer's size (ISIZE, the size mod
 * 2^32) says how much that is, so the stream inflates into one buffer: a 9 MB mask in 2.5 ms instead of 20 ms in
 * zlib's default 16 KiB chunks, gathered and copied after. Bounded by what the compressed bytes can inflate to and
 * by the caller's cap, so a lying trailer cannot cause a large allocation.
 */
export function inflateChunkSize(compressed: Uint8Array, maxOutputBytes: number, expected?: number): number {
  const trailer = compressed.length >= 18 && isGzip(compressed)
    ? new DataView(compressed.buffer, compressed.byteOffset + compressed.length - 4, 4).getUint32(0, true) : undefined;
  const wanted = (expected ?? trailer ?? 0) + 1;
  return Math.max(64 * 1024, Math.min(wanted, maxOutputBytes + 1, DEFLATE_MAX_RATIO * compressed.length + 1024));
}

/** gunzip with a cap on the output, so a small file cannot expand into an allocation that exhausts memory. */
export function gunzipNifti(bytes: Uint8Array, name: string, maxOutputBytes = MAX_NIFTI_BYTES): Uint8Array {
  try {
    return gunzipSync(bytes, { maxOutputLength: maxOutputBytes, chunkSize: inflateChunkSize(bytes, maxOutputBytes) });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_BUFFER_TOO_LARGE') {
      throw new InputError(name, {}, `decompresses to more than ${describeBytes(maxOutputBytes)}; larger volumes are not supported`);
    }
    if (code === 'Z_BUF_ERROR') {
      throw new InputError(name, { byte: bytes.length }, 'gzip stream ends early (truncated file)');
    }
    throw new InputError(name, {}, `corrupt gzip stream (${message})`);
  }
}

function datatypeOf(header: NiftiHeader): Datatype {
  const datatype = DATATYPES.get(header.datatype);
  if (datatype) return datatype;
  const known = UNSUPPORTED_DATATYPES.get(header.datatype);
  const supported = [...DATATYPES.values()].map((d) => d.name).join(', ');
  throw headerError(header, fieldOffset(header.layout.datatype),
    `unsupported datatype ${header.datatype}${known ? ` (${known})` : ''}; supported: ${supported}`);
}

/** Checked from the header alone, before anything is allocated: a lying header must not cause a huge allocation. */
function checkDataSize(header: NiftiHeader, datatype: Datatype, dataBytes: number): void {
  const [nx, ny, nz] = header.dims;
  const needed = nx * ny * nz * datatype.bytes;
  const present = dataBytes - header.voxOffset;
  if (needed > present) {
    throw headerError(header, dataBytes, `truncated voxel data: ${nx}×${ny}×${nz} ${datatype.name} voxels need `
      + `${describeBytes(needed)} after vox_offset ${header.voxOffset}, the file has ${describeBytes(present)}`);
  }
}

export function describeBytes(count: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let value = count, unit = -1;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  const exact = `${count} byte${count === 1 ? '' : 's'}`;
  return unit < 0 ? exact : `${exact} (${value.toFixed(1)} ${units[unit]})`;
}

/** Stored values in host byte order: a view of `data` when it already is, else a copy. */
function decodeVoxels(data: Uint8Array, header: NiftiHeader, datatype: Datatype): VoxelValues {
  const [nx, ny, nz] = header.dims;
  const count = nx * ny * nz;
  const raw = data.subarray(header.voxOffset, header.voxOffset + count * datatype.bytes);
  const swap = datatype.bytes > 1 && header.littleEndian !== HOST_LITTLE_ENDIAN;
  let buffer: ArrayBufferLike = raw.buffer, offset = raw.byteOffset;
  if (swap || offset % datatype.bytes !== 0) { // typed arrays need aligned storage
    const copy = new Uint8Array(raw); // a copy: Buffer.slice would only be another view
    if (swap) reverseEach(copy, datatype.bytes);
    buffer = copy.buffer;
    offset = 0;
  }
  if (!datatype.view) return wideIntegers(new Uint32Array(buffer, offset, 2 * count), datatype.name === 'int64', header);
  const values = datatype.view(buffer, offset, count);
  if (datatype.float) checkFinite(values as Float32Array | Float64Array, header, datatype);
  return values;
}

/** Reverses the bytes of every `width`-byte element in place (`bytes` starts a fresh, aligned buffer). */
export function reverseEach(bytes: Uint8Array, width: number): void {
  // Whole-word shifts for 2 and 4 bytes are several times faster than moving single bytes.
  if (width === 2) {
    const words = new Uint16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
    for (let n = 0; n < words.length; n++) { const w = words[n]; words[n] = (w >>> 8) | ((w & 0xff) << 8); }
    return;
  }
  if (width === 4) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
    for (let n = 0; n < words.length; n++) {
      const w = words[n];
      words[n] = (w >>> 24) | ((w >>> 8) & 0xff00) | ((w & 0xff00) << 8) | (w << 24);
    }
    return;
  }
  for (let at = 0; at < bytes.length; at += width) {
    for (let lo = at, hi = at + width - 1; lo < hi; lo++, hi--) {
      const t = bytes[lo];
      bytes[lo] = bytes[hi];
      bytes[hi] = t;
    }
  }
}

/**
 * 64-bit integers as doubles, read as two 32-bit halves (much faster than BigInt). Values beyond ±2^53
 * would silently change, so they are refused.
 */
function wideIntegers(halves: Uint32Array, signed: boolean, header: NiftiHeader): Float64Array {
  const low = HOST_LITTLE_ENDIAN ? 0 : 1, high = 1 - low;
  const values = new Float64Array(halves.length / 2);
  for (let n = 0; n < values.length; n++) {
    const lo = halves[2 * n + low];
    let hi = halves[2 * n + high];
    if (signed) hi |= 0; // reinterpret as two's complement
    // |value| ≤ 2^53 exactly when hi lies in [-2^21, 2^21), or the value is 2^53 itself.
    if (hi < -0x200000 || hi > 0x200000 || (hi === 0x200000 && lo !== 0)) {
      const value = signed ? BigInt.asIntN(64, (BigInt(hi >>> 0) << 32n) | BigInt(lo)) : (BigInt(hi) << 32n) | BigInt(lo);
      throw headerError(header, header.voxOffset + 8 * n,
        `${signed ? 'int64' : 'uint64'} value ${value} at ${voxelName(header, n)} is beyond ±2^53 and cannot be held exactly`);
    }
    values[n] = hi * 0x100000000 + lo;
  }
  return values;
}

function checkFinite(values: Float32Array | Float64Array, header: NiftiHeader, datatype: Datatype, after = ''): void {
  for (let n = 0; n < values.length; n++) {
    const v = values[n];
    if (v - v !== 0) { // NaN and ±Infinity alike
      throw headerError(header, header.voxOffset + n * datatype.bytes, `${v} voxel value at ${voxelName(header, n)}${after}`);
    }
  }
}

function voxelName(header: NiftiHeader, index: number): string {
  const [nx, ny] = header.dims;
  return `voxel (${index % nx}, ${Math.floor(index / nx) % ny}, ${Math.floor(index / (nx * ny))})`;
}

/** Per the standard, scl_slope 0 means the values are unscaled; NaN, which some writers store, is read the same way. */
function scalingOf(header: NiftiHeader): { slope: number; inter: number } | null {
  const { sclSlope: slope, sclInter: inter, layout } = header;
  if (slope === 0 || Number.isNaN(slope)) return null;
  if (!Number.isFinite(slope)) throw headerError(header, fieldOffset(layout.sclSlope), `scl_slope is ${slope}`);
  if (!Number.isFinite(inter)) throw headerError(header, fieldOffset(layout.sclInter), `scl_inter is ${inter} while scl_slope is ${slope}`);
  return slope === 1 && inter === 0 ? null : { slope, inter };
}

function scaled(stored: VoxelValues, { slope, inter }: { slope: number; inter: number }, header: NiftiHeader, datatype: Datatype): Float64Array {
  const values = new Float64Array(stored.length);
  for (let n = 0; n < values.length; n++) values[n] = slope * stored[n] + inter;
  checkFinite(values, header, datatype, ' after scl_slope/scl_inter scaling'); // a huge slope can overflow
  return values;
}

function columnLengths(a: Float64Array): [number, number, number] {
  const length = (c: number) => Math.hypot(a[c], a[4 + c], a[8 + c]);
  return [length(0), length(1), length(2)];
}
