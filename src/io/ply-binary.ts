// Binary PLY bodies (little or big endian). Coordinates keep the values the file stores: a Float32Array
// when x, y and z are all float32 properties (those values are the file's own truth), else a Float64Array,
// which holds float64 and every integer type exactly (int32/uint32 need it; int8..uint16 go there too, so
// the rule is simply "all float32 or not"). Vertices stored as float32 x,y,z or float64 x,y,z little endian
// take a typed-array fast path (no copy at all when the file buffer is aligned for it and holds mostly
// packed vertices); everything else goes through a DataView.
import { InputError } from '../core/errors.js';
import { badCoordinate, boundsAreExact, firstInexactCoordinate, isExactCoordinate, TriangleCollector } from './build.js';
import { computeBounds, type Bounds, type Coordinates } from './geometry.js';
import { nativeReader } from './native-reader.js';
import type { PlyBody, PlyLayout } from './ply-layout.js';
import { fixedRecordSize, PLY_TYPE_SIZE, PlyType, type PlyElement, type PlyHeader } from './ply-header.js';
import { nativeTriangleRun, readTriangleRecordsNatively } from './ply-triangles-native.js';

/** One scalar of any PLY type at `offset` (shared with the pieced reader, ply-pieces.ts). */
export function readScalar(view: DataView, offset: number, type: PlyType, littleEndian: boolean): number {
  switch (type) {
    case PlyType.Int8: return view.getInt8(offset);
    case PlyType.Uint8: return view.getUint8(offset);
    case PlyType.Int16: return view.getInt16(offset, littleEndian);
    case PlyType.Uint16: return view.getUint16(offset, littleEndian);
    case PlyType.Int32: return view.getInt32(offset, littleEndian);
    case PlyType.Uint32: return view.getUint32(offset, littleEndian);
    case PlyType.Float32: return view.getFloat32(offset, littleEndian);
    case PlyType.Float64: return view.getFloat64(offset, littleEndian);
  }
}

/** Walks a binary body element by element; `offset` is an absolute byte offset into the file. */
class BinaryBodyReader {
  offset: number;
  readonly view: DataView;
  readonly littleEndian: boolean;
  /** Bounds of the vertices when the fast path computed them. */
  bounds?: Bounds;

