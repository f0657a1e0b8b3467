// A text file handed to the scanner in windows of whole lines, read straight from the file: how OFF, OBJ,
// ascii STL and ascii PLY files too large for one buffer (or any size when XHD_READ_PIECE_BYTES is set)
// are parsed without ever holding the file whole. Each window ends just after a line end, so a line that
// starts in a window also ends in it, and the scanner's within-line reads never see a cut; the bytes after
// the cut are carried to the front of the next window. A line longer than a window grows the window.
import { InputError } from '../core/errors.js';
import type { MoreLines } from './ascii-numbers.js';
import { readFully, withOpenFile } from './input-file.js';
import { pieceBytes } from './pieces.js';

const LF = 10, CR = 13;

/** The longest line accepted: a line this long is not geometry, and growing further would exhaust memory. */
export const LONGEST_LINE_BYTES = 256 << 20;

/** Runs `read` over the text of `path` (`size` bytes) from byte `start` on, in windows of whole lines. */
export function withLinePieces<T>(path: string, size: number, start: number, read: (more: LinePieces) => T): T {
  return withOpenFile(path, (fd) => read(new LinePieces(fd, path, size, start, pieceBytes())));
}

export class LinePieces implements MoreLines {
  private buffer: Buffer;
  /** Bytes held in the buffer: the window handed out last, then the carried bytes after its cut. */
  private filled = 0;
  /** End of the window handed out last. */
  private cut = 0;
  /** File offset of buffer[filled]: where the next read starts. */
  private position: number;

  /**
   * `fd` open on `file` of `size` bytes; windows start at byte `start` and hold about `piece` bytes.
   * `longestLine` caps a window grown for one line (tests lower it).
   */
  constructor(private readonly fd: number, private readonly file: string, private readonly size: number,
    start: number, piece: number, private readonly longestLine = LONGEST_LINE_BYTES) {
    this.position = start;
    this.buffer = Buffer.allocUnsafe(Math.max(64, Math.min(piece, size - start)));
  }

  /** File bytes after the window handed out last. */
  get bytesAfter(): number {
    return this.size - this.position + (this.filled - this.cut);
  }

  /** File offset of the window handed out last. */
  get windowStart(): number {
    return this.position - this.filled;
  }

  next(): Uint8Array | undefined {
    this.buffer.copyWithin(0, this.cut, this.filled);
    this.filled -= this.cut;
    this.cut = 0;
    for (;;) {
      const wanted = Math.min(this.buffer.length - this.filled, this.size - this.position);
      const got = wanted > 0 ? readFully(this.fd, this.buffer, this.filled, wanted, this.position) : 0;
      this.filled += got;
      this.position += got;
      // The file ends here, or shrank while it was read (then the parser says what is missing).
      const ended = this.position >= this.size || got < wanted;
      const end = ended ? this.filled : lastLineEnd(this.buffer, this.filled);
      if (end > 0) {
        this.cut = end;
        return this.buffer.subarray(0, end);
      }
      if (ended) return undefined;
      this.growForLongLine();
    }
  }

  /** No line end in a full buffer: the line in it is longer than a window. */
  private growForLongLine(): void {
    if (this.buffer.length >= this.longestLine) {
      throw new InputError(this.file, { byte: this.position - this.filled }, `a line longer than ${describeBytes(this.longestLine)} starts here: not a text geometry file`);
    }
    const grown = Buffer.allocUnsafe(Math.min(this.longestLine, 2 * this.buffer.length));
    this.buffer.copy(grown, 0, 0, this.filled);
    this.buffer = grown;
  }
}

/**
 * Length of bytes[0, filled) up to and including its last line end: a '\n', or a lone '\r' whose next byte
 * has been read (a '\r' in the last place may be the first half of a CRLF). 0 when there is none.
 */
function lastLineEnd(bytes: Buffer, filled: number): number {
  const held = bytes.subarray(0, filled);
  const lf = held.lastIndexOf(LF);
  const cr = filled > 1 ? held.lastIndexOf(CR, filled - 2) : -1;
  return Math.max(lf, cr) + 1;
}

function describeBytes(bytes: number): string {
  return bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : `${bytes} bytes`;
}
