// What an E57 file's XML says about its scans: each /data3D child's name, GUID, pose, and its points, a
// CompressedVector whose prototype lists the fields stored for every point, in the order their bytestreams
// come in each data packet. Only the fields xhd needs are interpreted (cartesian or spherical coordinates
// and their invalid states); the rest are described just enough to be stepped over.
import { child, type XmlElement } from './e57-xml.js';

export interface E57Field {
  /** The prototype's name for it (cartesianX, intensity, ...). */
  name: string;
  /** integer: Integer; scaled: ScaledInteger (raw * scale + offset); float32 / float64: Float single / double. */
  kind: 'integer' | 'scaled' | 'float32' | 'float64';
  /** Bits one value takes in the field's bytestream (0 for an integer whose minimum equals its maximum). */
  bits: number;
  /** Integer and ScaledInteger: the raw minimum, which the stored bits are counted from. */
  minimum: bigint;
  scale: number;
  offset: number;
}

export interface E57Pose {
  /** Unit quaternion w, x, y, z. */
  rotation: [number, number, number, number];
  translation: [number, number, number];
}

export interface E57Scan {
  /** The scan's place in /data3D, from 0 (what --scan takes). */
  index: number;
  name?: string;
  guid?: string;
  /** The records the CompressedVector declares. */
  records: number;
  /** Physical offset of its binary section (the CompressedVector's fileOffset). */
  sectionOffset: number;
  fields: E57Field[];
  coordinates: 'cartesian' | 'spherical';
  /** Indices into fields: x, y, z (cartesian) or range, azimuth, elevation (spherical). */
  axes: [number, number, number];
  /** Index of the coordinates' invalid-state field, or -1. */
  invalid: number;
  /** Null when the scan has none (its points are already in the file's frame). */
  pose: E57Pose | null;
  /** The scan's line in the XML section. */
  line: number;
}

/** A problem in the XML's content: its line there, and what is wrong. */
export class E57XmlError extends Error {
  constructor(readonly line: number, detail: string) {
    super(detail);
  }
}

const INT64_MIN = -(2n ** 63n), INT64_MAX = 2n ** 63n - 1n;

function integerAttribute(e: XmlElement, name: string, fallback: bigint): bigint {
  const text = e.attributes[name];
  if (text === undefined) return fallback;
  const trimmed = text.trim();
  if (!/^[+-]?\d+$/.test(trimmed)) throw new E57XmlError(e.line, `<${e.name}> ${name}="${text}" is not an integer`);
  const value = BigInt(trimmed);
  if (value < INT64_MIN || value > INT64_MAX) throw new E57XmlError(e.line, `<${e.name}> ${name}="${text}" is beyond 64 bits`);
  return value;
}

function numberAttribute(e: XmlElement, name: string, fallback: number): number {
  const text = e.attributes[name];
  if (text === undefined) return fallback;
  const value = text.trim() === '' ? NaN : Number(text);
  if (!Number.isFinite(value)) throw new E57XmlError(e.line, `<${e.name}> ${name}="${text}" is not a finite number`);
  return value;
}

/** The value of a Float, Integer or ScaledInteger element (its text; empty means 0). */
function numberValue(e: XmlElement | undefined, what: string, fallback?: number): number {
  if (!e) {
    if (fallback !== undefined) return fallback;
    throw new E57XmlError(0, `${what} is missing`);
  }
  const type = e.attributes.type;
  const text = e.text.trim();
  if (type !== 'Float' && type !== 'Integer' && type !== 'ScaledInteger') throw new E57XmlError(e.line, `${what} is of type ${type ?? '(none)'}, not a number`);
  const raw = text === '' ? 0 : Number(text);
  if (!Number.isFinite(raw) || (type !== 'Float' && !/^[+-]?\d+$/.test(text) && text !== '')) throw new E57XmlError(e.line, `${what} '${text}' is not a ${type === 'Float' ? 'number' : 'whole number'}`);
  return type === 'ScaledInteger' ? raw * numberAttribute(e, 'scale', 1) + numberAttribute(e, 'offset', 0) : raw;
}

function stringValue(e: XmlElement | undefined): string | undefined {
  return e && e.attributes.type === 'String' ? e.text.trim() : undefined;
}

