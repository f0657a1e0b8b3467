// A binary PLY's vertex records (fixed size) through the native reader: one call reads, decodes and
// checks them on every core straight from the file into the positions, and gives their bounds. Problems
// come back as the first bad record and its byte offset, and become the same errors the TypeScript
// readers raise (ply-binary.ts, ply-pieces.ts).
import { InputError, NativeError } from '../core/errors.js';
import { XHD_READ_BAD_VALUE, XHD_READ_OK, XHD_READ_SYSTEM_ERROR, XHD_READ_TRUNCATED, type RawReadResult } from '../native/abi.js';
import { badCoordinate } from './build.js';
import type { Bounds, Coordinates } from './geometry.js';
import { asInputError, systemError } from './input-file.js';
import { nativePieceBytes, type NativeReader } from './native-reader.js';
import type { PlyLayout } from './ply-layout.js';
import { hostIsLittleEndian, propertyOffsets } from './ply-binary.js';
import { fixedRecordSize, PlyType, type PlyElement } from './ply-header.js';
import { readerThreads } from './reader-threads.js';

/** A layout's scale and add for values used as stored (xhd_ply_vertex_layout: scale 0). */
export const UNSCALED = { scale: [0, 0, 0], add: [0, 0, 0] };

/**
 * Reads `element` (the vertices, records of `stride` bytes from byte `start`) of the file at `path` into
 * `positions`, a Float32Array when x, y, z are all float32 and a Float64Array otherwise; returns their bounds.
 */
export function readPlyVerticesNatively(reader: NativeReader, path: string, start: number, element: PlyElement,
  layout: PlyLayout, littleEndian: boolean, positions: Coordinates, threads?: number): Bounds {
  const offsets = propertyOffsets(element);
  const slots = [layout.x, layout.y, layout.z];
  const request = {
    body_offset: start,
    count: element.count,
    piece_bytes: nativePieceBytes(),
    stride: fixedRecordSize(element),
    swap_bytes: littleEndian === hostIsLittleEndian ? 0 : 1,
    offset: slots.map((p) => (p >= 0 ? offsets[p] : -1)),
    type: slots.map((p) => (p >= 0 ? element.properties[p].type : PlyType.Float32)),
    output: positions instanceof Float32Array ? PlyType.Float32 : PlyType.Float64,
    threads: readerThreads(threads),
    ...UNSCALED,
  };
  const result = {} as RawReadResult;
  const status = reader.readPlyVertices(path, request, positions, result) as number;
  if (status !== 0) throw new NativeError(`reading ${path}: ${reader.lastError()}`);
  return readBounds(path, element.name, element.count, result);
}

/**
 * The bounds a native read of a PLY element's records found, or the InputError its problem is: the same errors
 * the TypeScript readers raise (a truncated file, a bad coordinate with its record and byte, a system error).
 */
export function readBounds(path: string, elementName: string, elementCount: number, result: RawReadResult): Bounds {
  const record = Number(result.record), byte = Number(result.byte);
  switch (result.kind) {
    case XHD_READ_OK:
      return { min: [result.min[0], result.min[1], result.min[2]], max: [result.max[0], result.max[1], result.max[2]] };
    case XHD_READ_TRUNCATED:
      throw new InputError(path, { byte }, `file is truncated: data ran out in ${elementName} record ${record} of ${elementCount}`);
    case XHD_READ_BAD_VALUE:
      throw badCoordinate(path, { byte }, result.value, record);
    case XHD_READ_SYSTEM_ERROR:
      throw asInputError(path, systemError(result.error_number), 'a geometry file');
    default:
      throw new NativeError(`reading ${path}: unknown result kind ${result.kind}`);
  }
}
