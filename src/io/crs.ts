// A coordinate reference system as an input states it (LAS/LAZ VLRs today), reduced to what xhd reports and
// compares: EPSG codes where stated, a name, the units, and the WKT text itself where that is how it came.

export interface Crs {
  /** EPSG code of the horizontal CRS (projected, else geographic), where the file states one. */
  epsg?: number;
  /** EPSG code of the vertical CRS, where stated. */
  verticalEpsg?: number;
  /** The CRS's name (a GeoTIFF citation, or the WKT's name). */
  name?: string;
  /** Horizontal units as the CRS states them ("metre", "US survey foot", "degree"). */
  units?: string;
  verticalUnits?: string;
  /** The OGC WKT text, where the file has one. */
  wkt?: string;
  /** Where it was read from: 'GeoTIFF keys', 'WKT', or both. */
  source: string;
}

/** "EPSG:32617 (WGS 84 / UTM zone 17N) + EPSG:5703", or the name alone, or "a WKT CRS". */
export function crsLabel(crs: Crs): string {
  const horizontal = crs.epsg !== undefined ? `EPSG:${crs.epsg}${crs.name ? ` (${crs.name})` : ''}` : crs.name ?? (crs.wkt ? 'a WKT CRS without a name' : 'a CRS without a code or name');
  return crs.verticalEpsg !== undefined ? `${horizontal} + EPSG:${crs.verticalEpsg}` : horizontal;
}

/** "metre", or "metre (vertical: US survey foot)"; undefined when the CRS states no units. */
export function crsUnits(crs: Crs): string | undefined {
  if (crs.units === undefined) return crs.verticalUnits === undefined ? undefined : `vertical ${crs.verticalUnits}`;
  return crs.verticalUnits === undefined || crs.verticalUnits === crs.units ? crs.units : `${crs.units} (vertical: ${crs.verticalUnits})`;
}

/**
 * Whether two stated CRSs are known to differ: by EPSG code where both have one (horizontal, and vertical
 * where both state one), else by WKT text (whitespace aside), else by name. Two CRSs that cannot be told
 * apart from what they state are not reported as different.
 */
export function crsDiffer(a: Crs, b: Crs): boolean {
  if (a.epsg !== undefined && b.epsg !== undefined) {
    if (a.epsg !== b.epsg) return true;
    return a.verticalEpsg !== undefined && b.verticalEpsg !== undefined && a.verticalEpsg !== b.verticalEpsg;
  }
  const squeeze = (s: string) => s.replace(/\s+/g, '');
  if (a.wkt !== undefined && b.wkt !== undefined) return squeeze(a.wkt) !== squeeze(b.wkt);
  if (a.name !== undefined && b.name !== undefined) return a.name !== b.name;
  return false;
}

/** The CRS in the JSON reports (compare's per input, info's). */
export function crsJson(crs: Crs | undefined) {
  if (!crs) return null;
  return {
    epsg: crs.epsg ?? null,
    vertical_epsg: crs.verticalEpsg ?? null,
    name: crs.name ?? null,
    units: crs.units ?? null,
    vertical_units: crs.verticalUnits ?? null,
    source: crs.source,
    wkt: crs.wkt ?? null,
  };
}

/**
 * The notes a comparison gets about its inputs' CRSs: a warning naming both when they differ, and the units
 * the distances are in where a CRS states them.
 */
export function crsNotes(a: { path: string; crs?: Crs }, b: { path: string; crs?: Crs }): string[] {
  if (!a.crs && !b.crs) return [];
  if (a.crs && b.crs && crsDiffer(a.crs, b.crs)) {
    return [`warning: the inputs state different CRSs: A (${a.path}) is ${crsLabel(a.crs)}, B (${b.path}) is ${crsLabel(b.crs)}; ` +
      'distances between coordinates of different CRSs mean nothing until one is transformed into the other']
  }
  const unitsA = a.crs && crsUnits(a.crs), unitsB = b.crs && crsUnits(b.crs);
  if (unitsA && unitsB && unitsA !== unitsB) return [`the inputs' CRSs state different units: A's ${unitsA}, B's ${unitsB}`];
  const units = unitsA ?? unitsB;
  if (!units) return [];
  const whose = unitsA && unitsB ? "both inputs' CRS" : unitsA ? `A's CRS (B states ${b.crs ? 'no units' : 'no CRS'})` : `B's CRS (A states ${a.crs ? 'no units' : 'no CRS'})`;
  return [`distances are in ${units}, the units of ${whose}`];
}
