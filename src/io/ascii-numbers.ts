// Byte-level scanner for the text formats: reads numbers straight out of the file's bytes, with no
// string per line or per token, and keeps the 1-based line number for error messages.
//
// A line ends at '\n' (after an optional '\r') or at a '\r' not followed by '\n': classic Mac files end
// their lines with a lone CR, and reading such a file as one long line silently drops every row after
// the first. So a lone CR is a line end everywhere (rows, comments, line numbers), never inline space.
import { InputError } from '../core/errors.js';

const TAB = 9, LF = 10, VT = 11, FF = 12, CR = 13, SPACE = 32;
const HASH = 35, PLUS = 43, COMMA = 44, MINUS = 45, DOT = 46, SLASH = 47;
const ZERO = 48;

// 10^0 .. 10^22 are exact in a double, so m * 10^k or m / 10^k with an exact integer m (≤ 2^53)
// is a single IEEE operation and therefore correctly rounded: the same double Number(text) gives.
const EXACT_POWERS_OF_TEN: Float64Array = (() => {
  const powers = new Float64Array(23);
  let p = 1;
  for (let i = 0; i < powers.length; i++, p *= 10) powers[i] = p;
  return powers;
})();

const latin1 = new TextDecoder('latin1');
const utf8 = new TextEncoder();

/** Bytes that may end a number token: whitespace, the field separators ',' and '/', and '#'. */
export function isTokenEnd(byte: number): boolean {
  return byte === SPACE || byte === COMMA || (byte >= TAB && byte <= CR) || byte === SLASH || byte === HASH;
}

function lower(byte: number): number {
  return byte | 0x20;
}

/**
 * Where a scanner gets more text once it has read its bytes to the end (line-pieces.ts): windows of whole
 * lines, so that no line is ever cut between two of them.
 */
export interface MoreLines {
  /** The next window, or undefined when the text has ended. */
  next(): Uint8Array | undefined;
  /** How many bytes of text follow the window handed out last. */
  readonly bytesAfter: number;
}

export class AsciiScanner {
  /** Next byte to read. */
  pos: number;
  /** 1-based line of `pos`. */
  line: number;
  /** The text, or the window of it being read (then only until skipToToken moves to the next one). */
  bytes: Uint8Array;
  readonly file: string;
  /** Byte that starts a comment running to the end of the line, or -1 when the format has none. */
  private readonly commentByte: number;
  // The next LF and CR at or after some position, kept so that finding line ends costs one pass over the
  // file however it is cut into lines (a fresh search per line would rescan a CR-only file to its end).
  private nextLf: NextByte;
  private nextCr: NextByte;
  private readonly more?: MoreLines;

  constructor(bytes: Uint8Array, file: string, options: { start?: number; line?: number; comments?: boolean; more?: MoreLines } = {}) {
    this.bytes = bytes;
    this.file = file;
    this.pos = options.start ?? 0;
    this.line = options.line ?? 1;
    this.commentByte = options.comments === false ? -1 : HASH;
    this.nextLf = new NextByte(bytes, LF);
    this.nextCr = new NextByte(bytes, CR);
    this.more = options.more;
  }

  /** A scanner over text that arrives in windows of whole lines, starting on line `line`. */
  static overPieces(more: MoreLines, file: string, options: { line?: number; comments?: boolean } = {}): AsciiScanner {
    return new AsciiScanner(more.next() ?? new Uint8Array(0), file, { ...options, more });
  }

  /** Bytes of text from `pos` to the end, in this window and those still to come. */
  get bytesLeft(): number {
    return this.bytes.length - this.pos + (this.more?.bytesAfter ?? 0);
  }

  /**
   * Index of the byte that ends the line holding `from`: its '\n', or a lone '\r' (one not followed by
   * '\n'); bytes.length when the data ends first.
   */
  lineEnd(from: number): number {
    const b = this.bytes, n = b.length;
    const lf = this.nextLf.from(from);
    const nl = lf < 0 ? n : lf;
    for (let cr = this.nextCr.from(from); cr >= 0 && cr < nl; cr = this.nextCr.from(cr + 1)) {
      if (cr + 1 >= n || b[cr + 1] !== LF) return cr;
    }
    return nl;
  }

  get atEnd(): boolean {
    return this.pos >= this.bytes.length;
  }

  /** The byte at `pos`, or -1 at the end. */
  peek(): number {
    return this.pos < this.bytes.length ? this.bytes[this.pos] : -1;
  }