/** A prototype field from its element. */
function field(e: XmlElement): E57Field {
  const type = e.attributes.type;
  if (type === 'Float') {
    const precision = e.attributes.precision ?? 'double';
    if (precision !== 'single' && precision !== 'double') throw new E57XmlError(e.line, `<${e.name}> precision="${precision}" is not single or double`);
    return { name: e.name, kind: precision === 'single' ? 'float32' : 'float64', bits: precision === 'single' ? 32 : 64, minimum: 0n, scale: 1, offset: 0 };
  }
  if (type === 'Integer' || type === 'ScaledInteger') {
    const minimum = integerAttribute(e, 'minimum', INT64_MIN), maximum = integerAttribute(e, 'maximum', INT64_MAX);
    if (maximum < minimum) throw new E57XmlError(e.line, `<${e.name}> maximum ${maximum} is below its minimum ${minimum}`);
    const range = maximum - minimum;
    const scaled = type === 'ScaledInteger';
    const scale = scaled ? numberAttribute(e, 'scale', 1) : 1;
    if (scale === 0) throw new E57XmlError(e.line, `<${e.name}> scale is 0`);
    return { name: e.name, kind: scaled ? 'scaled' : 'integer', bits: range === 0n ? 0 : range.toString(2).length, minimum, scale, offset: scaled ? numberAttribute(e, 'offset', 0) : 0 };
  }
  throw new E57XmlError(e.line, `prototype field <${e.name}> is of type ${type ?? '(none)'}; a point's fields are Integer, ScaledInteger or Float`);
}

/** Structures nested deeper than this in a prototype are refused (real ones nest one or two levels). */
const MAX_DEPTH = 32;

/** The prototype's terminal fields in bytestream order (depth first through nested structures). */
function prototypeFields(e: XmlElement, into: E57Field[] = [], depth = 0): E57Field[] {
  if (depth > MAX_DEPTH) throw new E57XmlError(e.line, `prototype structures nest more than ${MAX_DEPTH} deep`);
  for (const c of e.children) {
    if (c.attributes.type === 'Structure') prototypeFields(c, into, depth + 1);
    else into.push(field(c));
  }
  return into;
}

function pose(e: XmlElement | undefined): E57Pose | null {
  if (!e) return null;
  const rotation = child(e, 'rotation'), translation = child(e, 'translation');
  const q = rotation
    ? (['w', 'x', 'y', 'z'].map((k) => numberValue(child(rotation, k), `pose rotation ${k} (line ${rotation.line})`)) as E57Pose['rotation'])
    : ([1, 0, 0, 0] as E57Pose['rotation']);
  if (q.every((v) => v === 0)) throw new E57XmlError(rotation!.line, 'pose rotation is the zero quaternion');
  const t = (['x', 'y', 'z'].map((k) => numberValue(child(translation, k), 'pose translation', 0))) as E57Pose['translation'];
  return { rotation: q, translation: t };
}

/** A non-negative whole number attribute that fits a double exactly (a count or an offset). */
function countAttribute(e: XmlElement, name: string): number {
  const value = integerAttribute(e, name, -1n);
  if (value < 0n) throw new E57XmlError(e.line, `<${e.name}> has no ${name}`);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new E57XmlError(e.line, `<${e.name}> ${name} ${value} is beyond any file's size`);
  return Number(value);
}

function scan(e: XmlElement, index: number): E57Scan {
  const points = child(e, 'points');
  if (!points || points.attributes.type !== 'CompressedVector') throw new E57XmlError(e.line, `scan ${index} has no points CompressedVector`);
  const prototype = child(points, 'prototype');
  if (!prototype) throw new E57XmlError(points.line, `scan ${index}'s points have no prototype`);
  const fields = prototypeFields(prototype);
  const at = (name: string) => fields.findIndex((f) => f.name === name);
  const cartesian = ['cartesianX', 'cartesianY', 'cartesianZ'].map(at) as [number, number, number];
  const spherical = ['sphericalRange', 'sphericalAzimuth', 'sphericalElevation'].map(at) as [number, number, number];
  const isCartesian = cartesian.every((i) => i >= 0);
  if (!isCartesian && !spherical.every((i) => i >= 0)) {
    throw new E57XmlError(prototype.line, `scan ${index}'s prototype has neither cartesianX/Y/Z nor sphericalRange/Azimuth/Elevation (fields: ${fields.map((f) => f.name).join(', ') || 'none'})`);
  }
  return {
    index,
    name: stringValue(child(e, 'name')),
    guid: stringValue(child(e, 'guid')),
    records: countAttribute(points, 'recordCount'),
    sectionOffset: countAttribute(points, 'fileOffset'),
    fields,
    coordinates: isCartesian ? 'cartesian' : 'spherical',
    axes: isCartesian ? cartesian : spherical,
    invalid: at(isCartesian ? 'cartesianInvalidState' : 'sphericalInvalidState'),
    pose: pose(child(e, 'pose')),
    line: e.line,
  };
}

export interface E57Document {
  guid?: string;
  scans: E57Scan[];
}

/** The scans of an E57 XML tree (an e57Root without data3D has none). */
export function e57Document(root: XmlElement): E57Document {
  if (root.name !== 'e57Root') throw new E57XmlError(root.line, `the root element is <${root.name}>, not <e57Root>`);
  const data3D = child(root, 'data3D');
  return { guid: stringValue(child(root, 'guid')), scans: (data3D?.children ?? []).map(scan) };
}
