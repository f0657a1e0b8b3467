// Building LAZ files for the tests and the benchmark without a LAZ compressor: the compressed chunk of a real
// LAZ file (shared/data/lidar) is repeated, and a new chunk table written for the copies. The table is
// arithmetic coded like LASzip's, so this file holds the encoder that mirrors src/io/laz-arithmetic.ts's
// decoder (the models are shared). Table entries can be made to lie, to test the reader's checks.
import { BitModel, SymbolModel } from '../src/io/laz-arithmetic.js';

const MIN_LENGTH = 0x01000000;

class ArithmeticEncoder {
  private base = 0;
  private length = 0xffffffff;
  readonly out: number[] = [];

  private carry(): void {
    let p = this.out.length - 1;
    while (this.out[p] === 0xff) this.out[p--] = 0;
    this.out[p]++;
  }

  private renormalize(): void {
    do {
      this.out.push(this.base >>> 24);
      this.base = (this.base << 8) >>> 0;
      this.length = (this.length << 8) >>> 0;
    } while (this.length < MIN_LENGTH);
  }

  private add(x: number): void {
    const before = this.base;
    this.base = (this.base + x) >>> 0;
    if (before > this.base) this.carry();
  }

  encodeSymbol(m: SymbolModel, symbol: number): void {
    if (symbol === m.lastSymbol) {
      const x = m.distribution[symbol] * (this.length >>> 15);
      this.add(x);
      this.length -= x;
    } else {
      this.length = this.length >>> 15;
      const x = m.distribution[symbol] * this.length;
      this.add(x);
      this.length = m.distribution[symbol + 1] * this.length - x;
    }
    if (this.length < MIN_LENGTH) this.renormalize();
    m.count(symbol);
  }

  encodeBit(m: BitModel, bit: number): void {
    const x = m.bit0Probability * (this.length >>> 13);
    if (bit === 0) {
      this.length = x;
      m.bit0Count++;
    } else {
      this.add(x);
      this.length -= x;
    }
    if (this.length < MIN_LENGTH) this.renormalize();
    if (--m.untilUpdate === 0) m.update();
  }

  writeBits(bits: number, value: number): void {
    if (bits > 19) {
      this.writeBits(16, value & 0xffff);
      value = Math.floor(value / 65536);
      bits -= 16;
    }
    this.length = this.length >>> bits;
    this.add(value * this.length);
    if (this.length < MIN_LENGTH) this.renormalize();
  }

  done(): number[] {
    let another = true;
    if (this.length > 2 * MIN_LENGTH) {
      this.add(MIN_LENGTH);
      this.length = MIN_LENGTH >>> 1;
    } else {
      this.add(MIN_LENGTH >>> 1);
      this.length = MIN_LENGTH >>> 9;
      another = false;
    }
    this.renormalize();
    this.out.push(0, 0);
    if (another) this.out.push(0);
    return this.out;
  }
}

class IntegerCompressor {
  private readonly bits: SymbolModel[];
  private readonly corrector0 = new BitModel();
  private readonly correctors: SymbolModel[] = [];

  constructor(private readonly encoder: ArithmeticEncoder, contexts: number) {
    this.bits = Array.from({ length: contexts }, () => new SymbolModel(33));
    for (let k = 1; k <= 32; k++) this.correctors[k] = new SymbolModel(1 << Math.min(k, 8));
  }

  compress(prediction: number, real: number, context: number): void {
    let c = (real - prediction) | 0;
    let c1 = c <= 0 ? -c : c - 1;
    let k = 0;
    while (c1 > 0) {
      c1 = Math.floor(c1 / 2);
      k++;
    }
    this.encoder.encodeSymbol(this.bits[context], k);
    if (k === 0) {
      this.encoder.encodeBit(this.corrector0, c);
      return;
    }
    if (k >= 32) return;
    c = c < 0 ? c + (2 ** k - 1) : c - 1;
    if (k <= 8) {
      this.encoder.encodeSymbol(this.correctors[k], c);
    } else {
      const low = k - 8;
      this.encoder.encodeSymbol(this.correctors[k], Math.floor(c / 2 ** low));
      this.encoder.writeBits(low, c % 2 ** low);
    }
  }
}

