// The CRS of a LAS/LAZ file from its (E)VLRs: the GeoTIFF key directory (record 34735 of LASF_Projection,
// with its double and ASCII parameters 34736 and 34737) and OGC WKT (record 2112). Where the file states
// both, both are kept: the EPSG codes come from the keys, else from the WKT's own ID.
import type { Crs } from './crs.js';
import type { LasVlr } from './las-vlrs.js';
import { child, COMPOUND, epsgOf, HORIZONTAL, nameOf, parseWkt, unitOf, VERTICAL } from './wkt.js';

const PROJECTION = 'LASF_Projection';
export const GEO_KEY_DIRECTORY = 34735;
const GEO_DOUBLE_PARAMS = 34736;
const GEO_ASCII_PARAMS = 34737;
export const OGC_WKT = 2112;

/** Whether xhd reads this record's payload for the CRS (liblas wrote its WKT under its own user id). */
export function isCrsRecord(vlr: LasVlr): boolean {
  if (vlr.userId === PROJECTION) return [GEO_KEY_DIRECTORY, GEO_DOUBLE_PARAMS, GEO_ASCII_PARAMS, OGC_WKT].includes(vlr.recordId);
  return vlr.userId === 'liblas' && vlr.recordId === OGC_WKT;
}

/** The EPSG unit codes GeoTIFF files use, by name. */
const UNITS: Record<number, string> = {
  9001: 'metre', 9002: 'foot', 9003: 'US survey foot', 9005: 'Clarke foot', 9014: 'fathom', 9030: 'nautical mile',
  9036: 'kilometre', 9093: 'statute mile', 9101: 'radian', 9102: 'degree', 9105: 'grad', 9122: 'degree',
};
const USER_DEFINED = 32767;

const enum Key {
  Citation = 1026,
  GeographicType = 2048,
  GeogCitation = 2049,
  GeogAngularUnits = 2054,
  ProjectedCSType = 3072,
  PcsCitation = 3073,
  ProjLinearUnits = 3076,
  VerticalCSType = 4096,
  VerticalCitation = 4097,
  VerticalUnits = 4099,
}

interface GeoKeys {
  numbers: Map<number, number>;
  strings: Map<number, string>;
}

/** The key directory's entries: numbers stored in place, and strings from the ASCII parameters. */
function readGeoKeys(directory: Uint8Array, ascii: Uint8Array | undefined): GeoKeys | undefined {
  if (directory.length < 8) return undefined;
  const view = new DataView(directory.buffer, directory.byteOffset, directory.byteLength);
  const word = (i: number) => view.getUint16(2 * i, true);
  const keys = Math.min(word(3), Math.floor(directory.length / 8) - 1);
  const text = ascii ? new TextDecoder('latin1').decode(ascii) : '';
  const numbers = new Map<number, number>(), strings = new Map<number, string>();
  for (let k = 1; k <= keys; k++) {
    const id = word(4 * k), location = word(4 * k + 1), count = word(4 * k + 2), value = word(4 * k + 3);
    if (location === 0) numbers.set(id, value);
    else if (location === GEO_ASCII_PARAMS && value + count <= text.length) {
      // GeoTIFF ends each string with '|'; the NULs some writers add are not part of it either.
      strings.set(id, text.slice(value, value + count).replace(/[|\0]+$/, '').trim());
    }
  }
  return { numbers, strings };
}

function epsgCode(keys: GeoKeys, id: Key): number | undefined {
  const code = keys.numbers.get(id);
  return code !== undefined && code !== 0 && code !== USER_DEFINED ? code : undefined;
}

function unitName(keys: GeoKeys, id: Key): string | undefined {
  const code = keys.numbers.get(id);
  return code === undefined ? undefined : UNITS[code] ?? `EPSG unit ${code}`;
}

function fromGeoKeys(keys: GeoKeys): Crs {
  const projected = epsgCode(keys, Key.ProjectedCSType);
  const crs: Crs = { source: 'GeoTIFF keys' };
  crs.epsg = projected ?? epsgCode(keys, Key.GeographicType);
  crs.name = keys.strings.get(projected !== undefined ? Key.PcsCitation : Key.GeogCitation) ?? keys.strings.get(Key.Citation);
  crs.units = projected !== undefined || keys.numbers.has(Key.ProjLinearUnits) ? unitName(keys, Key.ProjLinearUnits) : unitName(keys, Key.GeogAngularUnits);
  crs.verticalEpsg = epsgCode(keys, Key.VerticalCSType);
  crs.verticalUnits = unitName(keys, Key.VerticalUnits);
  return crs;
}

/** The largest WKT parsed (real ones are a few KiB); a longer text is kept but not interpreted. */
const MAX_WKT_PARSED = 256 * 1024;

function fromWkt(text: string, crs: Crs): void {
  crs.wkt = text;
  const root = text.length <= MAX_WKT_PARSED ? parseWkt(text) : undefined;
  if (!root) return;
  const compound = COMPOUND.includes(root.keyword);
  const horizontal = compound ? root.args.find((a) => typeof a === 'object' && HORIZONTAL.includes(a.keyword)) : HORIZONTAL.includes(root.keyword) ? root : undefined;
  const vertical = compound ? child(root, ...VERTICAL) : VERTICAL.includes(root.keyword) ? root : undefined;
  if (typeof horizontal === 'object') {
    crs.epsg ??= epsgOf(horizontal);
    crs.name ??= nameOf(horizontal);
    crs.units ??= unitOf(horizontal);
  } else if (compound) {
    crs.name ??= nameOf(root);
  }
  if (vertical) {
    crs.verticalEpsg ??= epsgOf(vertical);
    crs.verticalUnits ??= unitOf(vertical);
  }
}

/** The CRS stated by these records (payloads by record), or undefined when none states one. */
export function lasCrs(records: { vlr: LasVlr; payload: Uint8Array }[]): Crs | undefined {
  const find = (id: number) => records.find((r) => r.vlr.recordId === id && (r.vlr.userId === PROJECTION || id === OGC_WKT))?.payload;
  const directory = find(GEO_KEY_DIRECTORY);
  const wkt = find(OGC_WKT);
  const keys = directory ? readGeoKeys(directory, find(GEO_ASCII_PARAMS)) : undefined;
  if (!keys && !wkt) return undefined;
  const crs = keys ? fromGeoKeys(keys) : { source: 'WKT' };
  if (wkt) {
    const text = new TextDecoder('utf-8').decode(wkt).replace(/\0+$/, '').trim();
    if (text !== '') {
      fromWkt(text, crs);
      crs.source = keys ? 'GeoTIFF keys and WKT' : 'WKT';
    }
  }
  return crs;
}