  /** Skips spaces, tabs and the CR of a CRLF without leaving the line (a lone CR ends it). */
  skipInlineSpace(): void {
    const b = this.bytes, n = b.length;
    let p = this.pos;
    while (p < n) {
      const c = b[p];
      if (c === CR ? p + 1 < n && b[p + 1] !== LF : c !== SPACE && c !== TAB && c !== VT && c !== FF) break;
      p++;
    }
    this.pos = p;
  }

  /** After skipping inline space: true at a newline (a lone CR included), a comment, or the end of the data. */
  atLineEnd(): boolean {
    this.skipInlineSpace();
    if (this.pos >= this.bytes.length) return true;
    const c = this.bytes[this.pos];
    return c === LF || c === CR || c === this.commentByte;
  }

  /** Moves to the start of the next line, ignoring whatever is left on this one. */
  skipRestOfLine(): void {
    const end = this.lineEnd(this.pos);
    if (end >= this.bytes.length) {
      this.pos = this.bytes.length;
    } else {
      this.pos = end + 1;
      this.line++;
    }
  }

  /**
   * Skips whitespace, blank lines and comments; returns false when the data ends first. This is where a
   * scanner over pieces moves to the next window: only between lines, which no window cuts.
   */
  skipToToken(): boolean {
    for (;;) {
      const b = this.bytes, n = b.length, comment = this.commentByte;
      let p = this.pos;
      while (p < n) {
        const c = b[p];
        if (c === LF || (c === CR && (p + 1 >= n || b[p + 1] !== LF))) {
          this.line++;
          p++;
        } else if (c === SPACE || c === TAB || c === CR || c === VT || c === FF) {
          p++;
        } else if (c === comment) {
          p = this.lineEnd(p);
        } else {
          break;
        }
      }
      this.pos = p;
      if (p < n) return true;
      if (!this.nextWindow()) return false;
    }
  }

  /** Moves to the next window of text; false when there is none. */
  private nextWindow(): boolean {
    const next = this.more?.next();
    if (next === undefined) return false;
    this.bytes = next;
    this.pos = 0;
    this.nextLf = new NextByte(next, LF);
    this.nextCr = new NextByte(next, CR);
    return true;
  }

  /** Skips the token at `pos` (any run of non-whitespace bytes up to a separator) and returns its length. */
  skipToken(): number {
    const b = this.bytes, n = b.length, start = this.pos;
    let p = start;
    while (p < n) {
      const c = b[p];
      if (c === SPACE || c === COMMA || (c >= TAB && c <= CR) || c === this.commentByte) break;
      p++;
    }
    this.pos = p;
    return p - start;
  }

  /** True (and consumes it) when the bytes at `pos` are `word` followed by a token end. */
  matchWord(word: Uint8Array, caseInsensitive = true): boolean {
    const b = this.bytes, p = this.pos, len = word.length;
    if (p + len > b.length) return false;
    for (let i = 0; i < len; i++) {
      const c = b[p + i];
      if (c !== word[i] && !(caseInsensitive && lower(c) === word[i])) return false;
    }
    if (p + len < b.length && !isTokenEnd(b[p + len])) return false;
    this.pos = p + len;
    return true;
  }

  /**
   * Reads a number (sign, digits, fraction, exponent, or nan/inf/infinity in any case) at `pos`.
   * The result always equals Number(text); nan and inf give NaN and ±Infinity so callers can say why.
   */
  number(): number {
    const b = this.bytes, n = b.length, start = this.pos;
    let p = start;
    let negative = false;
    if (p < n && (b[p] === MINUS || b[p] === PLUS)) {
      negative = b[p] === MINUS;
      p++;
    }
    let mantissa = 0;
    let scale = 0; // power of ten applied to the mantissa
    let digits = 0;
    let d = 0;
    while (p < n && (d = b[p] - ZERO) >= 0 && d <= 9) {
      mantissa = mantissa * 10 + d;
      digits++;
      p++;
    }
    if (p < n && b[p] === DOT) {
      p++;
      while (p < n && (d = b[p] - ZERO) >= 0 && d <= 9) {
        mantissa = mantissa * 10 + d;
        scale--;
        digits++;
        p++;
      }
    }
    if (digits === 0) return this.namedNumber(start, p, negative);
    if (p < n && (b[p] | 0x20) === 0x65 /* e */) {
      p++;
      let expNegative = false;
      if (p < n && (b[p] === MINUS || b[p] === PLUS)) {
        expNegative = b[p] === MINUS;
        p++;
      }
      let exponent = 0, expDigits = 0;
      while (p < n && (d = b[p] - ZERO) >= 0 && d <= 9) {
        if (exponent < 100000) exponent = exponent * 10 + d;
        expDigits++;
        p++;
      }
      if (expDigits === 0) this.failNotNumber(start);
      scale += expNegative ? -exponent : exponent;
    }
    if (p < n && !isTokenEnd(b[p])) this.failNotNumber(start);
    this.pos = p;
    let value: number;
    if (mantissa === 0) {
      value = 0;
    } else if (mantissa <= Number.MAX_SAFE_INTEGER && scale >= -22 && scale <= 22) {
      value = scale < 0 ? mantissa / EXACT_POWERS_OF_TEN[-scale] : mantissa * EXACT_POWERS_OF_TEN[scale];
    } else {
      // Too many digits or too large an exponent for the exact fast path: let the engine round it.
      return Number(latin1.decode(b.subarray(start, p)));
    }
    return negative ? -value : value;
  }

