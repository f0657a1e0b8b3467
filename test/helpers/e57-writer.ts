// A minimal E57 writer for the tests and the reader benchmark: scans with poses, names and GUIDs, cartesian
// or spherical coordinates in Integer, ScaledInteger or Float (single or double) fields, fields the reader
// must step over (intensity, colours), invalid states, data packets of a chosen number of records (so that
// integer values straddle packets), index and empty packets between them, and every page's CRC-32C. Its
// layout (where each section and packet lies) is returned, so that tests can damage exactly one thing.
import { crc32c } from '../../src/io/e57-crc.js';

export type E57FieldKind = 'integer' | 'scaled' | 'float32' | 'float64';

export interface E57FieldSpec {
  name: string;
  kind: E57FieldKind;
  /** Integer / ScaledInteger: the raw range (defaults: the int64 range, as in E57). */
  minimum?: bigint;
  maximum?: bigint;
  scale?: number;
  offset?: number;
  /** One value a record: raw integers for Integer / ScaledInteger (bigint or number), the floats for Float. */
  values: ArrayLike<number> | bigint[];
}

export interface E57ScanSpec {
  name?: string;
  guid?: string;
  pose?: { rotation: [number, number, number, number]; translation: [number, number, number] };
  fields: E57FieldSpec[];
  /** Records a data packet (default 1000). */
  packetRecords?: number;
  /** The recordCount written in the XML, instead of the true one (to make it lie). */
  recordCount?: number;
  /** Put an index packet and an empty packet before the data packets (readers skip both). */
  extraPackets?: boolean;
  /** Put the first field's whole bytestream in the first data packet (the other fields' spread evenly). */
  skewed?: boolean;
}

export interface E57Layout {
  bytes: Uint8Array;
  xmlPhysical: number;
  scans: { sectionPhysical: number; packets: number[] }[];
}

export const PAGE = 1024, PAGE_DATA = 1020;

export function physical(logical: number): number {
  return Math.floor(logical / PAGE_DATA) * PAGE + (logical % PAGE_DATA);
}

/** Recomputes the CRC of the page holding physical byte `at` (after a test changed a byte there on purpose). */
export function fixPageCrc(bytes: Uint8Array, at: number): void {
  const base = at - (at % PAGE);
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(base + PAGE_DATA, crc32c(bytes, base, base + PAGE_DATA), false);
}

const INT64_MIN = -(2n ** 63n), INT64_MAX = 2n ** 63n - 1n;

function bitsOf(f: E57FieldSpec): number {
  if (f.kind === 'float64') return 64;
  if (f.kind === 'float32') return 32;
  const range = (f.maximum ?? INT64_MAX) - (f.minimum ?? INT64_MIN);
  return range === 0n ? 0 : range.toString(2).length;
}

/** A field's whole bytestream: every record's value, packed little-endian from the lowest bit. */
function bytestream(f: E57FieldSpec, records: number): Uint8Array {
  const bits = bitsOf(f);
  const out = new Uint8Array(Math.ceil((records * bits) / 8) + 8);
  const view = new DataView(out.buffer);
  if (f.kind === 'float64') for (let i = 0; i < records; i++) view.setFloat64(8 * i, Number(f.values[i]), true);
  else if (f.kind === 'float32') for (let i = 0; i < records; i++) view.setFloat32(4 * i, Number(f.values[i]), true);
  else {
    const minimum = f.minimum ?? INT64_MIN;
    if (bits <= 32 && minimum >= BigInt(Number.MIN_SAFE_INTEGER) && typeof f.values[0] === 'number') {
      // Numbers, not BigInt, for narrow fields: the benchmark's files have millions of values.
      const low = Number(minimum), values = f.values as ArrayLike<number>;
      for (let i = 0, bit = 0; i < records; i++, bit += bits) {
        let raw = values[i] - low;
        if (!(raw >= 0 && raw < 2 ** bits)) throw new Error(`test writer: ${f.name} value ${values[i]} outside its range`);
        for (let b = bit; raw > 0; b += 8 - (b & 7)) {
          const take = 8 - (b & 7);
          out[b >>> 3] |= (raw % (1 << take)) << (b & 7);
          raw = Math.floor(raw / (1 << take));
        }
      }
      return out.subarray(0, Math.ceil((records * bits) / 8));
    }
    for (let i = 0, bit = 0; i < records; i++, bit += bits) {
      let raw = BigInt(f.values[i]) - minimum;
      if (raw < 0n || raw >= 1n << BigInt(Math.max(bits, 0))) {
        if (!(bits === 0 && raw === 0n)) throw new Error(`test writer: ${f.name} value ${f.values[i]} outside its range`);
      }
      for (let b = bit; raw > 0n; b += 8 - (b & 7)) {
        const take = 8 - (b & 7);
        out[b >>> 3] |= Number(raw & BigInt((1 << take) - 1)) << (b & 7);
        raw >>= BigInt(take);
      }
    }
  }
  return out.subarray(0, Math.ceil((records * bits) / 8));
}

