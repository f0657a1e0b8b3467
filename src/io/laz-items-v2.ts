// The LASzip version-2 item decoders of point formats 0 to 3 and extra bytes (POINT10, GPSTIME11, RGB12, BYTE),
// written from the LAZ format's description. Each decodes one item of a point from the chunk's arithmetic
// stream, predicting from the previous point's, and writes it into the point's record bytes.
import { ArithmeticDecoder, IntegerDecompressor, SymbolModel } from './laz-arithmetic.js';

/** The context of a return (return number r of n): LASzip's two 8 × 8 tables, indexed [n][r]. */
const RETURN_MAP = [
  [15, 14, 13, 12, 11, 10, 9, 8],
  [14, 0, 1, 3, 6, 10, 10, 9],
  [13, 1, 2, 4, 7, 11, 11, 10],
  [12, 3, 4, 5, 8, 12, 12, 11],
  [11, 6, 7, 8, 9, 13, 13, 12],
  [10, 10, 11, 12, 13, 14, 14, 13],
  [9, 10, 11, 12, 13, 14, 15, 14],
  [8, 9, 10, 11, 12, 13, 14, 15],
].flat();
const RETURN_LEVEL = Array.from({ length: 64 }, (_, i) => Math.abs((i >> 3) - (i & 7)));

const fold = (n: number) => (n < 0 ? n + 256 : n > 255 ? n - 256 : n);
const clamp = (n: number) => (n < 0 ? 0 : n > 255 ? 255 : n);

/** The median of the last five values, kept as LASzip keeps it (a sorted window that alternates its side). */
class Median5 {
  private v = [0, 0, 0, 0, 0];
  private high = true;

  get(): number {
    return this.v[2];
  }

  add(x: number): void {
    const v = this.v;
    if (this.high) {
      if (x < v[2]) {
        v[4] = v[3];
        v[3] = v[2];
        if (x < v[0]) {
          v[2] = v[1];
          v[1] = v[0];
          v[0] = x;
        } else if (x < v[1]) {
          v[2] = v[1];
          v[1] = x;
        } else {
          v[2] = x;
        }
      } else {
        if (x < v[3]) {
          v[4] = v[3];
          v[3] = x;
        } else {
          v[4] = x;
        }
        this.high = false;
      }
    } else if (v[2] < x) {
      v[0] = v[1];
      v[1] = v[2];
      if (v[4] < x) {
        v[2] = v[3];
        v[3] = v[4];
        v[4] = x;
      } else if (v[3] < x) {
        v[2] = v[3];
        v[3] = x;
      } else {
        v[2] = x;
      }
    } else {
      if (v[1] < x) {
        v[0] = v[1];
        v[1] = x;
      } else {
        v[0] = x;
      }
      this.high = true;
    }
  }
}

export interface ItemDecoder {
  /** Takes the chunk's first point, stored raw, as the previous one. */
  init(view: DataView, at: number): void;
  /** Decodes the next point's item into view[at...]. */
  read(view: DataView, at: number): void;
}

/** POINT10 (20 bytes): X, Y, Z, intensity, return bits, class byte, scan angle, user data, point source. */
export class Point10Decoder implements ItemDecoder {
  private readonly changed = SymbolModel.of(64);
  private readonly intensity: IntegerDecompressor;
  private readonly scanAngle = [SymbolModel.of(256), SymbolModel.of(256)];
  private readonly pointSource: IntegerDecompressor;
  private readonly bitByte: (SymbolModel | undefined)[] = [];
  private readonly classification: (SymbolModel | undefined)[] = [];
  private readonly userData: (SymbolModel | undefined)[] = [];
  private readonly dx: IntegerDecompressor;
  private readonly dy: IntegerDecompressor;
  private readonly dz: IntegerDecompressor;
  private readonly xMedian = Array.from({ length: 16 }, () => new Median5());
  private readonly yMedian = Array.from({ length: 16 }, () => new Median5());
  private readonly lastIntensity = new Array<number>(16).fill(0);
  private readonly lastHeight = new Array<number>(8).fill(0);
  private x = 0; private y = 0; private z = 0;
  private i = 0; private bits = 0; private cls = 0; private angle = 0; private user = 0; private source = 0;

  constructor(private readonly decoder: ArithmeticDecoder) {
    this.intensity = new IntegerDecompressor(decoder, 4, 16);
    this.pointSource = new IntegerDecompressor(decoder, 1, 16);
    this.dx = new IntegerDecompressor(decoder, 2);
    this.dy = new IntegerDecompressor(decoder, 22);
    this.dz = new IntegerDecompressor(decoder, 20);
  }

  init(view: DataView, at: number): void {
    this.x = view.getInt32(at, true);
    this.y = view.getInt32(at + 4, true);
    this.z = view.getInt32(at + 8, true);
    this.i = view.getUint16(at + 12, true);
    this.bits = view.getUint8(at + 14);
    this.cls = view.getUint8(at + 15);
    this.angle = view.getUint8(at + 16);
    this.user = view.getUint8(at + 17);
    this.source = view.getUint16(at + 18, true);
  }