  constructor(readonly bytes: Uint8Array, readonly file: string, header: PlyHeader, private readonly threads?: number) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.littleEndian = header.encoding === 'binary_little_endian';
    this.offset = header.dataStart;
  }

  truncated(element: PlyElement, record: number): never {
    throw new InputError(this.file, { byte: this.bytes.length },
      `file is truncated: data ran out in ${element.name} record ${record} of ${element.count}`);
  }

  /** Moves past one record of an element that has list properties. */
  skipListRecord(element: PlyElement, record: number): void {
    let offset = this.offset;
    const end = this.bytes.length;
    for (const property of element.properties) {
      if (property.countType === undefined) {
        offset += PLY_TYPE_SIZE[property.type];
        continue;
      }
      const countSize = PLY_TYPE_SIZE[property.countType];
      if (offset + countSize > end) this.truncated(element, record);
      const items = readScalar(this.view, offset, property.countType, this.littleEndian);
      if (items < 0) throw new InputError(this.file, { byte: offset }, `negative list length ${items} in ${element.name} record ${record}`);
      offset += countSize + items * PLY_TYPE_SIZE[property.type];
    }
    if (offset > end) this.truncated(element, record);
    this.offset = offset;
  }

  skipElement(element: PlyElement): void {
    const stride = fixedRecordSize(element);
    if (stride >= 0) {
      // Sizes of fixed-size elements were checked against the file before reading began.
      this.offset += stride * element.count;
      return;
    }
    for (let r = 0; r < element.count; r++) this.skipListRecord(element, r);
  }

  readVertices(layout: PlyLayout): Coordinates {
    const element = layout.vertex;
    const count = element.count;
    const stride = fixedRecordSize(element);
    const start = this.offset;
    if (stride < 0) return this.readVerticesWithLists(layout);
    if (start + stride * count > this.bytes.length) this.truncated(element, 0);
    const offsets = propertyOffsets(element);
    const xType = element.properties[layout.x].type, yType = element.properties[layout.y].type;
    const zType = layout.z >= 0 ? element.properties[layout.z].type : PlyType.Float32;
    const xOff = offsets[layout.x], yOff = offsets[layout.y], zOff = layout.z >= 0 ? offsets[layout.z] : -1;
    this.offset = start + stride * count;

    const float32 = storesFloat32(element, layout);
    if (this.littleEndian && layout.z >= 0 && hostIsLittleEndian) {
      const fast = float32 ? this.sameTypeFast(Float32Array, start, count, stride, xOff, yOff, zOff)
        : storesFloat64(element, layout) ? this.sameTypeFast(Float64Array, start, count, stride, xOff, yOff, zOff) : undefined;
      if (fast) return this.checkedFast(fast, start, stride);
    }
    const positions = float32 ? new Float32Array(count * 3) : new Float64Array(count * 3);
    const view = this.view, le = this.littleEndian;
    for (let v = 0, base = start; v < count; v++, base += stride) {
      const x = readScalar(view, base + xOff, xType, le);
      const y = readScalar(view, base + yOff, yType, le);
      const z = zOff >= 0 ? readScalar(view, base + zOff, zType, le) : 0;
      if (!isExactCoordinate(x) || !isExactCoordinate(y) || !isExactCoordinate(z)) {
        const value = !isExactCoordinate(x) ? x : !isExactCoordinate(y) ? y : z;
        throw badCoordinate(this.file, { byte: base }, value, v);
      }
      positions[3 * v] = x;
      positions[3 * v + 1] = y;
      positions[3 * v + 2] = z;
    }
    return positions;
  }

  /** Fast-path positions after one pass that gives their bounds and, through them, the coordinate check. */
  private checkedFast(positions: Coordinates, start: number, stride: number): Coordinates {
    const bounds = computeBounds(positions); // NaN and ±Infinity reach a bound
    if (positions.length > 0 && !boundsAreExact(bounds)) {
      const bad = firstInexactCoordinate(positions);
      const vertex = Math.floor(bad / 3);
      throw badCoordinate(this.file, { byte: start + vertex * stride }, positions[bad], vertex);
    }
    this.bounds = bounds;
    return positions;
  }

  /**
   * The coordinates as a typed array of the file's own type (float32 or float64, `Kind`) when the layout
   * allows it (stride and offsets multiples of the type's width); undefined otherwise. Packed xyz is a view
   * of the file buffer when aligned and mostly vertices (so keeping the buffer alive costs little), else one
   * copy; other layouts are gathered from a view of the records, copied once first when the body does not
   * start aligned in the buffer.
   */
  private sameTypeFast<T extends Float32Array | Float64Array>(Kind: { new(buffer: ArrayBufferLike, offset: number, length: number): T; new(length: number): T; BYTES_PER_ELEMENT: number },
    start: number, count: number, stride: number, xOff: number, yOff: number, zOff: number): T | undefined {
    const width = Kind.BYTES_PER_ELEMENT;
    if (stride % width !== 0 || xOff % width !== 0 || yOff % width !== 0 || zOff % width !== 0) return undefined;
    const byteLength = stride * count;
    let buffer: ArrayBufferLike = this.bytes.buffer, absolute = this.bytes.byteOffset + start;
    const packed = stride === 3 * width && xOff === 0 && yOff === width && zOff === 2 * width;
    if (packed && absolute % width === 0 && 2 * byteLength >= this.bytes.byteLength) return new Kind(buffer, absolute, count * 3);
    if (packed || absolute % width !== 0) {
      const copy = new Uint8Array(byteLength);
      copy.set(this.bytes.subarray(start, start + byteLength));
      if (packed) return new Kind(copy.buffer, 0, count * 3);
      buffer = copy.buffer;
      absolute = 0;
    }
    const source = new Kind(buffer, absolute, byteLength / width);
    const positions = new Kind(count * 3);
    const step = stride / width, xi = xOff / width, yi = yOff / width, zi = zOff / width;
    for (let v = 0, s = 0; v < count; v++, s += step) {
      positions[3 * v] = source[s + xi];
      positions[3 * v + 1] = source[s + yi];
      positions[3 * v + 2] = source[s + zi];
    }
    return positions;
  }

  /** Rare: a vertex element that also carries list properties, read record by record. */
  private readVerticesWithLists(layout: PlyLayout): Coordinates {
    const element = layout.vertex;
    const positions = storesFloat32(element, layout) ? new Float32Array(element.count * 3) : new Float64Array(element.count * 3);
    const props = element.properties;
    for (let v = 0; v < element.count; v++) {
      const recordStart = this.offset;
      // Scalars after a list move with the list's length, so offsets are tracked record by record.
      let offset = recordStart;
      for (let p = 0; p < props.length; p++) {
        const property = props[p];
        if (property.countType === undefined) {
          if (offset + PLY_TYPE_SIZE[property.type] > this.bytes.length) this.truncated(element, v);
          if (p === layout.x || p === layout.y || p === layout.z) {
            const value = readScalar(this.view, offset, property.type, this.littleEndian);
            if (!isExactCoordinate(value)) throw badCoordinate(this.file, { byte: recordStart }, value, v);
            positions[3 * v + (p === layout.x ? 0 : p === layout.y ? 1 : 2)] = value;
          }
          offset += PLY_TYPE_SIZE[property.type];
        } else {
          if (offset + PLY_TYPE_SIZE[property.countType] > this.bytes.length) this.truncated(element, v);
          const items = readScalar(this.view, offset, property.countType, this.littleEndian);
          offset += PLY_TYPE_SIZE[property.countType] + Math.max(0, items) * PLY_TYPE_SIZE[property.type];
        }
      }
      if (offset > this.bytes.length) this.truncated(element, v);
      this.offset = offset;
    }
    return positions;
  }

  readFaces(layout: PlyLayout, collector: TriangleCollector): void {
    const element = layout.face!;
    const vertexCount = layout.vertex.count;
    const props = element.properties;
    const view = this.view, le = this.littleEndian, end = this.bytes.length;
    const indexProperty = props[layout.faceIndices];
    const countType = indexProperty.countType!, countSize = PLY_TYPE_SIZE[countType];
    const itemType = indexProperty.type, itemSize = PLY_TYPE_SIZE[itemType];
    const plain = plainTriangleRecords(element, layout, le) ? this.readTriangleRecords(vertexCount, element.count, collector) : 0;
    for (let f = plain; f < element.count; f++) {
      let offset = this.offset;
      for (let p = 0; p < props.length; p++) {
        const property = props[p];
        if (property.countType === undefined) {
          offset += PLY_TYPE_SIZE[property.type];
          continue;
        }
        if (offset + PLY_TYPE_SIZE[property.countType] > end) this.truncated(element, f);
        if (p !== layout.faceIndices) {
          const items = readScalar(view, offset, property.countType, le);
          offset += PLY_TYPE_SIZE[property.countType] + Math.max(0, items) * PLY_TYPE_SIZE[property.type];
          continue;
        }
        const corners = readScalar(view, offset, countType, le);
        if (corners < 3) throw new InputError(this.file, { byte: offset }, `face ${f} has ${corners} vertices (need at least 3)`);
        offset += countSize;
        if (offset + corners * itemSize > end) this.truncated(element, f);
        collector.beginPolygon();
        for (let k = 0; k < corners; k++, offset += itemSize) {
          const index = readScalar(view, offset, itemType, le);
          if (index < 0 || index >= vertexCount) {
            throw new InputError(this.file, { byte: offset }, `face ${f} uses vertex index ${index}, outside 0..${vertexCount - 1}`);
          }
          collector.addCorner(index);
        }
        collector.endPolygon();
      }
      if (offset > end) this.truncated(element, f);
      this.offset = offset;
    }
  }

  /**
   * Faces of the plain triangle layout (plainTriangleRecords) from the current offset, while each is a triangle
   * with its indices in range and wholly in the buffer: how many were read. The general loop goes on from the
   * first that is not, and says what is wrong where. Faster than that loop's decoding of every value through
   * its type: a 7.5M-triangle binary PLY read in 0.31-0.33 s instead of 0.53-0.67 s on the development VM.
   */
  private readTriangleRecords(vertexCount: number, count: number, collector: TriangleCollector): number {
    const end = Math.min(count, Math.floor((this.bytes.length - this.offset) / TRIANGLE_RECORD));
    const f = readTriangleRun(this.bytes, this.view, this.offset, end, vertexCount, collector, this.threads);
    this.offset += f * TRIANGLE_RECORD;
    return f;
  }
}

