// The text header of an NRRD or MetaImage file, line by line, from the file's bytes without decoding the binary data
// that may follow it: each line's text (latin1), its 1-based number, and the byte where the next line starts.

export interface HeaderLine {
  text: string;
  number: number;
  /** Byte offset just past this line's end (its LF, or CR LF). */
  next: number;
}

/** Longest header line read: a longer one means this is not a text header (or is corrupt). */
const MAX_LINE = 1 << 16;

/** Lines from byte 0, until the caller stops asking, the bytes end, or a line is over-long. */
export function* headerLines(bytes: Uint8Array): Generator<HeaderLine> {
  let start = 0;
  for (let number = 1; start < bytes.length; number++) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    if (end - start > MAX_LINE) return; // an over-long line: the caller reports the header as unfinished
    const textEnd = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
    const text = latin1(bytes.subarray(start, textEnd));
    start = Math.min(bytes.length, end + 1);
    yield { text, number, next: start };
  }
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let at = 0; at < bytes.length; at += 8192) text += String.fromCharCode(...bytes.subarray(at, Math.min(bytes.length, at + 8192)));
  return text;
}

/** Whitespace-separated numbers; undefined where one does not parse as a finite number. */
export function numbersIn(text: string): number[] | undefined {
  const words = text.trim().split(/\s+/).filter((w) => w !== '');
  const values = words.map(Number);
  return values.every((v, n) => Number.isFinite(v) && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(words[n])) ? values : undefined;
}

/** Whitespace-separated positive whole numbers (sizes), undefined where one is not. */
export function sizesIn(text: string): number[] | undefined {
  const values = numbersIn(text);
  return values && values.every((v) => Number.isInteger(v) && v >= 1 && v <= 2 ** 31 - 1) ? values : undefined;
}
