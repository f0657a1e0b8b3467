// STL reader, binary and ascii. Every triangle stores its own corners, so corners with identical
// coordinates are welded into shared vertices to give meaningful vertex counts and connectivity.
// Binary STL stores float32, which stays a Float32Array; ascii STL keeps the doubles its text states
// (a Float64Array).
import { formatCount } from '../core/counts.js';
import { InputError } from '../core/errors.js';
import { AsciiScanner, keyword } from './ascii-numbers.js';
import { readFully } from './input-file.js';
import { badCoordinate, finishGeometry, isExactCoordinate, MAX_COORDINATE, plural, TriangleCollector } from './build.js';
import type { Geometry } from './geometry.js';
import { Float64VertexWelder, VertexWelder } from './weld.js';

const HEADER_BYTES = 84;
const RECORD_BYTES = 50;

/**
 * Binary STL is recognised by its size: 84 + 50 × (the triangle count stored at byte 80). `size` is the
 * file's, when `bytes` holds only its start.
 */
export function hasBinaryStlSize(bytes: Uint8Array, size = bytes.length): boolean {
  if (bytes.length < HEADER_BYTES) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return HEADER_BYTES + RECORD_BYTES * view.getUint32(80, true) === size;
}

/** "solid" at the start and a facet (or endsolid) soon after; binary headers may also say "solid". */
export function looksLikeAsciiStl(bytes: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024)).toLowerCase();
  return /^\s*solid\b/.test(head) && /\b(facet|endsolid)\b/.test(head) && !head.includes('\0');
}

export function parseStl(bytes: Uint8Array, file: string): Geometry {
  // The size rule decides first: a binary file whose 80-byte header starts with "solid" is common.
  if (!hasBinaryStlSize(bytes) && looksLikeAsciiStl(bytes)) return parseAsciiStl(bytes, file);
  return parseBinaryStl(bytes, file);
}

/**
 * Bits of the largest float32 that passes isExactCoordinate. Non-negative float32 values order like their
 * bit patterns, and NaN and ±Infinity lie above every finite one, so (bits & 0x7fffffff) beyond this is
 * exactly the coordinates the check rejects.
 */
const LARGEST_EXACT_FLOAT32_BITS = (() => {
  const bits = new Uint32Array(new Float32Array([MAX_COORDINATE]).buffer)[0];
  return Math.fround(MAX_COORDINATE) > MAX_COORDINATE ? bits - 1 : bits;
})();

function weldNote(welder: VertexWelder | Float64VertexWelder): string {
  const vertices = welder.count === 1 ? 'shared vertex' : 'shared vertices';
  return `welded ${plural(welder.corners, 'triangle corner')} into ${formatCount(welder.count)} ${vertices}`;
}