/**
 * Up to `records` plain triangle records from bytes[at] (view: a DataView of the same bytes), while each is a
 * triangle whose indices are below vertexCount: how many were added to the collector. The whole-file reader
 * and the reader in pieces both go through here. A large run goes to the native reader when it is there
 * (ply-triangles-native.ts; threads: the run's --threads), which reads the same prefix on every core: the
 * loop below took 160 ms of a 7.5M-triangle file's read on the 2-core development VM.
 */
export function readTriangleRun(bytes: Uint8Array, view: DataView, at: number, records: number, vertexCount: number,
  collector: TriangleCollector, threads?: number): number {
  const native = nativeTriangleRun(records, vertexCount) ? nativeReader() : undefined;
  if (native) {
    return readTriangleRecordsNatively(native, bytes.subarray(at, at + records * TRIANGLE_RECORD), records, vertexCount, collector, threads);
  }
  let r = 0;
  for (let offset = at; r < records; r++, offset += TRIANGLE_RECORD) {
    // Unsigned reads: a negative int32 index reads as 2^31 or more, beyond any vertex count.
    const a = view.getUint32(offset + 1, true), b = view.getUint32(offset + 5, true), c = view.getUint32(offset + 9, true);
    if (bytes[offset] !== 3 || a >= vertexCount || b >= vertexCount || c >= vertexCount) break;
    collector.addTriangle(a, b, c);
  }
  return r;
}

