// E57's paged physical layout: the file is pages of 1024 bytes, each 1020 bytes of data ("logical" bytes)
// and a CRC-32C of them, stored big-endian in the last 4. Every offset a reader follows is logical inside
// this layer; the file header and the XML name physical offsets, converted here. Pages are read from the
// file in runs (never the whole file), and every page is checked the moment it is read: a bad CRC is an
// error naming the page's byte offset.
import { InputError } from '../core/errors.js';
import { crc32c } from './e57-crc.js';
import { readFully } from './input-file.js';

export const PAGE_SIZE = 1024;
export const PAGE_DATA = PAGE_SIZE - 4;

/** Pages read from the file at a time (1 MiB), unless one read asks for more. */
const RUN_PAGES = 1024;

/** The logical offset of physical offset `physical`, or -1 when it points into a page's CRC. */
export function logicalOffset(physical: number): number {
  const within = physical % PAGE_SIZE;
  return within >= PAGE_DATA ? -1 : Math.floor(physical / PAGE_SIZE) * PAGE_DATA + within;
}

/** The physical offset of logical offset `logical` (for error messages: where in the file a thing is). */
export function physicalOffset(logical: number): number {
  return Math.floor(logical / PAGE_DATA) * PAGE_SIZE + (logical % PAGE_DATA);
}

/**
 * Logical bytes of an E57 file open as `fd`, of `size` bytes (a whole number of pages): read a run of pages
 * at a time, each CRC-checked, their data bytes gathered into one buffer that the callers read views of.
 */
export class E57Pages {
  /** Logical bytes in the file. */
  readonly logicalSize: number;
  private raw = new Uint8Array(0);
  private data = new Uint8Array(0);
  /** The logical range held in `data`. */
  private start = 0;
  private end = 0;

  constructor(private readonly fd: number, private readonly file: string, private readonly size: number) {
    this.logicalSize = Math.floor(size / PAGE_SIZE) * PAGE_DATA;
  }

  /**
   * `length` logical bytes from logical offset `at`, as a view valid until the next call. `what` names the
   * thing read, for the error when the file ends first.
   */
  read(at: number, length: number, what: string): Uint8Array {
    if (at + length > this.logicalSize) {
      throw new InputError(this.file, { byte: Math.min(physicalOffset(at), this.size) },
        `file is truncated: ${what} (${length} bytes at byte ${physicalOffset(at)}) runs past the file's end (${this.size} bytes)`);
    }
    if (at < this.start || at + length > this.end) this.load(at, length);
    return this.data.subarray(at - this.start, at - this.start + length);
  }

  /** Reads and checks the pages that hold logical [at, at + length), and at least a run of them. */
  private load(at: number, length: number): void {
    const firstPage = Math.floor(at / PAGE_DATA);
    const lastPage = Math.floor((at + length - 1) / PAGE_DATA);
    const pages = Math.min(Math.max(lastPage - firstPage + 1, RUN_PAGES), Math.floor(this.size / PAGE_SIZE) - firstPage);
    if (this.raw.length < pages * PAGE_SIZE) {
      this.raw = new Uint8Array(pages * PAGE_SIZE);
      this.data = new Uint8Array(pages * PAGE_DATA);
    }
    const got = readFully(this.fd, this.raw, 0, pages * PAGE_SIZE, firstPage * PAGE_SIZE);
    if (got < pages * PAGE_SIZE) {
      throw new InputError(this.file, { byte: firstPage * PAGE_SIZE + got }, 'file is truncated: it ended while it was read (was it changed meanwhile?)');
    }
    const raw = this.raw, data = this.data;
    for (let p = 0; p < pages; p++) {
      const base = p * PAGE_SIZE;
      const stored = ((raw[base + PAGE_DATA] << 24) | (raw[base + PAGE_DATA + 1] << 16) | (raw[base + PAGE_DATA + 2] << 8) | raw[base + PAGE_DATA + 3]) >>> 0;
      const computed = crc32c(raw, base, base + PAGE_DATA);
      if (stored !== computed) {
        const page = firstPage + p;
        throw new InputError(this.file, { byte: page * PAGE_SIZE },
          `page ${page} (bytes ${page * PAGE_SIZE} to ${page * PAGE_SIZE + PAGE_SIZE - 1}) fails its CRC-32C check: ` +
          `stored 0x${stored.toString(16).padStart(8, '0')}, computed 0x${computed.toString(16).padStart(8, '0')} (the file is damaged)`);
      }
      data.set(raw.subarray(base, base + PAGE_DATA), p * PAGE_DATA);
    }
    this.start = firstPage * PAGE_DATA;
    this.end = this.start + pages * PAGE_DATA;
  }
}
