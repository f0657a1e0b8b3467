// The one random generator behind every sample: xoshiro128** (Blackman and Vigna), 32-bit arithmetic
// only, so it gives the same stream in every JavaScript engine and on every machine. Its 128-bit state
// is filled from the seed by SplitMix32 steps.

const MASK32 = 0xffffffff;

function splitmix32(state: number): [number, number] {
  const next = (state + 0x9e3779b9) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return [next, (z ^ (z >>> 16)) >>> 0];
}

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;

export class Random {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /** seed: any integer in [0, 2^53); its low and high 32-bit halves both feed the state. */
  constructor(seed: number) {
    let state = (seed & MASK32) >>> 0;
    const high = Math.floor(seed / 2 ** 32) >>> 0;
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      let word: number;
      [state, word] = splitmix32((state ^ (i === 1 ? high : 0)) >>> 0);
      words.push(word);
    }
    [this.s0, this.s1, this.s2, this.s3] = words;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1; // the all-zero state never leaves zero
  }

  /** A generator in a given state (four 32-bit words, not all zero): for checks against the reference. */
  static fromState(words: [number, number, number, number]): Random {
    const r = new Random(0);
    [r.s0, r.s1, r.s2, r.s3] = words.map((w) => w >>> 0);
    return r;
  }

  /** The four state words, e.g. for a native sampler that continues this stream. */
  get state(): Uint32Array {
    return Uint32Array.of(this.s0, this.s1, this.s2, this.s3);
  }

  /** Continues from four state words (not all zero), e.g. where a native sampler left the stream. */
  set state(words: Uint32Array) {
    [this.s0, this.s1, this.s2, this.s3] = words;
  }

  /** Next 32 random bits as an unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ t) >>> 0;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Fills out with the next out.length nextDouble() values: the same stream, with the state in locals. */
  fillDoubles(out: Float64Array): void {
    let s0 = this.s0, s1 = this.s1, s2 = this.s2, s3 = this.s3;
    for (let i = 0; i < out.length; i++) {
      let words = 0;
      for (let w = 0; w < 2; w++) {
        const result = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
        const t = (s1 << 9) >>> 0;
        s2 = (s2 ^ s0) >>> 0;
        s3 = (s3 ^ s1) >>> 0;
        s1 = (s1 ^ s2) >>> 0;
        s0 = (s0 ^ s3) >>> 0;
        s2 = (s2 ^ t) >>> 0;
        s3 = rotl(s3, 11);
        words = w === 0 ? (result >>> 5) * 67108864 : words + (result >>> 6);
      }
      out[i] = words / 9007199254740992;
    }
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
  }

  /** Uniform in [0, 1) with 53 random bits (two draws). */
  nextDouble(): number {
    const high = this.nextUint32() >>> 5; // 27 bits
    const low = this.nextUint32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }
}
