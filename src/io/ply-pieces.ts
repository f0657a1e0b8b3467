// Binary PLY bodies read straight from the file: files too large to read whole (over WHOLE_FILE_LIMIT, any
// size), and point clouds of any size when the native reader is there (their vertices then come from one
// native call, ply-vertices-native.ts). The body is read piece by piece with positioned reads and decoded
// straight into the positions and triangles, so no second copy of the file is ever held. Fixed-size records
// (the vertices, skipped elements) go in batches; records with lists (faces) through a window that carries a
// record cut by a piece's end over to the next piece. Errors name absolute byte offsets and record numbers,
// as the whole-file reader's do.
import { closeSync, openSync } from 'node:fs';

import { InputError } from '../core/errors.js';
import { badCoordinate, boundsAreExact, finishGeometry, firstInexactCoordinate, isExactCoordinate, plural, TriangleCollector } from './build.js';
import { computeBounds, type Bounds, type Coordinates, type Geometry } from './geometry.js';
import { readFully } from './input-file.js';
import type { PlyLayout } from './ply-layout.js';
import { hostIsLittleEndian, plainTriangleRecords, propertyOffsets, readScalar, readTriangleRun, storesFloat32, TRIANGLE_RECORD } from './ply-binary.js';
import { fixedRecordSize, PLY_TYPE_SIZE, PlyType, type PlyElement, type PlyHeader } from './ply-header.js';
import { nativeReader } from './native-reader.js';
import { readPlyVerticesNatively } from './ply-vertices-native.js';
import { PIECES_NOTE, pieceBytes, piecesForced, WHOLE_FILE_LIMIT } from './pieces.js';

/** Positioned reads of one open file, each piece into one reused buffer. */
class PieceSource {
  private window?: Uint8Array;
  constructor(readonly fd: number, readonly file: string, readonly size: number, private readonly piece: number) {}

  /** The reused piece buffer, made on first use: a point cloud read natively never needs one. */
  get buffer(): Uint8Array {
    this.window ??= new Uint8Array(Math.max(this.piece, 64));
    return this.window;
  }

  /** Exactly `length` bytes at `position` into buffer[at, at + length); false when the file ends first. */
  read(position: number, length: number, at = 0): boolean {
    return readFully(this.fd, this.buffer, at, length, position) === length;
  }
}

function truncated(file: string, size: number, element: PlyElement, record: number): never {
  throw new InputError(file, { byte: size }, `file is truncated: data ran out in ${element.name} record ${record} of ${element.count}`);
}

/** Reads a binary PLY of `size` bytes whose header was parsed from its first bytes; threads: the native reader's (--threads). */
export function readBinaryPlyInPieces(path: string, size: number, header: PlyHeader, layout: PlyLayout, threads?: number): Geometry {
  const fd = openSync(path, 'r');
  try {
    // A small file gets a window of its own size, not a whole piece.
    const source = new PieceSource(fd, path, size, Math.min(pieceBytes(), size));
    const le = header.encoding === 'binary_little_endian';
    let position = header.dataStart;
    let positions: Coordinates = new Float32Array(0);
    const found: { bounds?: Bounds } = {}; // the vertices' bounds, where reading them found them
    const collector = new TriangleCollector(layout.face?.count ?? 0);
    for (const element of header.elements) {
      if (element === layout.vertex) {
        positions = storesFloat32(element, layout) ? new Float32Array(3 * element.count) : new Float64Array(3 * element.count);
        position = readVertices(source, position, element, layout, le, positions, found, threads);
      } else if (element === layout.face) {
        const visit = (view: DataView, at: number, record: number, fileOffset: number): void =>
          readFace(view, at, record, fileOffset, layout, le, collector, source.file);
        position = plainTriangleRecords(element, layout, le)
          ? readTriangleRecords(source, position, element, layout, collector, visit, threads)
          : walkListRecords(source, position, element, le, visit);
      } else if (fixedRecordSize(element) >= 0) {
        const stride = fixedRecordSize(element);
        if (position + stride * element.count > size) truncated(path, size, element, Math.floor((size - position) / Math.max(1, stride)));
        position += stride * element.count;
      } else {
        position = walkListRecords(source, position, element, le, () => undefined);
      }
    }
    // Said only where the TypeScript reader alone would also have read in pieces: how the native reader
    // reads is no news to the user.
    const notes = size > WHOLE_FILE_LIMIT || piecesForced() ? [PIECES_NOTE] : [];
    const skipped = header.elements.filter((e) => e !== layout.vertex && e !== layout.face && e.count > 0);
    if (skipped.length > 0) notes.push(`skipped PLY elements: ${skipped.map((e) => `${e.name} (${e.count})`).join(', ')}`);
    if (layout.face && layout.face.count === 0) notes.push('PLY declares no faces: read as a point cloud');
    if (size > position) notes.push(`${plural(size - position, 'byte')} after the last element ignored`);
    return finishGeometry({
      positions,
      dims: layout.z < 0 ? 2 : 3,
      triangles: layout.face ? collector.finish() : undefined,
      polygonsTriangulated: collector.polygons,
      format: 'ply',
      notes,
      bounds: found.bounds,
      threads,
    });
  } finally {
    closeSync(fd);
  }
}

