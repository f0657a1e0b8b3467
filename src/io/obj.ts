// Wavefront OBJ reader: `v` and `f` statements; everything else (vn, vt, g, o, s, usemtl, mtllib,
// l, p, ...) is skipped. Face corners may be i, i/t, i//n or i/t/n, with negative indices counting back.
// Coordinates are kept as the doubles the text states (a Float64Array).
import { InputError } from '../core/errors.js';
import { AsciiScanner } from './ascii-numbers.js';
import { badCoordinate, finishGeometry, GrowableFloat64, isExactCoordinate, TriangleCollector } from './build.js';
import type { Geometry } from './geometry.js';

const LOWER_V = 118, LOWER_F = 102, SPACE = 32, TAB = 9;

/** A face corner that pointed past the vertices read so far; checked once the file is done. */
interface ForwardReference {
  line: number;
  index: number;
}

export function parseObj(bytes: Uint8Array, file: string): Geometry {
  return readObj(new AsciiScanner(bytes, file), bytes.length >> 3);
}

/**
 * The OBJ text a scanner reads, whole or in pieces (line-pieces.ts); `expectedCoordinates` sizes the first
 * vertex buffer (it grows as needed).
 */
export function readObj(scanner: AsciiScanner, expectedCoordinates: number): Geometry {
  const file = scanner.file;
  const vertices = new GrowableFloat64(Math.max(1024, expectedCoordinates));
  const collector = new TriangleCollector(1024);
  const forward: ForwardReference[] = [];

  while (scanner.skipToToken()) {
    const b = scanner.bytes, p = scanner.pos; // a window of whole lines: the statement's line is all in it
    const next = p + 1 < b.length ? b[p + 1] : SPACE;
    const statementEnds = next === SPACE || next === TAB || next === 13 || next === 10;
    if (b[p] === LOWER_V && statementEnds) {
      scanner.pos = p + 1;
      readVertex(scanner, vertices);
    } else if (b[p] === LOWER_F && statementEnds) {
      scanner.pos = p + 1;
      readFace(scanner, vertices.length / 3, collector, forward);
    }
    scanner.skipRestOfLine();
  }

  const vertexCount = vertices.length / 3;
  for (const reference of forward) {
    if (reference.index >= vertexCount) {
      throw new InputError(file, { line: reference.line },
        `face uses vertex ${reference.index + 1}, but the file has only ${vertexCount} vertices`);
    }
  }
  return finishGeometry({
    positions: vertices.finish(),
    dims: 3,
    triangles: collector.finish(),
    polygonsTriangulated: collector.polygons,
    format: 'obj',
  });
}

function readVertex(scanner: AsciiScanner, vertices: GrowableFloat64): void {
  const vertex = vertices.length / 3;
  const x = readCoordinate(scanner, vertex), y = readCoordinate(scanner, vertex), z = readCoordinate(scanner, vertex);
  vertices.push3(x, y, z); // an optional w and any colour columns are ignored
}

function readCoordinate(scanner: AsciiScanner, vertex: number): number {
  if (scanner.atLineEnd()) scanner.fail(`vertex ${vertex + 1} needs 3 coordinates`);
  const value = scanner.number();
  if (!isExactCoordinate(value)) throw badCoordinate(scanner.file, { line: scanner.line }, value, vertex + 1);
  return value;
}

function readFace(scanner: AsciiScanner, vertexCount: number, collector: TriangleCollector, forward: ForwardReference[]): void {
  collector.beginPolygon();
  let corners = 0;
  while (!scanner.atLineEnd()) {
    const raw = scanner.integer('a vertex index');
    scanner.skipToken(); // "/t", "//n" or "/t/n" after the vertex index
    let index: number;
    if (raw > 0) {
      index = raw - 1;
      if (index >= vertexCount) forward.push({ line: scanner.line, index });
    } else if (raw < 0) {
      index = vertexCount + raw;
      if (index < 0) scanner.fail(`face uses relative vertex ${raw}, but only ${vertexCount} vertices precede it`);
    } else {
      scanner.fail('face uses vertex index 0 (OBJ indices start at 1)');
    }
    collector.addCorner(index);
    corners++;
  }
  if (corners < 3) scanner.fail(`face has ${corners} vertices (need at least 3)`);
  collector.endPolygon();
}
