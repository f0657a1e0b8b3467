// One field's bytestream in an E57 CompressedVector: the field's buffer from every data packet, in packet
// order, forms one little-endian bit stream (a value may straddle two packets), from which values of the
// field's width are taken in turn. Integers are stored as value - minimum in `bits` bits; floats as their
// IEEE bytes. Values come out as doubles: an integer's (raw + minimum), a ScaledInteger's (raw + minimum)
// * scale + offset, rounded as two separate double operations (no fused multiply-add), like LAS.
import type { E57Field } from './e57-scans.js';

/** Bytes kept zeroed past the filled part, so a value read at the end never reads outside the buffer. */
const SLACK = 16;
const TWO_32 = 2 ** 32;

export class E57Bytestream {
  private bytes = new Uint8Array(4096 + SLACK);
  private view = new DataView(this.bytes.buffer);
  /** Bytes filled, and the bit where the next value starts. */
  private filled = 0;
  private bit = 0;
  /** Values taken so far. */
  taken = 0;
  private readonly minimum: number;
  /** The minimum when it is too large for a double to hold exactly (then every value goes through BigInt). */
  private readonly exact: boolean;

  constructor(readonly field: E57Field) {
    this.minimum = Number(field.minimum);
    this.exact = Number.isSafeInteger(this.minimum) && field.bits <= 52;
  }

  /** Appends one packet's buffer for this field. */
  append(source: Uint8Array): void {
    const drop = this.bit >>> 3;
    const keep = this.filled - drop;
    if (keep + source.length + SLACK > this.bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.bytes.length, keep + source.length + SLACK));
      grown.set(this.bytes.subarray(drop, this.filled));
      this.bytes = grown;
      this.view = new DataView(grown.buffer);
    } else if (drop > 0) {
      this.bytes.copyWithin(0, drop, this.filled);
    }
    this.bytes.set(source, keep);
    this.filled = keep + source.length;
    this.bytes.fill(0, this.filled, this.filled + SLACK);
    this.bit -= 8 * drop;
  }

  /** Whole values waiting in the stream (any number for a field of 0 bits: its every value is its minimum). */
  available(): number {
    const bits = this.field.bits;
    return bits === 0 ? Infinity : Math.floor((8 * this.filled - this.bit) / bits);
  }

  /** Takes `count` values (the caller has checked they are available) into into[0 ... count). */
  take(count: number, into: Float64Array): void {
    const f = this.field;
    this.taken += count;
    if (f.kind === 'float64') {
      for (let i = 0, at = this.bit >>> 3; i < count; i++, at += 8) into[i] = this.view.getFloat64(at, true);
    } else if (f.kind === 'float32') {
      for (let i = 0, at = this.bit >>> 3; i < count; i++, at += 4) into[i] = this.view.getFloat32(at, true);
    } else if (f.bits === 0) {
      const v = f.kind === 'scaled' ? Number(f.minimum) * f.scale + f.offset : Number(f.minimum);
      into.fill(v, 0, count);
      return;
    } else if (f.bits <= 32 && this.exact) {
      this.takeNarrow(count, into);
    } else {
      this.takeWide(count, into);
    }
    this.bit += count * f.bits;
  }

  /** Integers of up to 32 bits with a minimum a double holds: raw bits from up to 5 bytes. */
  private takeNarrow(count: number, into: Float64Array): void {
    const b = this.bytes, bits = this.field.bits, minimum = this.minimum;
    const scaled = this.field.kind === 'scaled', scale = this.field.scale, offset = this.field.offset;
    const modulus = 2 ** bits;
    let bit = this.bit;
    if (bits <= 25) {
      // shift + bits <= 32: the value lies in the 4 bytes from its first, and a mask takes it.
      const mask = (1 << bits) - 1;
      for (let i = 0; i < count; i++, bit += bits) {
        const at = bit >>> 3;
        const integer = (((b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> (bit & 7)) & mask) + minimum;
        into[i] = scaled ? integer * scale + offset : integer;
      }
      return;
    }
    for (let i = 0; i < count; i++, bit += bits) {
      const at = bit >>> 3, shift = bit & 7;
      const low = (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> shift >>> 0;
      // The bits above the first 32 - shift come from a fifth byte; the sum is exact in a double (< 2^40).
      const raw = (shift + bits > 32 ? low + b[at + 4] * 2 ** (32 - shift) : low) % modulus;
      const integer = raw + minimum;
      into[i] = scaled ? integer * scale + offset : integer;
    }
  }

  /** Integers over 32 bits (or with a minimum past 2^53): two 32-bit halves, joined in BigInt when needed. */
  private takeWide(count: number, into: Float64Array): void {
    const f = this.field, bits = f.bits;
    let bit = this.bit;
    for (let i = 0; i < count; i++, bit += bits) {
      const low = this.bitsAt(bit, Math.min(32, bits));
      const high = bits > 32 ? this.bitsAt(bit + 32, bits - 32) : 0;
      let integer: number;
      if (this.exact) integer = high * TWO_32 + low + this.minimum;
      else integer = Number(((BigInt(high) << 32n) | BigInt(low)) + f.minimum);
      into[i] = f.kind === 'scaled' ? integer * f.scale + f.offset : integer;
    }
  }

  /** `bits` (1 to 32) bits starting at bit `bit`, as an unsigned number. */
  private bitsAt(bit: number, bits: number): number {
    const b = this.bytes, at = bit >>> 3, shift = bit & 7;
    const low = (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> shift >>> 0;
    return (shift + bits > 32 ? low + b[at + 4] * 2 ** (32 - shift) : low) % 2 ** bits;
  }
}
