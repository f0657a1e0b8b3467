// Merges corners with bit-identical float32 coordinates into shared vertices (STL stores every
// triangle corner separately). Open addressing on the three 32-bit patterns; no string keys.

const EMPTY = -1;
const NEGATIVE_ZERO_BITS = 0x80000000;

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

// Scratch for turning a double into its float32 bit pattern.
const scratchFloat = new Float32Array(1);
const scratchBits = new Uint32Array(scratchFloat.buffer);

/** The bit pattern of `value` rounded to float32. */
export function float32Bits(value: number): number {
  scratchFloat[0] = value;
  return scratchBits[0];
}
