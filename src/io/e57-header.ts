// The 48-byte header at the start of an E57 file (ASTM E2807), checked against the file's size before
// anything is read from where it points: the signature, the version, the physical length, where the XML
// section lies, and the page size.
import { InputError } from '../core/errors.js';
import { logicalOffset, PAGE_SIZE } from './e57-pages.js';

export const E57_HEADER_BYTES = 48;
const SIGNATURE = 'ASTM-E57';

export interface E57Header {
  versionMajor: number;
  versionMinor: number;
  /** The XML section: its logical offset and length. */
  xmlOffset: number;
  xmlLength: number;
}

/** True when `bytes` start with the E57 signature. */
export function looksLikeE57(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && new TextDecoder('latin1').decode(bytes.subarray(0, 8)) === SIGNATURE;
}

/** A 64-bit field, refused (naming its byte) when no file could reach that far. */
function offset64(view: DataView, at: number, file: string, what: string): number {
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new InputError(file, { byte: at }, `${what} ${value} is beyond any file's size`);
  return Number(value);
}

/** Parses and checks the header of an E57 file of `size` bytes from its first bytes. */
export function parseE57Header(bytes: Uint8Array, size: number, file: string): E57Header {
  if (!looksLikeE57(bytes)) throw new InputError(file, { byte: 0 }, `not an E57 file: it does not start with '${SIGNATURE}'`);
  if (bytes.length < E57_HEADER_BYTES) throw new InputError(file, { byte: bytes.length }, `file is truncated: an E57 header takes ${E57_HEADER_BYTES} bytes, the file has ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const versionMajor = view.getUint32(8, true), versionMinor = view.getUint32(12, true);
  if (versionMajor !== 1) throw new InputError(file, { byte: 8 }, `E57 version ${versionMajor}.${versionMinor} is not supported (1.x is)`);
  const physicalLength = offset64(view, 16, file, 'file physical length');
  const xmlPhysical = offset64(view, 24, file, 'XML offset');
  const xmlLength = offset64(view, 32, file, 'XML length');
  const pageSize = offset64(view, 40, file, 'page size');
  if (pageSize !== PAGE_SIZE) throw new InputError(file, { byte: 40 }, `page size ${pageSize} is not E57's ${PAGE_SIZE} bytes`);
  if (physicalLength !== size) {
    const problem = physicalLength > size ? 'file is truncated: ' : '';
    throw new InputError(file, { byte: physicalLength > size ? size : 16 }, `${problem}the header gives the file's length as ${physicalLength} bytes, the file has ${size}`);
  }
  if (size % PAGE_SIZE !== 0) throw new InputError(file, { byte: size - (size % PAGE_SIZE) }, `file length ${size} is not a whole number of ${PAGE_SIZE}-byte pages (truncated?)`);
  const xmlOffset = logicalOffset(xmlPhysical);
  if (xmlPhysical >= size || xmlOffset < 0) {
    throw new InputError(file, { byte: 24 }, `XML offset ${xmlPhysical} lies ${xmlPhysical >= size ? `past the file's end (${size} bytes)` : "inside a page's checksum"}`);
  }
  if (xmlLength === 0 || xmlOffset + xmlLength > (size / PAGE_SIZE) * (PAGE_SIZE - 4)) {
    throw new InputError(file, { byte: 32 }, `XML length ${xmlLength} from byte ${xmlPhysical} ${xmlLength === 0 ? 'is empty' : `runs past the file's end (${size} bytes)`}`);
  }
  return { versionMajor, versionMinor, xmlOffset, xmlLength };
}