  private symbol(models: (SymbolModel | undefined)[], context: number): number {
    const model = (models[context] ??= SymbolModel.of(256));
    return this.decoder.decodeSymbol(model);
  }

  read(view: DataView, at: number): void {
    const d = this.decoder;
    const changed = d.decodeSymbol(this.changed);
    let m: number, l: number, n: number;
    if (changed !== 0) {
      if (changed & 32) this.bits = this.symbol(this.bitByte, this.bits);
      const r = this.bits & 7;
      n = (this.bits >> 3) & 7;
      m = RETURN_MAP[8 * n + r];
      l = RETURN_LEVEL[8 * n + r];
      if (changed & 16) {
        this.i = this.intensity.decompress(this.lastIntensity[m], m < 3 ? m : 3);
        this.lastIntensity[m] = this.i;
      } else {
        this.i = this.lastIntensity[m];
      }
      if (changed & 8) this.cls = this.symbol(this.classification, this.cls);
      if (changed & 4) this.angle = fold(d.decodeSymbol(this.scanAngle[(this.bits >> 6) & 1]) + this.angle);
      if (changed & 2) this.user = this.symbol(this.userData, this.user);
      if (changed & 1) this.source = this.pointSource.decompress(this.source, 0);
    } else {
      const r = this.bits & 7;
      n = (this.bits >> 3) & 7;
      m = RETURN_MAP[8 * n + r];
      l = RETURN_LEVEL[8 * n + r];
    }
    const single = n === 1 ? 1 : 0;
    const diffX = this.dx.decompress(this.xMedian[m].get(), single);
    this.x = (this.x + diffX) | 0;
    this.xMedian[m].add(diffX);
    let k = this.dx.k;
    const diffY = this.dy.decompress(this.yMedian[m].get(), single + (k < 20 ? k & ~1 : 20));
    this.y = (this.y + diffY) | 0;
    this.yMedian[m].add(diffY);
    k = (this.dx.k + this.dy.k) >> 1;
    this.z = this.dz.decompress(this.lastHeight[l], single + (k < 18 ? k & ~1 : 18));
    this.lastHeight[l] = this.z;
    view.setInt32(at, this.x, true);
    view.setInt32(at + 4, this.y, true);
    view.setInt32(at + 8, this.z, true);
    view.setUint16(at + 12, this.i, true);
    view.setUint8(at + 14, this.bits);
    view.setUint8(at + 15, this.cls);
    view.setUint8(at + 16, this.angle);
    view.setUint8(at + 17, this.user);
    view.setUint16(at + 18, this.source, true);
  }
}

const MULTI = 500;
const MULTI_MINUS = -10;
const MULTI_UNCHANGED = MULTI - MULTI_MINUS + 1;
const MULTI_CODE_FULL = MULTI - MULTI_MINUS + 2;
const MULTI_TOTAL = MULTI - MULTI_MINUS + 6;

/**
 * GPSTIME11 (a double, 8 bytes): coded as its 64-bit integer pattern, as differences from one of four
 * sequences (multiples of the sequence's last difference, or a new one, or a jump to another sequence).
 */
export class GpsTimeDecoder implements ItemDecoder {
  private readonly multi = SymbolModel.of(MULTI_TOTAL);
  private readonly zeroDiff = SymbolModel.of(6);
  private readonly ic: IntegerDecompressor;
  private last = 0;
  private next = 0;
  private readonly time = [0n, 0n, 0n, 0n];
  private readonly diff = [0, 0, 0, 0];
  private readonly extreme = [0, 0, 0, 0];

  constructor(private readonly decoder: ArithmeticDecoder) {
    this.ic = new IntegerDecompressor(decoder, 9);
  }

  init(view: DataView, at: number): void {
    this.time[0] = view.getBigInt64(at, true);
  }