/** Vertex records (fixed size) in batches of whole records; returns the position after them. */
function readVertices(source: PieceSource, start: number, element: PlyElement, layout: PlyLayout, le: boolean,
  positions: Coordinates, found: { bounds?: Bounds }, threads: number | undefined): number {
  const stride = fixedRecordSize(element);
  if (stride < 0) return walkListRecords(source, start, element, le, (view, at, v, fileOffset) => readListVertex(view, at, v, fileOffset, layout, le, positions, source.file));
  const native = nativeReader();
  if (native) {
    found.bounds = readPlyVerticesNatively(native, source.file, start, element, layout, le, positions, threads);
    return start + stride * element.count;
  }
  const offsets = propertyOffsets(element);
  const types = [layout.x, layout.y, layout.z].map((p) => (p >= 0 ? element.properties[p].type : PlyType.Float32));
  const at = [layout.x, layout.y, layout.z].map((p) => (p >= 0 ? offsets[p] : -1));
  const perPiece = Math.max(1, Math.floor(source.buffer.length / stride));
  const view = new DataView(source.buffer.buffer, source.buffer.byteOffset, source.buffer.byteLength);
  // Little-endian float32 or float64 x, y, z at aligned offsets: read through a typed view of the piece.
  const width = types.every((t) => t === PlyType.Float32) ? 4 : types.every((t) => t === PlyType.Float64) ? 8 : 0;
  const typed = le && hostIsLittleEndian && layout.z >= 0 && width > 0 && stride % width === 0 && at.every((a) => a % width === 0)
    ? (width === 4 ? new Float32Array(source.buffer.buffer, source.buffer.byteOffset, source.buffer.byteLength >> 2)
      : new Float64Array(source.buffer.buffer, source.buffer.byteOffset, source.buffer.byteLength >> 3))
    : null;
  if (typed && stride === 3 * width && at[0] === 0 && at[1] === width && at[2] === 2 * width) {
    return readPackedVertices(source, start, element, positions, stride, found);
  }
  let position = start;
  for (let first = 0; first < element.count; first += perPiece) {
    const records = Math.min(perPiece, element.count - first);
    if (!source.read(position, records * stride)) truncated(source.file, source.size, element, first);
    if (typed) {
      const step = stride / width, xi = at[0] / width, yi = at[1] / width, zi = at[2] / width;
      for (let r = 0, s = 0; r < records; r++, s += step) {
        const x = typed[s + xi], y = typed[s + yi], z = typed[s + zi], v = first + r;
        if (!isExactCoordinate(x) || !isExactCoordinate(y) || !isExactCoordinate(z)) {
          throw badCoordinate(source.file, { byte: position + r * stride }, !isExactCoordinate(x) ? x : !isExactCoordinate(y) ? y : z, v);
        }
        positions[3 * v] = x;
        positions[3 * v + 1] = y;
        positions[3 * v + 2] = z;
      }
      position += records * stride;
      continue;
    }
    for (let r = 0, base = 0; r < records; r++, base += stride) {
      const v = first + r;
      for (let k = 0; k < 3; k++) {
        const value = at[k] >= 0 ? readScalar(view, base + at[k], types[k], le) : 0;
        if (!isExactCoordinate(value)) throw badCoordinate(source.file, { byte: position + base }, value, v);
        positions[3 * v + k] = value;
      }
    }
    position += records * stride;
  }
  return position;
}

