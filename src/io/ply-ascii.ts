// Ascii PLY bodies: one record per line, values in the order the header declares them. Coordinates are
// kept as the doubles the text states (a Float64Array), whatever type the header declares for them.
import { AsciiScanner } from './ascii-numbers.js';
import { readAsciiPolygon } from './ascii-polygon.js';
import { badCoordinate, isExactCoordinate, TriangleCollector } from './build.js';
import type { PlyBody, PlyLayout } from './ply-layout.js';
import type { PlyElement, PlyHeader } from './ply-header.js';

function startRecord(scanner: AsciiScanner, element: PlyElement, record: number): void {
  if (!scanner.skipToToken()) scanner.fail(`file ends after ${record} of ${element.count} ${element.name} records`);
}

function nextValue(scanner: AsciiScanner, element: PlyElement): void {
  if (scanner.atLineEnd()) scanner.fail(`${element.name} record has fewer values than its ${element.properties.length} properties`);
}

function endRecord(scanner: AsciiScanner, element: PlyElement): void {
  if (!scanner.atLineEnd()) scanner.fail(`${element.name} record has more values than the header declares`);
  scanner.skipRestOfLine();
}

/** Reads (and so validates) one list value: its count, then that many numbers. */
function skipList(scanner: AsciiScanner, element: PlyElement): void {
  const items = scanner.integer('a list length');
  if (items < 0) scanner.fail(`negative list length ${items}`);
  for (let i = 0; i < items; i++) {
    nextValue(scanner, element);
    scanner.number();
  }
}

function skipElement(scanner: AsciiScanner, element: PlyElement): void {
  const props = element.properties;
  for (let r = 0; r < element.count; r++) {
    startRecord(scanner, element, r);
    for (let p = 0; p < props.length; p++) {
      nextValue(scanner, element);
      if (props[p].countType === undefined) scanner.number();
      else skipList(scanner, element);
    }
    endRecord(scanner, element);
  }
}

function readVertices(scanner: AsciiScanner, layout: PlyLayout): Float64Array {
  const element = layout.vertex;
  const props = element.properties;
  const positions = new Float64Array(element.count * 3);
  // Which output slot (0,1,2) each property fills, or -1 for properties that are skipped.
  const slot = props.map((_, p) => (p === layout.x ? 0 : p === layout.y ? 1 : p === layout.z ? 2 : -1));
  for (let v = 0; v < element.count; v++) {
    startRecord(scanner, element, v);
    for (let p = 0; p < props.length; p++) {
      nextValue(scanner, element);
      if (props[p].countType !== undefined) {
        skipList(scanner, element);
        continue;
      }
      const value = scanner.number();
      const s = slot[p];
      if (s >= 0) {
        if (!isExactCoordinate(value)) throw badCoordinate(scanner.file, { line: scanner.line }, value, v);
        positions[3 * v + s] = value;
      }
    }
    endRecord(scanner, element);
  }
  return positions;
}

function readFaces(scanner: AsciiScanner, layout: PlyLayout, collector: TriangleCollector): void {
  const element = layout.face!;
  const props = element.properties;
  const vertexCount = layout.vertex.count;
  for (let f = 0; f < element.count; f++) {
    startRecord(scanner, element, f);
    for (let p = 0; p < props.length; p++) {
      nextValue(scanner, element);
      if (p !== layout.faceIndices) {
        if (props[p].countType === undefined) scanner.number();
        else skipList(scanner, element);
        continue;
      }
      readAsciiPolygon(scanner, f, vertexCount, collector);
    }
    endRecord(scanner, element);
  }
}

export function readAsciiPlyBody(bytes: Uint8Array, file: string, header: PlyHeader, layout: PlyLayout): PlyBody {
  return readAsciiPlyRecords(new AsciiScanner(bytes, file, { start: header.dataStart, line: header.dataLine, comments: false }), header, layout);
}

/**
 * The body a scanner reads from its start (made with comments: false, on the header's data line), whole
 * or in pieces (line-pieces.ts).
 */
export function readAsciiPlyRecords(scanner: AsciiScanner, header: PlyHeader, layout: PlyLayout): PlyBody {
  let positions: Float64Array = new Float64Array(0);
  const collector = new TriangleCollector(layout.face?.count ?? 0);
  for (const element of header.elements) {
    if (element === layout.vertex) positions = readVertices(scanner, layout);
    else if (element === layout.face) readFaces(scanner, layout, collector);
    else skipElement(scanner, element);
  }
  const notes: string[] = [];
  if (scanner.skipToToken()) notes.push(`ignored data after the last element (from line ${scanner.line})`);
  return {
    positions,
    triangles: layout.face ? collector.finish() : undefined,
    polygonsTriangulated: collector.polygons,
    trailingBytes: 0,
    notes,
  };
}
