// PLY reader: header, then the body in whichever of the three encodings it declares.
import { InputError } from '../core/errors.js';
import { finishGeometry, plural } from './build.js';
import type { Bounds, Coordinates, Geometry } from './geometry.js';
import { AsciiScanner } from './ascii-numbers.js';
import { withLinePieces } from './line-pieces.js';
import { readAsciiPlyBody, readAsciiPlyRecords } from './ply-ascii.js';
import { readBinaryPlyBody } from './ply-binary.js';
import { PIECES_NOTE } from './pieces.js';
import { readBinaryPlyInPieces } from './ply-pieces.js';
import { fixedRecordSize, isIntegerType, minimumBinaryRecordSize, parsePlyHeader, type PlyElement, type PlyHeader } from './ply-header.js';
import type { PlyBody, PlyLayout } from './ply-layout.js';


/** threads: the native reader's (--threads; unset: every core). */
export function parsePly(bytes: Uint8Array, file: string, threads?: number): Geometry {
  const header = parsePlyHeader(bytes, file);
  const layout = findLayout(header, file);
  checkDeclaredSizes(header, bytes.length, file);

  const body = header.encoding === 'ascii'
    ? readAsciiPlyBody(bytes, file, header, layout)
    : readBinaryPlyBody(bytes, file, header, layout, threads);
  return plyGeometry(header, layout, body, threads);
}

/** The Geometry of a body read by either reader, with notes on what was skipped. */
function plyGeometry(header: PlyHeader, layout: PlyLayout, body: PlyBody, threads?: number): Geometry {
  const notes = [...body.notes];
  const skipped = header.elements.filter((e) => e !== layout.vertex && e !== layout.face && e.count > 0);
  if (skipped.length > 0) notes.push(`skipped PLY elements: ${skipped.map((e) => `${e.name} (${e.count})`).join(', ')}`);
  if (layout.face && layout.face.count === 0) notes.push('PLY declares no faces: read as a point cloud');
  if (body.trailingBytes > 0) notes.push(`${plural(body.trailingBytes, 'byte')} after the last element ignored`);
  return finishGeometry({
    positions: body.positions,
    dims: layout.z < 0 ? 2 : 3,
    triangles: body.triangles,
    polygonsTriangulated: body.polygonsTriangulated,
    format: 'ply',
    notes,
    bounds: body.bounds,
    threads,
  });
}

/**
 * A PLY read in pieces straight from the file, given its size and its first bytes (which hold the header):
 * binary bodies by ply-pieces.ts, ascii ones a window of whole lines at a time (line-pieces.ts). Unless
 * `required` (a file too large to read whole), undefined for an ascii body and for a binary body with
 * list records (faces): the whole-file reader walks those faster (a 2M-triangle mesh here: 81-106 ms
 * whole, 115-124 ms in pieces), so piecing pays only for point clouds, whose vertices the native reader
 * then reads on every core.
 */
export function readPlyInPieces(path: string, size: number, prefix: Uint8Array, required = true, threads?: number): Geometry | undefined {
  const header = parsePlyHeader(prefix, path);
  if (!required && (header.encoding === 'ascii' || header.elements.some((e) => e.count > 0 && fixedRecordSize(e) < 0))) return undefined;
  const layout = findLayout(header, path);
  checkDeclaredSizes(header, size, path);
  if (header.encoding !== 'ascii') return readBinaryPlyInPieces(path, size, header, layout, threads);
  const geometry = withLinePieces(path, size, header.dataStart, (more) =>
    plyGeometry(header, layout, readAsciiPlyRecords(AsciiScanner.overPieces(more, path, { line: header.dataLine, comments: false }), header, layout), threads));
  geometry.notes.push(PIECES_NOTE);
  return geometry;
}

export function findLayout(header: PlyHeader, file: string): PlyLayout {
  const vertex = header.elements.find((e) => e.name === 'vertex');
  if (!vertex) throw new InputError(file, {}, 'PLY has no vertex element');
  const scalarIndex = (name: string): number => {
    const index = vertex.properties.findIndex((p) => p.name === name);
    if (index >= 0 && vertex.properties[index].countType !== undefined) {
      throw new InputError(file, { line: vertex.line }, `vertex property '${name}' is a list, expected a scalar`);
    }
    return index;
  };
  const x = scalarIndex('x'), y = scalarIndex('y'), z = scalarIndex('z');
  if (x < 0 || y < 0) throw new InputError(file, { line: vertex.line }, 'vertex element needs x and y properties');

  const face = header.elements.find((e) => e.name === 'face');
  let faceIndices = -1;
  if (face) {
    faceIndices = face.properties.findIndex(
      (p) => (p.name === 'vertex_indices' || p.name === 'vertex_index') && p.countType !== undefined,
    );
    if (faceIndices < 0) throw new InputError(file, { line: face.line }, 'face element has no vertex_indices list property');
    if (!isIntegerType(face.properties[faceIndices].type)) {
      throw new InputError(file, { line: face.line }, 'face vertex indices must have an integer type');
    }
  }
  return { vertex, x, y, z, face, faceIndices };
}

/**
 * Refuses headers whose counts cannot fit in the file, before anything is allocated.
 * Binary: each record takes at least its scalar sizes. Ascii: each value takes at least 2 bytes.
 */
export function checkDeclaredSizes(header: PlyHeader, fileSize: number, file: string): void {
  const available = fileSize - header.dataStart;
  let needed = 0;
  for (const element of header.elements) {
    const perRecord = header.encoding === 'ascii' ? 2 * element.properties.length : minimumBinaryRecordSize(element);
    needed += element.count * perRecord;
    // The last ascii line may lack its newline, hence the one byte of slack.
    if (needed - (header.encoding === 'ascii' ? 1 : 0) > available) {
      const detail = `element '${element.name}' declares ${element.count} records needing at least ` +
        `${needed} bytes in all, but only ${available} bytes follow the header`;
      throw new InputError(file, header.encoding === 'ascii' ? { line: element.line } : { byte: fileSize }, detail);
    }
  }
}