  /** Reads a whole number (optionally signed) at `pos`; anything else is an error naming the line. */
  integer(what = 'an integer'): number {
    const b = this.bytes, n = b.length, start = this.pos;
    let p = start;
    let negative = false;
    if (p < n && (b[p] === MINUS || b[p] === PLUS)) {
      negative = b[p] === MINUS;
      p++;
    }
    let value = 0, digits = 0, d = 0;
    while (p < n && (d = b[p] - ZERO) >= 0 && d <= 9) {
      value = value * 10 + d;
      digits++;
      p++;
    }
    if (digits === 0 || (p < n && !isTokenEnd(b[p]))) {
      this.fail(`expected ${what}, found ${this.describeToken(start)}`);
    }
    if (digits > 15) this.fail(`integer ${this.describeToken(start)} is too large`);
    this.pos = p;
    return negative ? -value : value;
  }

  /** The token starting at `start`, quoted and shortened for an error message. */
  describeToken(start: number): string {
    const b = this.bytes;
    if (start >= b.length) return 'end of file';
    let end = start;
    while (end < b.length && end - start < 24) {
      const c = b[end];
      if (c === SPACE || c === COMMA || (c >= TAB && c <= CR)) break;
      end++;
    }
    if (end === start) return b[start] === LF || b[start] === CR ? 'end of line' : quotedExcerpt(latin1.decode(b.subarray(start, start + 1)));
    return quotedExcerpt(latin1.decode(b.subarray(start, end)), end - start >= 24);
  }

  fail(detail: string): never {
    throw new InputError(this.file, { line: this.line }, detail);
  }

  private failNotNumber(start: number): never {
    this.fail(`expected a number, found ${this.describeToken(start)}`);
  }

  /** nan, inf and infinity (any case, inf/infinity optionally signed). */
  private namedNumber(start: number, p: number, negative: boolean): number {
    const b = this.bytes, n = b.length;
    let end = p;
    while (end < n && !isTokenEnd(b[end])) end++;
    const len = end - p;
    if (len === 3 || len === 8) {
      let word = '';
      for (let i = p; i < end; i++) word += String.fromCharCode(lower(b[i]));
      if (word === 'nan') {
        this.pos = end;
        return NaN;
      }
      if (word === 'inf' || word === 'infinity') {
        this.pos = end;
        return negative ? -Infinity : Infinity;
      }
    }
    this.failNotNumber(start);
  }
}

/** The first index at or after a position where one byte value occurs, remembered between calls. */
class NextByte {
  private searchedFrom = 0;
  /** -2: not searched yet; -1: none at or after searchedFrom. */
  private found = -2;

  constructor(private readonly bytes: Uint8Array, private readonly value: number) {}

  from(p: number): number {
    if (this.found === -2 || p < this.searchedFrom || (this.found >= 0 && this.found < p)) {
      this.found = this.bytes.indexOf(this.value, p);
      this.searchedFrom = p;
    }
    return this.found;
  }
}

/**
 * Input text quoted for an error message of one line: at most 24 characters shown (… when cut), each one outside
 * printable ASCII shown as '?' (a quoted CSV field may hold a line break).
 */
function quotedExcerpt(text: string, cut = text.length > 24): string {
  return `'${text.slice(0, 24).replace(/[^\x20-\x7e]/g, '?')}${cut ? '…' : ''}'`;
}

/** Parses one field the same way the scanner does (for fields that came through csv-parse). */
export function parseNumberText(text: string, file: string, line: number): number {
  const bytes = utf8.encode(text.trim());
  const scanner = new AsciiScanner(bytes, file, { line, comments: false });
  const value = scanner.number();
  if (!scanner.atEnd) scanner.fail(`expected a number, found ${quotedExcerpt(text)}`);
  return value;
}

/** ASCII bytes of a keyword, for AsciiScanner.matchWord. */
export function keyword(word: string): Uint8Array {
  return utf8.encode(word.toLowerCase());
}
