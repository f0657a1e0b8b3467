// The adaptive arithmetic decoder of LASzip (after Amir Said's FastAC, as LASzip uses it) and its integer
// decompressor, written from the LAZ format's description: xhd needs them only to read a LAZ file's chunk
// table (where each chunk starts, and how many points it holds), which the point decoder (laz-perf) does not
// expose. Every quantity is an unsigned 32-bit integer in the format; here they are doubles kept in range
// with >>> 0, and every product stays below 2^32, so the arithmetic is exact.

const MIN_LENGTH = 0x01000000;
const DM_LENGTH_SHIFT = 15;
const DM_MAX_COUNT = 1 << 15;
const BM_LENGTH_SHIFT = 13;
const BM_MAX_COUNT = 1 << 13;
const POW2 = Array.from({ length: 33 }, (_, k) => 2 ** k);

/** An adaptive model of `symbols` symbols. */
export class SymbolModel {
  readonly distribution: Uint32Array;
  private readonly counts: Uint32Array;
  readonly decoderTable: Uint32Array | null;
  readonly tableShift: number;
  private readonly tableSize: number;
  readonly lastSymbol: number;
  private totalCount: number;
  private updateCycle: number;
  untilUpdate: number;

  /** Every field is set in one order on both paths, so that all models share one shape (the decoder's hot loop stays monomorphic). */
  constructor(readonly symbols: number, template?: SymbolModel) {
    let tableSize = 0, tableShift = 0;
    if (symbols > 16) {
      let bits = 3;
      while (symbols > 1 << (bits + 2)) bits++;
      tableSize = 1 << bits;
      tableShift = DM_LENGTH_SHIFT - bits;
    }
    // A fresh model's state is the same every time: copied from one made before (chunks make thousands).
    this.distribution = template ? template.distribution.slice() : new Uint32Array(symbols);
    this.counts = template ? template.counts.slice() : new Uint32Array(symbols).fill(1);
    this.decoderTable = template ? (template.decoderTable ? template.decoderTable.slice() : null) : symbols > 16 ? new Uint32Array(tableSize + 2) : null;
    this.tableShift = tableShift;
    this.tableSize = tableSize;
    this.lastSymbol = symbols - 1;
    this.totalCount = template ? template.totalCount : 0;
    this.updateCycle = template ? template.updateCycle : symbols;
    this.untilUpdate = template ? template.untilUpdate : 0;
    if (!template) {
      this.update();
      this.untilUpdate = this.updateCycle = (symbols + 6) >> 1;
    }
  }

  private static readonly fresh = new Map<number, SymbolModel>();

  /** A fresh model of `symbols` symbols, copied from a cached one. */
  static of(symbols: number): SymbolModel {
    let template = SymbolModel.fresh.get(symbols);
    if (!template) SymbolModel.fresh.set(symbols, (template = new SymbolModel(symbols)));
    return new SymbolModel(symbols, template);
  }

  count(symbol: number): void {
    this.counts[symbol]++;
    if (--this.untilUpdate === 0) this.update();
  }

  private update(): void {
    if ((this.totalCount += this.updateCycle) > DM_MAX_COUNT) {
      this.totalCount = 0;
      for (let n = 0; n < this.symbols; n++) this.totalCount += (this.counts[n] = (this.counts[n] + 1) >>> 1);
    }
    const scale = Math.floor(0x80000000 / this.totalCount);
    let sum = 0, s = 0;
    for (let k = 0; k < this.symbols; k++) {
      this.distribution[k] = (scale * sum) >>> (31 - DM_LENGTH_SHIFT);
      sum += this.counts[k];
      if (this.decoderTable) {
        const w = this.distribution[k] >>> this.tableShift;
        while (s < w) this.decoderTable[++s] = k - 1;
      }
    }
    if (this.decoderTable) {
      this.decoderTable[0] = 0;
      while (s <= this.tableSize) this.decoderTable[++s] = this.symbols - 1;
    }
    this.updateCycle = (5 * this.updateCycle) >>> 2;
    const maxCycle = (this.symbols + 6) << 3;
    if (this.updateCycle > maxCycle) this.updateCycle = maxCycle;
    this.untilUpdate = this.updateCycle;
  }
}

/** An adaptive model of one bit. */
export class BitModel {
  bit0Count = 1;
  private bitCount = 2;
  bit0Probability = 1 << (BM_LENGTH_SHIFT - 1);
  private updateCycle = 4;
  untilUpdate = 4;

  update(): void {
    if ((this.bitCount += this.updateCycle) > BM_MAX_COUNT) {
      this.bitCount = (this.bitCount + 1) >>> 1;
      this.bit0Count = (this.bit0Count + 1) >>> 1;
      if (this.bit0Count === this.bitCount) this.bitCount++;
    }
    const scale = Math.floor(0x80000000 / this.bitCount);
    this.bit0Probability = (this.bit0Count * scale) >>> (31 - BM_LENGTH_SHIFT);
    this.updateCycle = Math.min(64, (5 * this.updateCycle) >>> 2);
    this.untilUpdate = this.updateCycle;
  }
}

export class ArithmeticDecoder {
  private value: number;
  private length = 0xffffffff;
  private at: number;
  /** Bytes asked for past the end of the input: the data was cut short. */
  overrun = 0;