/** A triangle record of the commonest face layout: `property list uchar int|uint vertex_indices` alone, little-endian. */
export const TRIANGLE_RECORD = 13;

/** Whether the face element has that layout, whose records are 13 bytes while every face is a triangle. */
export function plainTriangleRecords(element: PlyElement, layout: PlyLayout, le: boolean): boolean {
  const [only] = element.properties;
  return le && element.properties.length === 1 && layout.faceIndices === 0 && only.countType === PlyType.Uint8 &&
    (only.type === PlyType.Int32 || only.type === PlyType.Uint32);
}

export const hostIsLittleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** True when x, y and (for 3D data) z are all float64 properties (the second fast path). */
function storesFloat64(element: PlyElement, layout: PlyLayout): boolean {
  const props = element.properties;
  return props[layout.x].type === PlyType.Float64 && props[layout.y].type === PlyType.Float64
    && (layout.z < 0 || props[layout.z].type === PlyType.Float64);
}

/** True when x, y and (for 3D data) z are all float32 properties: the positions are then a Float32Array. */
export function storesFloat32(element: PlyElement, layout: PlyLayout): boolean {
  const props = element.properties;
  return props[layout.x].type === PlyType.Float32 && props[layout.y].type === PlyType.Float32
    && (layout.z < 0 || props[layout.z].type === PlyType.Float32);
}

/** Byte offset of each scalar property within a fixed-size record (lists get -1). */
export function propertyOffsets(element: PlyElement): number[] {
  const offsets: number[] = [];
  let offset = 0;
  for (const property of element.properties) {
    offsets.push(property.countType === undefined ? offset : -1);
    offset += PLY_TYPE_SIZE[property.countType ?? property.type];
  }
  return offsets;
}

/** threads: the native reader's, for the triangle records (--threads; unset: every core). */
export function readBinaryPlyBody(bytes: Uint8Array, file: string, header: PlyHeader, layout: PlyLayout, threads?: number): PlyBody {
  const reader = new BinaryBodyReader(bytes, file, header, threads);
  let positions: Coordinates = new Float32Array(0);
  const collector = new TriangleCollector(layout.face?.count ?? 0);
  for (const element of header.elements) {
    if (element === layout.vertex) positions = reader.readVertices(layout);
    else if (element === layout.face) reader.readFaces(layout, collector);
    else reader.skipElement(element);
  }
  return {
    positions,
    triangles: layout.face ? collector.finish() : undefined,
    polygonsTriangulated: collector.polygons,
    trailingBytes: bytes.length - reader.offset,
    notes: [],
    bounds: reader.bounds,
  };
}