export interface ChunkEntry {
  points: number;
  bytes: number;
}

/** A chunk table for variable-sized chunks (point counts and byte counts coded), as LASzip writes it. */
export function chunkTableBytes(entries: ChunkEntry[], variable = true): Uint8Array {
  const encoder = new ArithmeticEncoder();
  const integers = new IntegerCompressor(encoder, 2);
  let previousPoints = 0, previousBytes = 0;
  for (const e of entries) {
    if (variable) integers.compress(previousPoints, e.points, 0);
    integers.compress(previousBytes, e.bytes, 1);
    previousPoints = e.points;
    previousBytes = e.bytes;
  }
  const coded = entries.length > 0 ? encoder.done() : [];
  const bytes = new Uint8Array(8 + coded.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0, true);
  view.setUint32(4, entries.length, true);
  bytes.set(coded, 8);
  return bytes;
}

export interface LazBuild {
  /** Copies of the template's chunk. */
  copies: number;
  /** Table entries as written (default: the truth). */
  entries?: ChunkEntry[];
  /** The chunk table offset as written (default: the truth). */
  tableOffset?: number;
  /** Write -1 at the start of the points and the table's offset in the last 8 bytes, as streaming writers do. */
  offsetAtEnd?: boolean;
  /** Fixed-size chunks (the chunk size in the VLR is the template's point count) instead of variable-sized ones. */
  fixed?: boolean;
}

/** The point count, first chunk, and LASzip VLR payload offset of a one-chunk LAZ template (a LAS 1.2/1.3 file). */
function templateParts(template: Uint8Array) {
  const view = new DataView(template.buffer, template.byteOffset, template.byteLength);
  const pointDataOffset = view.getUint32(96, true);
  const tableOffset = Number(view.getBigInt64(pointDataOffset, true));
  let at = view.getUint16(94, true), lazVlr = -1;
  for (let i = 0; i < view.getUint32(100, true); i++) {
    const id = new TextDecoder('latin1').decode(template.subarray(at + 2, at + 18)).replace(/\0.*$/, '');
    if (id === 'laszip encoded') lazVlr = at + 54;
    at += 54 + view.getUint16(at + 20, true);
  }
  return { pointDataOffset, points: view.getUint32(107, true), chunk: template.subarray(pointDataOffset + 8, tableOffset), lazVlr };
}

/** A LAZ file of `copies` copies of the template's one chunk, in variable-sized chunks (or fixed-size ones). */
export function lazFromTemplate(template: Uint8Array, build: LazBuild): Uint8Array {
  const { pointDataOffset, points, chunk, lazVlr } = templateParts(template);
  const truth = Array.from({ length: build.copies }, () => ({ points, bytes: chunk.length }));
  const table = chunkTableBytes(build.entries ?? truth, !build.fixed);
  const tableOffset = pointDataOffset + 8 + build.copies * chunk.length;
  const out = new Uint8Array(tableOffset + table.length + (build.offsetAtEnd ? 8 : 0));
  out.set(template.subarray(0, pointDataOffset));
  const view = new DataView(out.buffer);
  view.setUint32(107, points * build.copies, true);
  view.setUint32(111, 0, true); // the by-return counts no longer hold; nothing reads them
  // Variable-sized chunks: the table carries the counts; fixed ones: every chunk holds the template's points.
  view.setUint32(lazVlr + 12, build.fixed ? points : 0xffffffff, true);
  const written = build.tableOffset ?? tableOffset;
  view.setBigInt64(pointDataOffset, BigInt(build.offsetAtEnd ? -1 : written), true);
  for (let c = 0; c < build.copies; c++) out.set(chunk, pointDataOffset + 8 + c * chunk.length);
  out.set(table, tableOffset);
  if (build.offsetAtEnd) view.setBigInt64(out.length - 8, BigInt(written), true);
  return out;
}