  constructor(private readonly bytes: Uint8Array, start = 0) {
    this.at = start;
    this.value = 0;
    for (let i = 0; i < 4; i++) this.value = ((this.value << 8) | this.nextByte()) >>> 0;
  }

  /** Where the decoder has read to. */
  get position(): number {
    return this.at;
  }

  private nextByte(): number {
    if (this.at < this.bytes.length) return this.bytes[this.at++];
    this.overrun++;
    return 0;
  }

  private renormalize(): void {
    do {
      this.value = ((this.value << 8) | this.nextByte()) >>> 0;
      this.length = (this.length << 8) >>> 0;
    } while (this.length < MIN_LENGTH);
  }

  decodeSymbol(m: SymbolModel): number {
    let symbol: number, x: number, y = this.length;
    if (m.decoderTable) {
      this.length = this.length >>> DM_LENGTH_SHIFT;
      const dv = Math.floor(this.value / this.length);
      const t = dv >>> m.tableShift;
      symbol = m.decoderTable[t];
      let n = m.decoderTable[t + 1] + 1;
      while (n > symbol + 1) {
        const k = (symbol + n) >>> 1;
        if (m.distribution[k] > dv) n = k;
        else symbol = k;
      }
      x = m.distribution[symbol] * this.length;
      if (symbol !== m.lastSymbol) y = m.distribution[symbol + 1] * this.length;
    } else {
      x = symbol = 0;
      this.length = this.length >>> DM_LENGTH_SHIFT;
      let n = m.symbols;
      let k = n >>> 1;
      do {
        const z = this.length * m.distribution[k];
        if (z > this.value) {
          n = k;
          y = z;
        } else {
          symbol = k;
          x = z;
        }
      } while ((k = (symbol + n) >>> 1) !== symbol);
    }
    this.value -= x;
    this.length = y - x;
    if (this.length < MIN_LENGTH) this.renormalize();
    m.count(symbol);
    return symbol;
  }

  decodeBit(m: BitModel): number {
    const x = m.bit0Probability * (this.length >>> BM_LENGTH_SHIFT);
    const bit = this.value >= x ? 1 : 0;
    if (bit === 0) {
      this.length = x;
      m.bit0Count++;
    } else {
      this.value -= x;
      this.length -= x;
    }
    if (this.length < MIN_LENGTH) this.renormalize();
    if (--m.untilUpdate === 0) m.update();
    return bit;
  }

  /** 32 raw bits, low half first. */
  readInt(): number {
    const low = this.readBits(16);
    return ((this.readBits(16) << 16) | low) >>> 0;
  }

  readBits(bits: number): number {
    if (bits > 19) {
      const low = this.readBits(16);
      return ((this.readBits(bits - 16) << 16) | low) >>> 0;
    }
    this.length = this.length >>> bits;
    const symbol = Math.floor(this.value / this.length);
    this.value -= this.length * symbol;
    if (this.length < MIN_LENGTH) this.renormalize();
    return symbol;
  }
}

/**
 * LASzip's integer decompressor: a value is its prediction plus a corrector, coded as the corrector's bit
 * length k (one model per context) and then its position among the 2^k correctors of that length (exactly
 * for k ≤ 8, its top 8 bits modelled and the rest raw above that). Values of fewer than 32 bits wrap around
 * their range; 32-bit values wrap as int32.
 */
export class IntegerDecompressor {
  private readonly bits: (SymbolModel | undefined)[];
  private readonly corrector0 = new BitModel();
  /** Made on first use: a fresh model is the same whenever it is made, and most bit lengths never occur. */
  private readonly correctors: (SymbolModel | undefined)[];
  private readonly range: number;
  private readonly min: number;
  /** The bit length of the last corrector decoded (LASzip's getK), which some items use as a context. */
  k = 0;
  private static readonly BITS_HIGH = 8;

  constructor(private readonly decoder: ArithmeticDecoder, contexts: number, private readonly width = 32) {
    this.range = width < 32 ? 2 ** width : 0;
    this.min = width < 32 ? -(2 ** (width - 1)) : -0x80000000;
    this.bits = new Array<SymbolModel | undefined>(contexts).fill(undefined);
    this.correctors = new Array<SymbolModel | undefined>(width + 1).fill(undefined);
  }

  decompress(prediction: number, context: number): number {
    const real = prediction + this.corrector((this.bits[context] ??= SymbolModel.of(this.width + 1)));
    if (this.range === 0) return real | 0;
    return real < 0 ? real + this.range : real >= this.range ? real - this.range : real;
  }

  private corrector(model: SymbolModel): number {
    const k = (this.k = this.decoder.decodeSymbol(model));
    if (k === 0) return this.decoder.decodeBit(this.corrector0);
    if (k >= 32) return this.min;
    const corrector = (this.correctors[k] ??= SymbolModel.of(1 << Math.min(k, IntegerDecompressor.BITS_HIGH)));
    let c = this.decoder.decodeSymbol(corrector);
    if (k > IntegerDecompressor.BITS_HIGH) {
      const low = k - IntegerDecompressor.BITS_HIGH;
      c = c * POW2[low] + this.decoder.readBits(low);
    }
    // c in [0, 2^(k-1)) stands for the negative correctors, c in [2^(k-1), 2^k) for the positive ones.
    return c >= POW2[k - 1] ? c + 1 : c - (POW2[k] - 1);
  }
}
