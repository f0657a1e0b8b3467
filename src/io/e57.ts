// E57 files (ASTM E2807): the header (e57-header.ts), the paged, CRC-checked layout (e57-pages.ts), the XML
// section that describes the scans (e57-xml.ts, e57-scans.ts), and each scan's points (e57-points.ts). Every
// scan is read by default, in the file's order, each moved by its pose into the file's frame; --scan N (from
// 0) reads one. Read page run by page run from the file, never whole; coordinates are doubles. Each scan's
// points are decoded on every core by the native reader (e57-native.ts) where the library is built.
import { InputError, UsageError } from '../core/errors.js';
import { plural } from './build.js';
import { allocatePositions } from './allocate-positions.js';
import { E57_HEADER_BYTES, parseE57Header } from './e57-header.js';
import { E57Pages, PAGE_SIZE, physicalOffset } from './e57-pages.js';
import { readSectionNatively } from './e57-native.js';
import { decodeSection, openSection } from './e57-points.js';
import { E57XmlError, e57Document, type E57Document, type E57Scan } from './e57-scans.js';
import { parseXml, XmlSyntaxError } from './e57-xml.js';
import { finishGeometry } from './build.js';
import type { Bounds, Geometry, ReadOptions } from './geometry.js';
import { withOpenFile } from './input-file.js';
import { nativeReader } from './native-reader.js';

/** The largest XML section read (real ones are kilobytes; a scan takes about 2 KiB of XML). */
const MAX_XML = 256 * 1024 ** 2;

export type { E57Summary } from './e57-summary.js';

function document(pages: E57Pages, path: string, xmlOffset: number, xmlLength: number): E57Document {
  const at = physicalOffset(xmlOffset);
  if (xmlLength > MAX_XML) throw new InputError(path, { byte: 32 }, `XML section of ${xmlLength} bytes is over the ${MAX_XML / 1024 ** 2} MiB read`);
  const text = new TextDecoder('utf-8').decode(pages.read(xmlOffset, xmlLength, 'the XML section'));
  try {
    return e57Document(parseXml(text));
  } catch (error) {
    if (error instanceof XmlSyntaxError || error instanceof E57XmlError) {
      throw new InputError(path, { byte: at }, `XML section${error.line > 0 ? `, line ${error.line}` : ''}: ${error.message}`);
    }
    throw error;
  }
}

/** The scans --scan picks: one, checked against the file's range, or all of them. */
function pickScans(doc: E57Document, path: string, scan: number | undefined): E57Scan[] {
  if (scan === undefined) return doc.scans;
  const n = doc.scans.length;
  if (scan >= n) {
    throw new UsageError(`--scan ${scan}: ${path} has ${plural(n, 'scan')}${n > 0 ? `, numbered from 0 to ${n - 1}` : ''}`);
  }
  return [doc.scans[scan]];
}

/** Reads an E57 file of `size` bytes. */
export function readE57File(path: string, size: number, options: ReadOptions): Geometry {
  if (size < PAGE_SIZE) throw new InputError(path, { byte: size }, `file is truncated: an E57 file is whole ${PAGE_SIZE}-byte pages, and this has ${size} bytes`);
  return withOpenFile(path, (fd) => {
    const pages = new E57Pages(fd, path, size);
    const header = parseE57Header(pages.read(0, E57_HEADER_BYTES, 'the header').slice(), size, path);
    const doc = document(pages, path, header.xmlOffset, header.xmlLength);
    const scan = options.filters?.scan;
    const picked = pickScans(doc, path, scan);
    const sections = picked.map((s) => openSection(pages, path, s));
    const total = sections.reduce((sum, s) => sum + s.scan.records, 0);
    const positions = allocatePositions(total, path);
    const read = new Map<number, { points: number; invalid: number; bounds: Bounds | null }>();
    const reader = nativeReader();
    let at = 0, invalid = 0;
    const bounds: Bounds = { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
    for (const section of sections) {
      // Natively where the library is built; in TypeScript where it is not, or where it found a problem to name.
      const tally = (reader ? readSectionNatively(reader, path, section, positions, at, options.threads) : undefined) ?? decodeSection(pages, path, section, positions, at);
      read.set(section.scan.index, { points: tally.kept, invalid: tally.invalid, bounds: tally.bounds });
      if (tally.bounds) {
        for (let k = 0; k < 3; k++) {
          bounds.min[k] = Math.min(bounds.min[k], tally.bounds.min[k]);
          bounds.max[k] = Math.max(bounds.max[k], tally.bounds.max[k]);
        }
      }
      at += tally.kept;
      invalid += tally.invalid;
    }
    const kept = at === total ? positions : positions.slice(0, 3 * at);
    const notes: string[] = [];
    if (scan !== undefined) notes.push(`scan ${scan} of ${doc.scans.length} (scans are numbered from 0)`);
    else if (doc.scans.length > 1) notes.push(`${doc.scans.length} scans read, each placed by its pose`);
    if (invalid > 0) notes.push(`${plural(invalid, 'record')} marked invalid (cartesian/sphericalInvalidState not 0) skipped`);
    const geometry = finishGeometry({ positions: kept, dims: 3, format: 'e57', notes, bounds });
    geometry.e57 = {
      version: `${header.versionMajor}.${header.versionMinor}`,
      guid: doc.guid,
      selected: scan ?? null,
      scans: doc.scans.map((s) => ({
        index: s.index, name: s.name, guid: s.guid, records: s.records, coordinates: s.coordinates, pose: s.pose,
        points: read.get(s.index)?.points ?? null, invalid: read.get(s.index)?.invalid ?? null, bounds: read.get(s.index)?.bounds ?? null,
      })),
    };
    return geometry;
  });
}