/** Bytestreams cut into data packets: packet k takes, of each field, the bytes up to record k's end (rounded up). */
function packets(scan: E57ScanSpec, records: number): Uint8Array[] {
  const streams = scan.fields.map((f) => bytestream(f, records));
  const per = scan.packetRecords ?? 1000;
  const count = Math.max(1, Math.ceil(records / per));
  const taken = scan.fields.map(() => 0);
  const out: Uint8Array[] = [];
  for (let k = 0; k < count; k++) {
    const last = Math.min(records, (k + 1) * per);
    const buffers = scan.fields.map((f, i) => {
      const end = scan.skewed && i === 0 ? streams[i].length : k === count - 1 ? streams[i].length : Math.ceil((last * bitsOf(f)) / 8);
      const slice = streams[i].subarray(taken[i], Math.max(taken[i], end));
      taken[i] += slice.length;
      return slice;
    });
    const body = 6 + 2 * buffers.length + buffers.reduce((s, b) => s + b.length, 0);
    const length = Math.ceil(body / 4) * 4;
    if (length > 65536) throw new Error('test writer: packet over 64 KiB; use fewer packetRecords');
    const packet = new Uint8Array(length);
    const view = new DataView(packet.buffer);
    packet[0] = 1;
    view.setUint16(2, length - 1, true);
    view.setUint16(4, buffers.length, true);
    let at = 6 + 2 * buffers.length;
    buffers.forEach((b, i) => {
      view.setUint16(6 + 2 * i, b.length, true);
      packet.set(b, at);
      at += b.length;
    });
    out.push(packet);
  }
  return out;
}

function fieldXml(f: E57FieldSpec): string {
  if (f.kind === 'float64' || f.kind === 'float32') return `<${f.name} type="Float" precision="${f.kind === 'float32' ? 'single' : 'double'}"/>`;
  const range = `${f.minimum !== undefined ? ` minimum="${f.minimum}"` : ''}${f.maximum !== undefined ? ` maximum="${f.maximum}"` : ''}`;
  if (f.kind === 'integer') return `<${f.name} type="Integer"${range}/>`;
  return `<${f.name} type="ScaledInteger"${range} scale="${f.scale ?? 1}" offset="${f.offset ?? 0}"/>`;
}

function scanXml(scan: E57ScanSpec, records: number, sectionPhysical: number): string {
  const pose = scan.pose
    ? `<pose type="Structure"><rotation type="Structure">${['w', 'x', 'y', 'z'].map((k, i) => `<${k} type="Float">${scan.pose!.rotation[i]}</${k}>`).join('')}</rotation>` +
      `<translation type="Structure">${['x', 'y', 'z'].map((k, i) => `<${k} type="Float">${scan.pose!.translation[i]}</${k}>`).join('')}</translation></pose>`
    : '';
  return `<vectorChild type="Structure">
  ${scan.guid ? `<guid type="String"><![CDATA[${scan.guid}]]></guid>` : ''}
  ${scan.name ? `<name type="String"><![CDATA[${scan.name}]]></name>` : ''}
  ${pose}
  <points type="CompressedVector" fileOffset="${sectionPhysical}" recordCount="${scan.recordCount ?? records}">
    <prototype type="Structure">${scan.fields.map(fieldXml).join('')}</prototype>
    <codecs type="Vector" allowHeterogeneousChildren="1"/>
  </points>
</vectorChild>`;
}