function parseBinaryStl(bytes: Uint8Array, file: string): Geometry {
  if (bytes.length < HEADER_BYTES) {
    throw new InputError(file, { byte: bytes.length }, `too short for a binary STL (${bytes.length} bytes, need at least 84)`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stl = new BinaryStlTriangles(file, bytes.length, view.getUint32(80, true));
  stl.weld(view, HEADER_BYTES, 0, stl.count);
  return stl.finish();
}

/**
 * A binary STL of `size` bytes read straight from the file in pieces of whole records, never whole: how
 * binary STL files too large for one buffer (or any size when XHD_READ_PIECE_BYTES is set) are read.
 * Errors name the same byte offsets as the whole-file reader's.
 */
export function readBinaryStlInPieces(fd: number, file: string, size: number, piece: number): Geometry {
  const head = new Uint8Array(HEADER_BYTES);
  const view = new DataView(head.buffer);
  if (readFully(fd, head, 0, HEADER_BYTES, 0) < HEADER_BYTES) {
    throw new InputError(file, { byte: size }, `too short for a binary STL (${size} bytes, need at least 84)`);
  }
  const stl = new BinaryStlTriangles(file, size, view.getUint32(80, true));
  const perPiece = Math.max(1, Math.floor(piece / RECORD_BYTES));
  const buffer = new Uint8Array(perPiece * RECORD_BYTES);
  const records = new DataView(buffer.buffer);
  for (let first = 0; first < stl.count; first += perPiece) {
    const count = Math.min(perPiece, stl.count - first);
    const at = HEADER_BYTES + RECORD_BYTES * first;
    const got = readFully(fd, buffer, 0, count * RECORD_BYTES, at);
    // The file shrank while it was read: the same message as for a file that was short from the start.
    if (got < count * RECORD_BYTES) stl.truncated(at + got);
    stl.weld(records, 0, first, count);
  }
  return stl.finish();
}

/** The triangles of a binary STL, welded record by record as its bytes arrive (whole, or in pieces). */
class BinaryStlTriangles {
  private readonly welder: VertexWelder;
  private readonly triangles: Uint32Array;
  private readonly notes: string[] = [];

  constructor(private readonly file: string, size: number, readonly count: number) {
    const expected = HEADER_BYTES + RECORD_BYTES * count;
    if (size < expected) this.truncated(size);
    // Some exporters pad the file after the last record: read what was declared, say what was ignored.
    if (size > expected) this.notes.push(`ignored ${plural(size - expected, 'byte')} after the ${plural(count, 'declared triangle')}`);
    this.welder = new VertexWelder(count);
    this.triangles = new Uint32Array(count * 3);
  }

  truncated(size: number): never {
    throw new InputError(this.file, { byte: size },
      `truncated binary STL: ${this.count} triangles need ${HEADER_BYTES + RECORD_BYTES * this.count} bytes, the file has ${size}`);
  }

  /** Welds records first .. first+count, which `view` holds from byte `start` on. */
  weld(view: DataView, start: number, first: number, count: number): void {
    const welder = this.welder, triangles = this.triangles;
    for (let r = 0; r < count; r++) {
      const record = start + RECORD_BYTES * r, t = first + r;
      for (let corner = 0; corner < 3; corner++) {
        const at = record + 12 + 12 * corner; // the normal comes first and is ignored
        const x = view.getUint32(at, true), y = view.getUint32(at + 4, true), z = view.getUint32(at + 8, true);
        // Magnitudes beyond the limit, NaN and infinities alike, compared on the bits.
        const limit = LARGEST_EXACT_FLOAT32_BITS;
        if ((x & 0x7fffffff) > limit || (y & 0x7fffffff) > limit || (z & 0x7fffffff) > limit) {
          const bad = (x & 0x7fffffff) > limit ? at : (y & 0x7fffffff) > limit ? at + 4 : at + 8;
          const fileOffset = HEADER_BYTES + RECORD_BYTES * t + (bad - record);
          throw badCoordinate(this.file, { byte: fileOffset }, view.getFloat32(bad, true), 3 * t + corner);
        }
        triangles[3 * t + corner] = welder.add(x, y, z);
      }
    }
  }

  finish(): Geometry {
    this.notes.push(weldNote(this.welder));
    return finishGeometry({ positions: this.welder.finish(), dims: 3, triangles: this.triangles, format: 'stl', notes: this.notes });
  }
}

const SOLID = keyword('solid'), ENDSOLID = keyword('endsolid'), FACET = keyword('facet'), NORMAL = keyword('normal');
const OUTER = keyword('outer'), LOOP = keyword('loop'), VERTEX = keyword('vertex');
const ENDLOOP = keyword('endloop'), ENDFACET = keyword('endfacet');

function expectWord(scanner: AsciiScanner, word: Uint8Array, name: string): void {
  if (!scanner.skipToToken()) scanner.fail(`file ends early: expected '${name}'`);
  if (!scanner.matchWord(word)) scanner.fail(`expected '${name}', found ${scanner.describeToken(scanner.pos)}`);
}

function readCoordinate(scanner: AsciiScanner, welder: Float64VertexWelder): number {
  scanner.skipInlineSpace();
  const value = scanner.number();
  if (!isExactCoordinate(value)) throw badCoordinate(scanner.file, { line: scanner.line }, value, welder.corners);
  return value;
}

function parseAsciiStl(bytes: Uint8Array, file: string): Geometry {
  return readAsciiStl(new AsciiScanner(bytes, file, { comments: false }), bytes.length);
}

/**
 * The ascii STL text a scanner reads (made with comments: false), whole or in pieces (line-pieces.ts);
 * `size`, the text's length, sizes the first buffers (they grow as needed).
 */
export function readAsciiStl(scanner: AsciiScanner, size: number): Geometry {
  const welder = new Float64VertexWelder(Math.max(1024, size >> 8));
  const collector = new TriangleCollector(Math.max(1024, size >> 8));
  expectWord(scanner, SOLID, 'solid');
  scanner.skipRestOfLine(); // the solid's name
  for (;;) {
    if (!scanner.skipToToken()) scanner.fail("file ends early: expected 'endsolid'");
    if (scanner.matchWord(ENDSOLID)) {
      scanner.skipRestOfLine();
      if (!scanner.skipToToken()) break;
      expectWord(scanner, SOLID, 'solid'); // several solids may follow each other
      scanner.skipRestOfLine();
      continue;
    }
    expectWord(scanner, FACET, 'facet');
    expectWord(scanner, NORMAL, 'normal');
    for (let i = 0; i < 3; i++) {
      scanner.skipInlineSpace();
      scanner.number(); // normals are recomputed downstream; exporters even write nan here
    }
    expectWord(scanner, OUTER, 'outer');
    expectWord(scanner, LOOP, 'loop');
    collector.beginPolygon();
    let corners = 0;
    while (scanner.skipToToken() && scanner.matchWord(VERTEX)) {
      const x = readCoordinate(scanner, welder), y = readCoordinate(scanner, welder), z = readCoordinate(scanner, welder);
      collector.addCorner(welder.add(x, y, z));
      corners++;
    }
    if (corners < 3) scanner.fail(`facet has ${corners} vertices (need at least 3)`);
    collector.endPolygon();
    expectWord(scanner, ENDLOOP, 'endloop');
    expectWord(scanner, ENDFACET, 'endfacet');
  }
  return finishGeometry({
    positions: welder.finish(),
    dims: 3,
    triangles: collector.finish(),
    polygonsTriangulated: collector.polygons,
    format: 'stl',
    notes: [weldNote(welder)],
  });
}
