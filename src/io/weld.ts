// Merges triangle corners with identical coordinates into shared vertices (STL stores every triangle
// corner separately). Open addressing on the coordinates' bit patterns; no string keys. Binary STL welds
// float32 corners by their bits (VertexWelder, giving a Float32Array); ascii STL welds the doubles its
// text states by exact equality (Float64VertexWelder, giving a Float64Array). -0 and +0 weld in both.

const EMPTY = -1;
const NEGATIVE_ZERO_BITS = 0x80000000;

type Store = Uint32Array | Float64Array;

/**
 * The table both welders share: vertices stored 3 values each in `S`, found by open addressing on
 * `hashOf` and compared with ===. Callers pass canonical values (-0 folded into +0), so that equal
 * coordinates are equal values.
 */
class WeldTable<S extends Store> {
  private values: S;
  private table: Int32Array;
  private mask: number;
  count = 0;
  /** Corners offered to add(), for the note. */
  corners = 0;

  constructor(expectedVertices: number, private readonly make: (length: number) => S,
    private readonly hashOf: (x: number, y: number, z: number) => number) {
    const capacity = Math.max(16, expectedVertices);
    this.values = make(capacity * 3);
    const size = tableSizeFor(capacity);
    this.table = new Int32Array(size).fill(EMPTY);
    this.mask = size - 1;
  }

  /** Index of the vertex (x, y, z), adding it when new. */
  add(x: number, y: number, z: number): number {
    this.corners++;
    // Growing first keeps the probe below simple: there is always room for a new vertex.
    if (3 * this.count + 3 > this.values.length) this.grow();
    const v = this.values, table = this.table, mask = this.mask;
    let slot = this.hashOf(x, y, z) & mask;
    for (;;) {
      const vertex = table[slot];
      if (vertex === EMPTY) break;
      const k = 3 * vertex;
      if (v[k] === x && v[k + 1] === y && v[k + 2] === z) return vertex;
      slot = (slot + 1) & mask;
    }
    const vertex = this.count++;
    table[slot] = vertex;
    v[3 * vertex] = x;
    v[3 * vertex + 1] = y;
    v[3 * vertex + 2] = z;
    return vertex;
  }

  /** The welded values, trimmed to the vertex count (a copy). */
  finish(): S {
    return this.values.slice(0, this.count * 3) as S;
  }

  /** Doubles the vertex store and rebuilds the table at twice the size. */
  private grow(): void {
    const capacity = (this.values.length / 3) * 2;
    const v = this.make(capacity * 3);
    v.set(this.values.subarray(0, this.count * 3));
    this.values = v;
    const size = tableSizeFor(capacity);
    const table = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (let k = 0; k < this.count; k++) {
      let slot = this.hashOf(v[3 * k], v[3 * k + 1], v[3 * k + 2]) & mask;
      while (table[slot] !== EMPTY) slot = (slot + 1) & mask;
      table[slot] = k;
    }
    this.table = table;
    this.mask = mask;
  }
}

/** Welds float32 corners given as bit patterns; the positions are a Float32Array. */
export class VertexWelder {
  private readonly welded: WeldTable<Uint32Array>;

  constructor(expectedVertices = 1024) {
    this.welded = new WeldTable(expectedVertices, (n) => new Uint32Array(n), hash);
  }

  get count(): number {
    return this.welded.count;
  }

  get corners(): number {
    return this.welded.corners;
  }

  /** Index of the vertex with these (unsigned) float32 bit patterns, adding it when new. */
  add(xBits: number, yBits: number, zBits: number): number {
    // -0 and +0 are equal coordinates, so they must weld: store both as +0.
    return this.welded.add(xBits === NEGATIVE_ZERO_BITS ? 0 : xBits, yBits === NEGATIVE_ZERO_BITS ? 0 : yBits,
      zBits === NEGATIVE_ZERO_BITS ? 0 : zBits);
  }

  /** The welded positions, trimmed to the vertex count. */
  finish(): Float32Array {
    return new Float32Array(this.welded.finish().buffer);
  }
}

/**
 * Welds corners given as doubles, by exact equality (the callers have rejected NaN); the positions are a
 * Float64Array holding the doubles unchanged.
 */
export class Float64VertexWelder {
  private readonly welded: WeldTable<Float64Array>;

  constructor(expectedVertices = 1024) {
    this.welded = new WeldTable(expectedVertices, (n) => new Float64Array(n), hashDoubles);
  }

  get count(): number {
    return this.welded.count;
  }

  get corners(): number {
    return this.welded.corners;
  }

  /** Index of the vertex at (x, y, z), adding it when new. */
  add(x: number, y: number, z: number): number {
    // -0 + 0 is +0 and every other value is unchanged: -0 and +0 weld, and hash alike.
    return this.welded.add(x + 0, y + 0, z + 0);
  }

  /** The welded positions, trimmed to the vertex count. */
  finish(): Float64Array {
    return this.welded.finish();
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
