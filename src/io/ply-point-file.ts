// A binary PLY point cloud described for xhd_points_compare_files, which reads its vertex records in ranges
// straight from the file: the header parsed, the records' place and layout, and nothing else read.
import { fileSize, readPrefix } from './input-file.js';
import { hostIsLittleEndian, propertyOffsets, storesFloat32 } from './ply-binary.js';
import { fixedRecordSize, parsePlyHeader, PlyType } from './ply-header.js';
import { checkDeclaredSizes, findLayout } from './ply.js';
import { UNSCALED } from './ply-vertices-native.js';

/** Bytes read to find the header: what the readers sniff (read.ts). */
const HEADER_PROBE = 1 << 20;

export interface PlyPointFile {
  path: string;
  format: 'ply';
  /** Vertex records. */
  count: number;
  dims: 2 | 3;
  /** x, y, z all float32: read as floats, their own truth; otherwise every type widens exactly to double. */
  floats: boolean;
  /** Whether the file declares faces too (compared as points only with --vertices-only). */
  faces: boolean;
  /** The xhd_ply_vertex_layout of its vertex records. */
  layout: RecordLayout;
}

/** An xhd_ply_vertex_layout: fixed-size records, where x, y, z lie in them, and how they become coordinates. */
export interface RecordLayout {
  body_offset: number; count: number; piece_bytes: number; stride: number; swap_bytes: number;
  offset: number[]; type: number[]; output: number; threads: number; scale: number[]; add: number[];
}

/**
 * The file as a streamable point set, or null where it is not one: not a binary PLY, its vertex records not of
 * a fixed size, or an element of records of varying size before them. A header that lies about the file's
 * size is an InputError, as when the file is read whole.
 */
export function plyPointFile(path: string, threads = 0): PlyPointFile | null {
  const size = fileSize(path);
  if (size === undefined) return null;
  const prefix = readPrefix(path, Math.min(size, HEADER_PROBE));
  if (!isPlyMagic(prefix)) return null;
  let header;
  try {
    header = parsePlyHeader(prefix, path);
  } catch {
    return null; // the whole-file reader says what is wrong with it
  }
  if (header.encoding === 'ascii') return null;
  const layout = findLayout(header, path);
  checkDeclaredSizes(header, size, path);
  let start = header.dataStart;
  for (const element of header.elements) {
    if (element === layout.vertex) break;
    const stride = fixedRecordSize(element);
    if (stride < 0) return null;
    start += stride * element.count;
  }
  const vertex = layout.vertex;
  const stride = fixedRecordSize(vertex);
  if (stride < 0) return null;
  const offsets = propertyOffsets(vertex);
  const slots = [layout.x, layout.y, layout.z];
  const floats = storesFloat32(vertex, layout);
  return {
    path,
    format: 'ply',
    count: vertex.count,
    dims: layout.z < 0 ? 2 : 3,
    floats,
    faces: (layout.face?.count ?? 0) > 0,
    layout: {
      body_offset: start,
      count: vertex.count,
      piece_bytes: 0,
      stride,
      swap_bytes: (header.encoding === 'binary_little_endian') === hostIsLittleEndian ? 0 : 1,
      offset: slots.map((p) => (p >= 0 ? offsets[p] : -1)),
      type: slots.map((p) => (p >= 0 ? vertex.properties[p].type : PlyType.Float32)),
      output: floats ? PlyType.Float32 : PlyType.Float64,
      threads,
      ...UNSCALED,
    },
  };
}

function isPlyMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x70 && bytes[1] === 0x6c && bytes[2] === 0x79 && (bytes[3] === 0x0a || bytes[3] === 0x0d);
}
