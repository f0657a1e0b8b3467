// The binary section of one E57 scan's points (a CompressedVector section): its 32-byte header, then data
// packets, each a 6-byte header, a length for every field's buffer, and the buffers. The fields xhd needs
// (three coordinates and their invalid state) are taken from their bytestreams record by record; the rest are
// stepped over. Every length and offset is checked against the section before it is followed, and the
// records a scan declares against the bytes its section holds before anything is allocated for them.
import { InputError } from '../core/errors.js';
import { badCoordinate, MAX_COORDINATE } from './build.js';
import { E57Bytestream } from './e57-bytestream.js';
import { logicalOffset, physicalOffset, type E57Pages } from './e57-pages.js';
import type { E57Scan } from './e57-scans.js';
import type { Bounds } from './geometry.js';

const SECTION_HEADER = 32;
const DATA_PACKET = 1, INDEX_PACKET = 0, EMPTY_PACKET = 2;

/** Where a scan's packets lie, in logical bytes. */
export interface E57Section {
  scan: E57Scan;
  dataStart: number;
  end: number;
}

/** Reads and checks a scan's section header, and that its section can hold the records it declares. */
export function openSection(pages: E57Pages, file: string, scan: E57Scan): E57Section {
  const start = logicalOffset(scan.sectionOffset);
  const where = `scan ${scan.index}'s points (fileOffset ${scan.sectionOffset}, XML line ${scan.line})`;
  if (start < 0 || start + SECTION_HEADER > pages.logicalSize) {
    throw new InputError(file, { byte: Math.min(scan.sectionOffset, physicalOffset(pages.logicalSize)) },
      `${where}: the offset lies ${start < 0 ? "inside a page's checksum" : "past the file's end"}`);
  }
  const header = pages.read(start, SECTION_HEADER, `${where}' section header`);
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (header[0] !== 1) throw new InputError(file, { byte: scan.sectionOffset }, `${where}: section id ${header[0]} is not a CompressedVector section's 1`);
  const length = Number(view.getBigUint64(8, true));
  const dataPhysical = Number(view.getBigUint64(16, true));
  const end = start + length;
  if (length < SECTION_HEADER || end > pages.logicalSize) {
    throw new InputError(file, { byte: scan.sectionOffset + 8 }, `${where}: section length ${length} ${length < SECTION_HEADER ? 'is shorter than its header' : "runs past the file's end"}`);
  }
  const dataStart = logicalOffset(dataPhysical);
  if (dataStart < start + SECTION_HEADER || dataStart > end) {
    throw new InputError(file, { byte: scan.sectionOffset + 16 }, `${where}: data offset ${dataPhysical} lies outside its section (bytes ${physicalOffset(start)} to ${physicalOffset(end)})`);
  }
  // A record takes its fields' bits: a count the section's bytes cannot hold is refused before allocation.
  const bitsPerRecord = scan.fields.reduce((sum, f) => sum + f.bits, 0);
  if (bitsPerRecord > 0 && scan.records * bitsPerRecord > 8 * (end - dataStart)) {
    throw new InputError(file, { byte: scan.sectionOffset + 8 },
      `${where}: recordCount ${scan.records} of ${bitsPerRecord} bits each needs ${Math.ceil((scan.records * bitsPerRecord) / 8)} bytes; its section holds ${end - dataStart}`);
  }
  return { scan, dataStart, end };
}

/** The rotation matrix (row by row) and translation of a pose, or null for none. */
export function poseTransform(scan: E57Scan): Float64Array | null {
  if (!scan.pose) return null;
  const [w, x, y, z] = scan.pose.rotation;
  // 2 / |q|²: the matrix of q / |q|, so a quaternion written with a few digits still rotates rigidly.
  const s = 2 / (w * w + x * x + y * y + z * z);
  return Float64Array.of(
    1 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),
    s * (x * y + w * z), 1 - s * (x * x + z * z), s * (y * z - w * x),
    s * (x * z - w * y), s * (y * z + w * x), 1 - s * (x * x + y * y),
    ...scan.pose.translation,
  );
}

export interface ScanTally {
  /** Points written (valid records). */
  kept: number;
  /** Records skipped for their invalid state. */
  invalid: number;
  /** Bounds of the points written, or null for none. */
  bounds: Bounds | null;
}

/**
 * Decodes a scan's records into out[3 * at ...]: each valid point converted (spherical to cartesian), moved by
 * the scan's pose, in double. Returns how many points it wrote and how many it skipped as invalid.
 */
