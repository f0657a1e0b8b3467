// OFF reader (Geomview Object File Format, ascii): [ST][C][N][4][n]OFF headers, comments anywhere,
// one vertex or face per line with any extra colour/normal/texture columns ignored. Coordinates are kept
// as the doubles the text states (a Float64Array).
import { AsciiScanner } from './ascii-numbers.js';
import { readAsciiPolygon } from './ascii-polygon.js';
import { badCoordinate, finishGeometry, isExactCoordinate, TriangleCollector } from './build.js';
import type { Geometry } from './geometry.js';

interface OffHeader {
  /** Coordinates stored for each vertex before the optional extra columns. */
  dims: 2 | 3;
  /** 4OFF: a fourth (w) coordinate divides the others. */
  homogeneous: boolean;
}

/** Parses the OFF magic word; `undefined` when it is not one. */
function parseMagic(word: string): { homogeneous: boolean; dimensionLine: boolean } | undefined {
  const match = /^(?:ST)?C?N?(4)?(n)?OFF$/.exec(word);
  if (!match) return undefined;
  return { homogeneous: match[1] !== undefined, dimensionLine: match[2] !== undefined };
}

/** True when the first token of the text (after comments) is an OFF magic word. */
export function looksLikeOff(bytes: Uint8Array): boolean {
  const scanner = new AsciiScanner(bytes.subarray(0, 4096), '');
  if (!scanner.skipToToken()) return false;
  return parseMagic(readWord(scanner)) !== undefined;
}

function readWord(scanner: AsciiScanner): string {
  const start = scanner.pos;
  scanner.skipToken();
  return new TextDecoder('latin1').decode(scanner.bytes.subarray(start, scanner.pos));
}

function readHeader(scanner: AsciiScanner): OffHeader {
  if (!scanner.skipToToken()) scanner.fail('empty file: expected an OFF header');
  const word = readWord(scanner);
  const magic = parseMagic(word);
  if (!magic) scanner.fail(`expected an OFF header keyword, found '${word.slice(0, 24)}'`);
  if (!scanner.atLineEnd()) {
    const next = scanner.pos;
    scanner.skipToken();
    const text = new TextDecoder('latin1').decode(scanner.bytes.subarray(next, scanner.pos));
    if (text.toUpperCase() === 'BINARY') scanner.fail('binary OFF is not supported; convert it to ascii OFF or PLY');
    scanner.pos = next;
  }
  let dims: 2 | 3 = 3;
  if (magic.dimensionLine) {
    scanner.skipToToken();
    const dimension = scanner.integer('the nOFF dimension');
    if (dimension !== 2 && dimension !== 3) scanner.fail(`nOFF dimension ${dimension} is not supported (only 2 or 3)`);
    dims = dimension;
  }
  return { dims, homogeneous: magic.homogeneous };
}

export function parseOff(bytes: Uint8Array, file: string): Geometry {
  return readOff(new AsciiScanner(bytes, file));
}

/** The OFF text a scanner reads, whole or in pieces (line-pieces.ts). */
export function readOff(scanner: AsciiScanner): Geometry {
  const header = readHeader(scanner);

  scanner.skipToToken();
  const countsLine = scanner.line;
  const vertexCount = scanner.integer('the vertex count');
  scanner.skipInlineSpace();
  const faceCount = scanner.atLineEnd() ? scanner.fail('header needs a vertex count and a face count') : scanner.integer('the face count');
  if (!scanner.atLineEnd()) scanner.integer('the edge count');
  if (vertexCount < 0 || faceCount < 0) scanner.fail('negative vertex or face count in the header');
  scanner.skipRestOfLine();

  // Every coordinate needs at least a digit and a separator, every face at least "3 a b c\n":
  // a lying header is caught here instead of by a huge allocation.
  const coordinates = header.dims + (header.homogeneous ? 1 : 0);
  const remaining = scanner.bytesLeft;
  if (vertexCount * 2 * coordinates + faceCount * 8 - 1 > remaining) {
    scanner.line = countsLine;
    scanner.fail(`header declares ${vertexCount} vertices and ${faceCount} faces, but only ${remaining} bytes follow`);
  }

  const positions = readVertices(scanner, vertexCount, header);
  const collector = new TriangleCollector(faceCount);
  readFaces(scanner, faceCount, vertexCount, collector);

  const notes: string[] = [];
  if (scanner.skipToToken()) notes.push(`ignored data after the last face (from line ${scanner.line})`);
  return finishGeometry({
    positions,
    dims: header.dims,
    triangles: collector.finish(),
    polygonsTriangulated: collector.polygons,
    format: 'off',
    notes,
  });
}

function readVertices(scanner: AsciiScanner, count: number, header: OffHeader): Float64Array {
  const positions = new Float64Array(count * 3);
  const dims = header.dims;
  for (let v = 0; v < count; v++) {
    if (!scanner.skipToToken()) scanner.fail(`file ends after ${v} of ${count} vertices`);
    const x = scanner.number();
    scanner.skipInlineSpace();
    const y = scanner.number();
    let z = 0;
    if (dims === 3) {
      scanner.skipInlineSpace();
      z = scanner.number();
    }
    if (header.homogeneous) {
      scanner.skipInlineSpace();
      const w = scanner.number();
      if (w !== 1) {
        // Each quotient rounded once (a multiplication by 1/w would round twice).
        positions[3 * v] = checked(scanner, x / w, v);
        positions[3 * v + 1] = checked(scanner, y / w, v);
        positions[3 * v + 2] = checked(scanner, z / w, v);
        scanner.skipRestOfLine();
        continue;
      }
    }
    positions[3 * v] = checked(scanner, x, v);
    positions[3 * v + 1] = checked(scanner, y, v);
    positions[3 * v + 2] = checked(scanner, z, v);
    scanner.skipRestOfLine(); // colour, normal or texture columns
  }
  return positions;
}

function checked(scanner: AsciiScanner, value: number, vertex: number): number {
  if (!isExactCoordinate(value)) throw badCoordinate(scanner.file, { line: scanner.line }, value, vertex);
  return value;
}

function readFaces(scanner: AsciiScanner, count: number, vertexCount: number, collector: TriangleCollector): void {
  for (let f = 0; f < count; f++) {
    if (!scanner.skipToToken()) scanner.fail(`file ends after ${f} of ${count} faces`);
    readAsciiPolygon(scanner, f, vertexCount, collector);
    scanner.skipRestOfLine(); // optional face colour
  }
}