  private full(): void {
    const d = this.decoder;
    this.next = (this.next + 1) & 3;
    const high = this.ic.decompress(Number(BigInt.asIntN(32, this.time[this.last] >> 32n)), 8);
    this.time[this.next] = BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(d.readInt()));
    this.last = this.next;
    this.diff[this.last] = 0;
    this.extreme[this.last] = 0;
  }

  private add(delta: number): void {
    this.time[this.last] = BigInt.asIntN(64, this.time[this.last] + BigInt(delta));
  }

  read(view: DataView, at: number): void {
    const d = this.decoder;
    // A switch to another sequence decodes the point again from there; damaged data must not switch forever.
    for (let switches = 0; ; switches++) {
      if (switches > 64) throw new Error('GPS time sequence switches without end: the compressed data is damaged');
      const last = this.last;
      if (this.diff[last] === 0) {
        const multi = d.decodeSymbol(this.zeroDiff);
        if (multi === 1) {
          this.diff[last] = this.ic.decompress(0, 0);
          this.add(this.diff[last]);
          this.extreme[last] = 0;
        } else if (multi === 2) {
          this.full();
        } else if (multi > 2) {
          this.last = (last + multi - 2) & 3;
          continue;
        }
      } else {
        let multi = d.decodeSymbol(this.multi);
        if (multi === 1) {
          this.add(this.ic.decompress(this.diff[last], 1));
          this.extreme[last] = 0;
        } else if (multi < MULTI_UNCHANGED) {
          let delta: number;
          if (multi === 0) {
            delta = this.ic.decompress(0, 7);
            this.countExtreme(delta);
          } else if (multi < MULTI) {
            delta = this.ic.decompress(Math.imul(multi, this.diff[last]), multi < 10 ? 2 : 3);
          } else if (multi === MULTI) {
            delta = this.ic.decompress(Math.imul(MULTI, this.diff[last]), 4);
            this.countExtreme(delta);
          } else {
            multi = MULTI - multi;
            if (multi > MULTI_MINUS) {
              delta = this.ic.decompress(Math.imul(multi, this.diff[last]), 5);
            } else {
              delta = this.ic.decompress(Math.imul(MULTI_MINUS, this.diff[last]), 6);
              this.countExtreme(delta);
            }
          }
          this.add(delta);
        } else if (multi === MULTI_CODE_FULL) {
          this.full();
        } else if (multi > MULTI_CODE_FULL) {
          this.last = (last + multi - MULTI_CODE_FULL) & 3;
          continue;
        }
      }
      break;
    }
    view.setBigInt64(at, this.time[this.last], true);
  }

  /** An outlying difference replaces the sequence's difference once it has come four times in a row. */
  private countExtreme(delta: number): void {
    if (++this.extreme[this.last] > 3) {
      this.diff[this.last] = delta;
      this.extreme[this.last] = 0;
    }
  }
}

/** RGB12 (three 16-bit channels): each byte coded when it changed, green and blue predicted from red's change. */
export class RgbDecoder implements ItemDecoder {
  private readonly used = SymbolModel.of(128);
  private readonly diffs = Array.from({ length: 6 }, () => SymbolModel.of(256));
  private r = 0; private g = 0; private b = 0;

  constructor(private readonly decoder: ArithmeticDecoder) {}

  init(view: DataView, at: number): void {
    this.r = view.getUint16(at, true);
    this.g = view.getUint16(at + 2, true);
    this.b = view.getUint16(at + 4, true);
  }

  read(view: DataView, at: number): void {
    const d = this.decoder, m = this.diffs;
    const sym = d.decodeSymbol(this.used);
    const lr = this.r, lg = this.g, lb = this.b;
    let r = sym & 1 ? fold(d.decodeSymbol(m[0]) + (lr & 255)) : lr & 255;
    r |= sym & 2 ? fold(d.decodeSymbol(m[1]) + (lr >> 8)) << 8 : lr & 0xff00;
    let g: number, b: number;
    if (sym & 64) {
      let diff = (r & 255) - (lr & 255);
      g = sym & 4 ? fold(d.decodeSymbol(m[2]) + clamp(diff + (lg & 255))) : lg & 255;
      if (sym & 16) {
        diff = Math.trunc((diff + ((g & 255) - (lg & 255))) / 2);
        b = fold(d.decodeSymbol(m[4]) + clamp(diff + (lb & 255)));
      } else {
        b = lb & 255;
      }
      diff = (r >> 8) - (lr >> 8);
      g |= sym & 8 ? fold(d.decodeSymbol(m[3]) + clamp(diff + (lg >> 8))) << 8 : lg & 0xff00;
      if (sym & 32) {
        diff = Math.trunc((diff + ((g >> 8) - (lg >> 8))) / 2);
        b |= fold(d.decodeSymbol(m[5]) + clamp(diff + (lb >> 8))) << 8;
      } else {
        b |= lb & 0xff00;
      }
    } else {
      g = r;
      b = r;
    }
    this.r = r;
    this.g = g;
    this.b = b;
    view.setUint16(at, r, true);
    view.setUint16(at + 2, g, true);
    view.setUint16(at + 4, b, true);
  }
}

/** BYTE (extra bytes): each byte's difference from the previous point's, one model a byte. */
export class BytesDecoder implements ItemDecoder {
  private readonly models: SymbolModel[];
  private readonly last: Uint8Array;

  constructor(private readonly decoder: ArithmeticDecoder, size: number) {
    this.models = Array.from({ length: size }, () => SymbolModel.of(256));
    this.last = new Uint8Array(size);
  }

  init(view: DataView, at: number): void {
    for (let i = 0; i < this.last.length; i++) this.last[i] = view.getUint8(at + i);
  }

  read(view: DataView, at: number): void {
    for (let i = 0; i < this.last.length; i++) {
      this.last[i] = fold(this.last[i] + this.decoder.decodeSymbol(this.models[i]));
      view.setUint8(at + i, this.last[i]);
    }
  }
}
