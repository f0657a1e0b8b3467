// Merges triangle corners with identical coordinates into shared vertices (STL stores every triangle
// corner separately). Open addressing on the coordinates' bit patterns; no string keys. Binary STL welds
// float32 corners by their bits (VertexWelder, giving a Float32Array); ascii STL welds the doubles its
// text states by exact equality (Float64VertexWelder, giving a Float64Array). -0 and +0 weld in both.

const EMPTY = -1;
const NEGATIVE_ZERO_BITS = 0x80000000;

/** Welds float32 corners given as bit patterns; the positions are a Float32Array. */
export class VertexWelder {
  /** Welded vertices as float32 bit patterns, 3 per vertex; `positions` views the same memory. */
  private bits: Uint32Array;
  private table: Int32Array;
  private mask: number;
  count = 0;
  /** Corners offered to add(), for the note. */
  corners = 0;

  constructor(expectedVertices = 1024) {
    const capacity = Math.max(16, expectedVertices);
    this.bits = new Uint32Array(capacity * 3);
    const size = tableSizeFor(capacity);
    this.table = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
  }

  /** Index of the vertex with these (unsigned) float32 bit patterns, adding it when new. */
  add(xBits: number, yBits: number, zBits: number): number {
    // -0 and +0 are equal coordinates, so they must weld: store both as +0.
    if (xBits === NEGATIVE_ZERO_BITS) xBits = 0;
    if (yBits === NEGATIVE_ZERO_BITS) yBits = 0;
    if (zBits === NEGATIVE_ZERO_BITS) zBits = 0;
    this.corners++;
    // Growing first keeps the probe below simple: there is always room for a new vertex.
    if (3 * this.count + 3 > this.bits.length) this.grow();
    const bits = this.bits, table = this.table, mask = this.mask;
    let slot = hash(xBits, yBits, zBits) & mask;
    for (;;) {
      const vertex = table[slot];
      if (vertex === EMPTY) break;
      const k = 3 * vertex;
      if (bits[k] === xBits && bits[k + 1] === yBits && bits[k + 2] === zBits) return vertex;
      slot = (slot + 1) & mask;
    }
    const vertex = this.count++;
    table[slot] = vertex;
    bits[3 * vertex] = xBits;
    bits[3 * vertex + 1] = yBits;
    bits[3 * vertex + 2] = zBits;
    return vertex;
  }

  /** The welded positions, trimmed to the vertex count. */
  finish(): Float32Array {
    return new Float32Array(this.bits.buffer, 0, this.count * 3).slice();
  }

  /** Doubles the vertex store and rebuilds the table at twice the size. */
  private grow(): void {
    const capacity = (this.bits.length / 3) * 2;
    const bits = new Uint32Array(capacity * 3);
    bits.set(this.bits.subarray(0, this.count * 3));
    this.bits = bits;
    const size = tableSizeFor(capacity);
    const table = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (let v = 0; v < this.count; v++) {
      let slot = hash(bits[3 * v], bits[3 * v + 1], bits[3 * v + 2]) & mask;
      while (table[slot] !== EMPTY) slot = (slot + 1) & mask;
      table[slot] = v;
    }
    this.table = table;
    this.mask = mask;
  }
}

/**
 * Welds corners given as doubles, by exact equality (the callers have rejected NaN); the positions are a
 * Float64Array holding the doubles unchanged.
 */
export class Float64VertexWelder {
  private coordinates: Float64Array;
  private table: Int32Array;
  private mask: number;
  count = 0;
  /** Corners offered to add(), for the note. */
  corners = 0;

  constructor(expectedVertices = 1024) {
    const capacity = Math.max(16, expectedVertices);
    this.coordinates = new Float64Array(capacity * 3);
    const size = tableSizeFor(capacity);
    this.table = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
  }

  /** Index of the vertex at (x, y, z), adding it when new. */
  add(x: number, y: number, z: number): number {
    // -0 + 0 is +0 and every other value is unchanged: -0 and +0 weld, and hash alike.
    x += 0;
    y += 0;
    z += 0;
    this.corners++;
    if (3 * this.count + 3 > this.coordinates.length) this.grow();
    const c = this.coordinates, table = this.table, mask = this.mask;
    let slot = hashDoubles(x, y, z) & mask;
    for (;;) {
      const vertex = table[slot];
      if (vertex === EMPTY) break;
      const k = 3 * vertex;
      if (c[k] === x && c[k + 1] === y && c[k + 2] === z) return vertex;
      slot = (slot + 1) & mask;
    }
    const vertex = this.count++;
    table[slot] = vertex;
    c[3 * vertex] = x;
    c[3 * vertex + 1] = y;
    c[3 * vertex + 2] = z;
    return vertex;
  }

  /** The welded positions, trimmed to the vertex count. */
  finish(): Float64Array {
    return this.coordinates.slice(0, this.count * 3);
  }

  private grow(): void {
    const capacity = (this.coordinates.length / 3) * 2;
    const c = new Float64Array(capacity * 3);
    c.set(this.coordinates.subarray(0, this.count * 3));
    this.coordinates = c;
    const size = tableSizeFor(capacity);
    const table = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (let v = 0; v < this.count; v++) {
      let slot = hashDoubles(c[3 * v], c[3 * v + 1], c[3 * v + 2]) & mask;
      while (table[slot] !== EMPTY) slot = (slot + 1) & mask;
      table[slot] = v;
    }
    this.table = table;
    this.mask = mask;
  }
}

/** Power of two at least twice the capacity, keeping the load factor at or under one half. */
function tableSizeFor(capacity: number): number {
  let size = 16;
  while (size < capacity * 2) size *= 2;
  return size;
}

function hash(x: number, y: number, z: number): number {
  let h = Math.imul(x, 0x9e3779b1) ^ Math.imul(y, 0x85ebca77) ^ Math.imul(z, 0xc2b2ae3d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

// Scratch for reading the bit patterns of three doubles.
const scratchDoubles = new Float64Array(3);
const scratchWords = new Uint32Array(scratchDoubles.buffer);

/** Hash of three doubles' bit patterns (equal doubles other than ±0 have equal bits; -0 is folded first). */
function hashDoubles(x: number, y: number, z: number): number {
  const d = scratchDoubles, w = scratchWords;
  d[0] = x;
  d[1] = y;
  d[2] = z;
  return hash(fold(w[0], w[1]), fold(w[2], w[3]), fold(w[4], w[5]));
}

/** One 32-bit word from a double's two: the high word's top bits (sign, exponent) moved down first. */
function fold(low: number, high: number): number {
  return low ^ Math.imul(high ^ (high >>> 16), 0x27d4eb2f);
}