/**
 * Packed little-endian x, y, z of the positions' own type (the common large point cloud): the records are
 * read straight into the positions, a piece at a time, with no decoding; then one pass over them finds their
 * bounds, and through them the coordinate check.
 */
function readPackedVertices(source: PieceSource, start: number, element: PlyElement, positions: Coordinates, stride: number,
  found: { bounds?: Bounds }): number {
  const bytes = new Uint8Array(positions.buffer, positions.byteOffset, positions.byteLength);
  const piece = source.buffer.length;
  for (let done = 0; done < bytes.length; done += piece) {
    const length = Math.min(piece, bytes.length - done);
    const got = readFully(source.fd, bytes, done, length, start + done);
    if (got < length) truncated(source.file, source.size, element, Math.floor((done + got) / stride));
  }
  found.bounds = computeBounds(positions);
  if (!boundsAreExact(found.bounds)) {
    const bad = firstInexactCoordinate(positions);
    throw badCoordinate(source.file, { byte: start + Math.floor(bad / 3) * stride }, positions[bad], Math.floor(bad / 3));
  }
  return start + bytes.length;
}

/**
 * Walks the records of an element with list properties through a window over the file: each record is
 * handed to `visit` (its DataView, its offset in it, its number) once it lies wholly in the window; a record
 * cut by the window's end is moved to the window's start and the rest read after it. Returns the position
 * after the element.
 */
function walkListRecords(source: PieceSource, start: number, element: PlyElement, le: boolean,
  visit: (view: DataView, at: number, record: number, fileOffset: number) => void, firstRecord = 0): number {
  const buffer = source.buffer;
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let windowStart = start;   // file position of buffer[0]
  let filled = 0;            // valid bytes in the buffer
  let at = 0;                // the next record's offset in the buffer
  const refill = (): boolean => {
    buffer.copyWithin(0, at, filled);
    filled -= at;
    windowStart += at;
    at = 0;
    const want = Math.min(buffer.length - filled, source.size - (windowStart + filled));
    if (want <= 0) return false;
    if (!source.read(windowStart + filled, want, filled)) return false;
    filled += want;
    return true;
  };
  for (let record = firstRecord; record < element.count; record++) {
    let length = recordLength(view, at, filled, element, le);
    while (length < 0) {
      if (at === 0 && filled === buffer.length) {
        throw new InputError(source.file, { byte: windowStart }, `${element.name} record ${record} is longer than a read piece (${buffer.length} bytes)`);
      }
      if (!refill()) truncated(source.file, source.size, element, record);
      length = recordLength(view, at, filled, element, le);
    }
    if (length === Infinity) {
      throw new InputError(source.file, { byte: windowStart + at }, `negative list length in ${element.name} record ${record}`);
    }
    visit(view, at, record, windowStart + at);
    at += length;
  }
  return windowStart + at;
}

/**
 * Face records of the plain triangle layout (plainTriangleRecords) read a piece at a time as 13-byte triangles,
 * as the whole-file reader reads them: the general walk decodes each record's length and every value through
 * its type. At the first record that is not a plain triangle with its indices in range (a polygon, a negative
 * or too large index, the file's end) the general walk takes over from that record, and says what is wrong where.
 */
