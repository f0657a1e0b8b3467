// Deciding a file's format: first from its extension, else from its first bytes.
import type { FileFormat } from './geometry.js';
import { looksLikeDicom } from './dicom-seg.js';
import { looksLikeE57 } from './e57-header.js';
import { looksLikeLas } from './las-header.js';
import { looksLikeMetaImage } from './metaimage.js';
import { looksLikeNrrd } from './nrrd.js';
import { looksLikeOff } from './off.js';
import { looksLikePcd } from './pcd-header.js';
import { hasBinaryStlSize, looksLikeAsciiStl } from './stl.js';

export { formatFromExtension } from './format-names.js';

const OBJ_STATEMENTS = new Set(['v', 'vn', 'vt', 'vp', 'f', 'o', 'g', 's', 'l', 'p', 'usemtl', 'mtllib']);
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$|^[+-]?(?:nan|inf|infinity)$/i;

/** The first few lines that are neither blank nor '#' comments, as strings (for sniffing only). */
function firstContentLines(bytes: Uint8Array, wanted: number): string[] {
  const text = new TextDecoder('latin1').decode(bytes.subarray(0, 8192));
  // Any line end, a lone CR included (classic Mac files), as the readers themselves split lines.
  const lines = text.split(/\r\n|\n|\r/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  return lines.slice(0, wanted);
}

function isNumericRow(line: string | undefined): boolean {
  if (line === undefined) return false;
  const fields = line.replace(/#.*/, '').split(/[\s,]+/).filter((f) => f !== '');
  return fields.length >= 2 && fields.every((f) => NUMBER.test(f));
}

/** The format the content looks like, or undefined; `size` is the file's, when `bytes` holds only its start. */
export function sniffFormat(bytes: Uint8Array, size = bytes.length): FileFormat | undefined {
  // LAZ sets the top bit of the point format byte (104) to keep LAS readers away from its compressed points.
  if (looksLikeLas(bytes)) return bytes.length > 104 && (bytes[104] & 0x80) !== 0 ? 'laz' : 'las';
  if (looksLikeE57(bytes)) return 'e57';
  if (looksLikeDicom(bytes)) return 'dicom-seg'; // "DICM" after a 128-byte preamble (PS3.10), read as a segmentation
  if (looksLikePcd(bytes)) return 'pcd'; // before the binary test: a binary PCD body follows its text header
  if (looksLikeNrrd(bytes)) return 'nrrd'; // NRRD and MetaImage likewise: a text header, then binary voxels
  if (looksLikeMetaImage(bytes)) return 'metaimage';
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 5));
  if (head.startsWith('ply\n') || head.startsWith('ply\r')) return 'ply'; // LF, CRLF or CR line ends
  if (hasBinaryStlSize(bytes, size)) return 'stl';
  if (bytes.subarray(0, 1024).includes(0)) return undefined; // binary, and not a kind we know
  if (looksLikeOff(bytes)) return 'off';
  if (looksLikeAsciiStl(bytes)) return 'stl';
  const lines = firstContentLines(bytes, 50);
  const startsLikeObj = lines.length > 0 && OBJ_STATEMENTS.has(lines[0].split(/\s+/)[0]);
  if (startsLikeObj && lines.some((line) => /^v\s/.test(line))) return 'obj';
  if (isNumericRow(lines[0]) || isNumericRow(lines[1])) {
    const dataLine = isNumericRow(lines[0]) ? lines[0] : lines[1];
    return dataLine.includes(',') ? 'csv' : 'xyz';
  }
  return undefined;
}