export function decodeSection(pages: E57Pages, file: string, section: E57Section, out: Float64Array, at: number): ScanTally {
  const { scan } = section;
  const needed = [...scan.axes, ...(scan.invalid >= 0 ? [scan.invalid] : [])];
  const streams = needed.map((i) => new E57Bytestream(scan.fields[i]));
  const slot = new Int32Array(scan.fields.length).fill(-1);
  needed.forEach((field, k) => (slot[field] = k));
  const values = needed.map(() => new Float64Array(0));
  const transform = poseTransform(scan);
  const spherical = scan.coordinates === 'spherical';
  const where = `scan ${scan.index}'s points`;
  const box = Float64Array.of(Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity);
  let pos = section.dataStart, decoded = 0, o = 3 * at, invalid = 0;
  while (decoded < scan.records) {
    if (pos + 4 > section.end) {
      throw new InputError(file, { byte: physicalOffset(pos) }, `file is truncated: ${where} end after ${decoded} of the ${scan.records} records its recordCount declares`);
    }
    const head = pages.read(pos, 4, `${where}' packet header`);
    const type = head[0], length = (head[2] | (head[3] << 8)) + 1;
    if (pos + length > section.end) {
      throw new InputError(file, { byte: physicalOffset(pos) }, `${where}: a packet of ${length} bytes runs past the end of its section (byte ${physicalOffset(section.end)})`);
    }
    if (type === INDEX_PACKET || type === EMPTY_PACKET) {
      pos += length;
      continue;
    }
    if (type !== DATA_PACKET) throw new InputError(file, { byte: physicalOffset(pos) }, `${where}: packet type ${type} is not an index (0), data (1) or empty (2) packet`);
    const packet = pages.read(pos, length, `${where}' data packet`);
    const streamCount = packet[4] | (packet[5] << 8);
    if (streamCount !== scan.fields.length) {
      throw new InputError(file, { byte: physicalOffset(pos + 4) }, `${where}: a data packet has ${streamCount} bytestreams, the prototype ${scan.fields.length} fields`);
    }
    let buffer = 6 + 2 * streamCount;
    if (buffer > length) throw new InputError(file, { byte: physicalOffset(pos) }, `${where}: a data packet of ${length} bytes cannot hold its ${streamCount} buffer lengths`);
    for (let k = 0; k < streamCount; k++) {
      const bytes = packet[6 + 2 * k] | (packet[7 + 2 * k] << 8);
      if (buffer + bytes > length) {
        throw new InputError(file, { byte: physicalOffset(pos + 6 + 2 * k) }, `${where}: bytestream ${k} (${scan.fields[k].name}) of ${bytes} bytes runs past its ${length}-byte packet`);
      }
      if (slot[k] >= 0) streams[slot[k]].append(packet.subarray(buffer, buffer + bytes));
      buffer += bytes;
    }
    const ready = Math.min(scan.records - decoded, ...streams.map((s) => s.available()));
    if (ready > 0) {
      for (let k = 0; k < streams.length; k++) {
        if (values[k].length < ready) values[k] = new Float64Array(Math.max(ready, 2 * values[k].length));
        streams[k].take(ready, values[k]);
      }
      const written = writePoints(values, ready, spherical, transform, out, o, box);
      if (written < 0) {
        const bad = -written - 1;
        throw badCoordinate(file, { byte: physicalOffset(pos) }, out[bad], Math.floor(bad / 3));
      }
      invalid += ready - (written - o) / 3;
      o = written;
      decoded += ready;
    }
    pos += length;
  }
  const kept = o / 3 - at;
  return { kept, invalid, bounds: kept > 0 ? { min: [box[0], box[1], box[2]], max: [box[3], box[4], box[5]] } : null };
}

/**
 * Writes the valid records among `count` decoded ones as points from out[o], widening `box` (min x, y, z, then
 * max) around them; returns the index after the last point, or -(index + 1) of the first coordinate that is
 * not finite or beyond ±1e15, written there for the caller to name.
 */
export function writePoints(values: Float64Array[], count: number, spherical: boolean, m: Float64Array | null, out: Float64Array, o: number, box: Float64Array): number {
  const [a, b, c] = values;
  const state = values.length > 3 ? values[3] : null;
  // A pose without a rotation moves by its translation alone: the same doubles as the matrix, fewer steps.
  const rotates = m !== null && !(m[0] === 1 && m[1] === 0 && m[2] === 0 && m[3] === 0 && m[4] === 1 && m[5] === 0 && m[6] === 0 && m[7] === 0 && m[8] === 1);
  const tx = m === null ? 0 : m[9], ty = m === null ? 0 : m[10], tz = m === null ? 0 : m[11];
  let minX = box[0], minY = box[1], minZ = box[2], maxX = box[3], maxY = box[4], maxZ = box[5];
  for (let i = 0; i < count; i++) {
    if (state !== null && state[i] !== 0) continue; // 1: a direction without a range, 2: no point at all
    let x: number, y: number, z: number;
    if (spherical) {
      const range = a[i], azimuth = b[i], elevation = c[i];
      const across = range * Math.cos(elevation);
      x = across * Math.cos(azimuth);
      y = across * Math.sin(azimuth);
      z = range * Math.sin(elevation);
    } else {
      x = a[i];
      y = b[i];
      z = c[i];
    }
    if (rotates) {
      const px = x, py = y, pz = z;
      x = m![0] * px + m![1] * py + m![2] * pz + tx;
      y = m![3] * px + m![4] * py + m![5] * pz + ty;
      z = m![6] * px + m![7] * py + m![8] * pz + tz;
    } else if (m !== null) {
      x += tx;
      y += ty;
      z += tz;
    }
    // isExactCoordinate, inline: NaN fails every comparison.
    out[o] = x;
    out[o + 1] = y;
    out[o + 2] = z;
    if (!(x <= MAX_COORDINATE && x >= -MAX_COORDINATE)) return -(o + 1);
    if (!(y <= MAX_COORDINATE && y >= -MAX_COORDINATE)) return -(o + 2);
    if (!(z <= MAX_COORDINATE && z >= -MAX_COORDINATE)) return -(o + 3);
    o += 3;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  box[0] = minX; box[1] = minY; box[2] = minZ; box[3] = maxX; box[4] = maxY; box[5] = maxZ;
  return o;
}