function readTriangleRecords(source: PieceSource, start: number, element: PlyElement, layout: PlyLayout,
  collector: TriangleCollector, visit: (view: DataView, at: number, record: number, fileOffset: number) => void, threads?: number): number {
  const vertexCount = layout.vertex.count;
  const buffer = source.buffer;
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const perPiece = Math.max(1, Math.floor(buffer.length / TRIANGLE_RECORD));
  let position = start;
  for (let first = 0; first < element.count;) {
    const records = Math.min(perPiece, element.count - first);
    if (!source.read(position, records * TRIANGLE_RECORD)) return walkListRecords(source, position, element, true, visit, first);
    const read = readTriangleRun(buffer, view, 0, records, vertexCount, collector, threads);
    if (read < records) return walkListRecords(source, position + read * TRIANGLE_RECORD, element, true, visit, first + read);
    position += records * TRIANGLE_RECORD;
    first += records;
  }
  return position;
}

/** A record's length at `at` when it lies wholly before `end`; -1 when it does not; Infinity for a negative list length. */
function recordLength(view: DataView, at: number, end: number, element: PlyElement, le: boolean): number {
  let offset = at;
  for (const property of element.properties) {
    if (property.countType === undefined) {
      offset += PLY_TYPE_SIZE[property.type];
      continue;
    }
    const countSize = PLY_TYPE_SIZE[property.countType];
    if (offset + countSize > end) return -1;
    const items = readScalar(view, offset, property.countType, le);
    if (items < 0) return Infinity;
    offset += countSize + items * PLY_TYPE_SIZE[property.type];
  }
  return offset > end ? -1 : offset - at;
}

/** Rare: one vertex record with list properties, wholly in the window: its x, y, z checked and stored. */
function readListVertex(view: DataView, at: number, v: number, fileOffset: number, layout: PlyLayout, le: boolean,
  positions: Coordinates, file: string): void {
  let offset = at;
  layout.vertex.properties.forEach((property, p) => {
    if (property.countType !== undefined) {
      offset += PLY_TYPE_SIZE[property.countType] + readScalar(view, offset, property.countType, le) * PLY_TYPE_SIZE[property.type];
      return;
    }
    if (p === layout.x || p === layout.y || p === layout.z) {
      const value = readScalar(view, offset, property.type, le);
      if (!isExactCoordinate(value)) throw badCoordinate(file, { byte: fileOffset }, value, v);
      positions[3 * v + (p === layout.x ? 0 : p === layout.y ? 1 : 2)] = value;
    }
    offset += PLY_TYPE_SIZE[property.type];
  });
}

/** One face record, wholly in the window: its polygon, fan-triangulated, with its indices checked. */
function readFace(view: DataView, at: number, record: number, fileOffset: number, layout: PlyLayout, le: boolean,
  collector: TriangleCollector, file: string): void {
  const props = layout.face!.properties;
  const vertexCount = layout.vertex.count;
  let offset = at;
  for (let p = 0; p < props.length; p++) {
    const property = props[p];
    if (property.countType === undefined) {
      offset += PLY_TYPE_SIZE[property.type];
      continue;
    }
    const items = readScalar(view, offset, property.countType, le);
    if (p === layout.faceIndices && items < 3) {
      throw new InputError(file, { byte: fileOffset + offset - at }, `face ${record} has ${items} vertices (need at least 3)`);
    }
    offset += PLY_TYPE_SIZE[property.countType];
    if (p !== layout.faceIndices) {
      offset += items * PLY_TYPE_SIZE[property.type];
      continue;
    }
    collector.beginPolygon();
    for (let k = 0; k < items; k++, offset += PLY_TYPE_SIZE[property.type]) {
      const index = readScalar(view, offset, property.type, le);
      if (index < 0 || index >= vertexCount) {
        throw new InputError(file, { byte: fileOffset + offset - at }, `face ${record} uses vertex index ${index}, outside 0..${vertexCount - 1}`);
      }
      collector.addCorner(index);
    }
    collector.endPolygon();
  }
}