/** Pads `logical` to a multiple of 4 bytes. */
function align4(parts: Uint8Array[], length: number): number {
  const pad = (4 - (length % 4)) % 4;
  if (pad > 0) parts.push(new Uint8Array(pad));
  return length + pad;
}

/** An E57 file of `scans`; `xml` may rewrite the XML before it is written (to make it lie). */
export function e57File(scans: E57ScanSpec[], options: { guid?: string; xml?: (xml: string) => string } = {}): E57Layout {
  const parts: Uint8Array[] = [new Uint8Array(48)];
  let logical = 48;
  const layout: E57Layout['scans'] = [];
  const xmlScans: string[] = [];
  for (const scan of scans) {
    const records = scan.fields.length > 0 ? scan.fields[0].values.length : 0;
    const data = packets(scan, records);
    if (scan.extraPackets) {
      const index = new Uint8Array(16);
      index[0] = 0;
      new DataView(index.buffer).setUint16(2, 15, true);
      const empty = new Uint8Array(8);
      empty[0] = 2;
      new DataView(empty.buffer).setUint16(2, 7, true);
      data.unshift(index, empty);
    }
    const start = logical;
    const header = new Uint8Array(32);
    const view = new DataView(header.buffer);
    const length = 32 + data.reduce((s, p) => s + p.length, 0);
    header[0] = 1;
    view.setBigUint64(8, BigInt(length), true);
    view.setBigUint64(16, BigInt(physical(start + 32)), true);
    parts.push(header, ...data);
    const packetsAt: number[] = [];
    let at = start + 32;
    for (const p of data) {
      packetsAt.push(physical(at));
      at += p.length;
    }
    logical = start + length;
    layout.push({ sectionPhysical: physical(start), packets: packetsAt });
    xmlScans.push(scanXml(scan, records, physical(start)));
  }
  let xml = `<?xml version="1.0" encoding="UTF-8"?>
<e57Root type="Structure" xmlns="http://www.astm.org/COMMIT/E57/2010-e57-v1.0">
  <formatName type="String"><![CDATA[ASTM E57 3D Imaging Data File]]></formatName>
  <guid type="String"><![CDATA[${options.guid ?? '{F0E1D2C3-0000-4000-8000-000000000057}'}]]></guid>
  <versionMajor type="Integer">1</versionMajor>
  <versionMinor type="Integer">0</versionMinor>
  <data3D type="Vector" allowHeterogeneousChildren="1">
${xmlScans.join('\n')}
  </data3D>
  <images2D type="Vector" allowHeterogeneousChildren="1"/>
</e57Root>
`;
  if (options.xml) xml = options.xml(xml);
  const xmlBytes = new TextEncoder().encode(xml);
  logical = align4(parts, logical);
  const xmlLogical = logical;
  parts.push(xmlBytes);
  logical += xmlBytes.length;
  const pages = Math.ceil(logical / PAGE_DATA);
  const bytes = new Uint8Array(pages * PAGE);
  // Logical bytes into pages, then each page's CRC (big-endian, as E57 files store it).
  let written = 0;
  for (const part of parts) {
    for (let from = 0; from < part.length;) {
      const take = Math.min(part.length - from, PAGE_DATA - (written % PAGE_DATA));
      bytes.set(part.subarray(from, from + take), physical(written));
      from += take;
      written += take;
    }
  }
  const header = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode('ASTM-E57'), 0);
  header.setUint32(8, 1, true);
  header.setUint32(12, 0, true);
  header.setBigUint64(16, BigInt(bytes.length), true);
  header.setBigUint64(24, BigInt(physical(xmlLogical)), true);
  header.setBigUint64(32, BigInt(xmlBytes.length), true);
  header.setBigUint64(40, BigInt(PAGE), true);
  for (let p = 0; p < pages; p++) header.setUint32(p * PAGE + PAGE_DATA, crc32c(bytes, p * PAGE, p * PAGE + PAGE_DATA), false);
  return { bytes, xmlPhysical: physical(xmlLogical), scans: layout };
}
