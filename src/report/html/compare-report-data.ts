// Everything the compare report's page shows, computed here from what the compare job returned: the page
// itself only draws. Statistics and plots use every point; the 3D view a display sample (display-sample.ts).
import { DEFAULT_DISPLAY_POINTS } from './report-range.js';
import type { Coordinates } from '../../core/coordinates.js';
import type { CompareResult, Witness } from '../../jobs/compare.js';
import { XHD_VERSION } from '../../core/version.js';
import { compareJson } from '../compare-json.js';
import { displaySample, largestDistances, worstCountFor } from './display-sample.js';
import { reportMarks, summarizeDistances } from './distance-summary.js';
import { packBox, packPlanes, quantizePoints } from './pack-points.js';
import { perceptualTable } from './perceptual-colour-map.js';
import { REGION_CANDIDATES, worstRegions } from './worst-regions.js';
import { maskSlices } from './mask-slices.js';
import type { CompareReportData as PageData, DirectionData, SetData } from './page-data.js';

export type { DirectionData, SetData } from './page-data.js';
/** The compare report's data, its json the --json report's object. */
export type CompareReportData = PageData<ReturnType<typeof compareJson>>;

export interface ReportOptions {
  /** --report-range: the distances the colour bar spans; default 0 to the HD. */
  range?: [number, number];
  /** --report-points: points drawn per input at most (default DEFAULT_DISPLAY_POINTS). */
  displayPoints?: number;
  /** The command line, shown as given. */
  command?: string[];
}

const REGION_COUNT = 10;
/** Worst points closer than this share of their own input's bounding-box diagonal are one region (its own:
 *  two inputs far apart would otherwise make one region of everything). */
const REGION_RADIUS_SHARE = 0.05;

interface SetSource {
  name: 'A' | 'B';
  path: string;
  points: Coordinates;
  distances: Float64Array | null;
}

/**
 * The page's data. The native statistics (the plots' marks, when the compare did not measure them) run on other
 * threads while this one picks, quantises and packs the drawn points.
 */
export async function compareReportData(r: CompareResult, options: ReportOptions = {}): Promise<CompareReportData> {
  const budget = options.displayPoints ?? DEFAULT_DISPLAY_POINTS;
  const per = r.perPoint;
  const sources: SetSource[] = [];
  if (per) {
    sources.push({ name: 'A', path: r.a.path, points: per.ab.points, distances: per.ab.distances });
    const bPoints = per.ba?.points ?? per.targetPoints;
    if (bPoints) sources.push({ name: 'B', path: r.b.path, points: bPoints, distances: per.ba?.distances ?? null });
  }
  const notes: string[] = [];
  if (!per) notes.push(r.empty ? 'an input is empty: there are no distances to draw' : 'no per-point distances were kept: nothing to draw');

  const marks = per ? reportMarks(per.ab.distances, per.ba?.distances ?? null, r.stats) : null;
  // Per set with distances, its largest distances: those a thinned display keeps, and the worst regions'
  // candidates in order, found together; the largest distance is the first of those (0 when there are none).
  const worst = sources.map((s) => (s.distances && s.distances.length > budget ? worstCountFor(s.distances.length, budget) : 0));
  const largest = sources.map((s, k) => (s.distances ? largestDistances(s.distances, Math.max(worst[k], REGION_CANDIDATES), REGION_CANDIDATES) : null));
  const maxima = sources.map((s, k) => (s.distances && largest[k]!.ordered.length > 0 ? Math.max(0, s.distances[largest[k]!.ordered[0]]) : 0));
  const samples = sources.map((s, k) => {
    if (!s.distances) return evenSample(s.points.length / 3, budget);
    const l = largest[k]!;
    return displaySample(s.distances, budget, worst[k] === l.indices.length ? l.indices : l.ordered.slice(0, worst[k]));
  });
  const box = packBox(sources.map((s, k) => ({ points: s.points, indices: samples[k].indices })));
  const planes: Uint16Array[] = [];
  const sets: SetData[] = sources.map((s, k) => {
    const indices = samples[k].indices;
    const scale = maxima[k];
    planes.push(quantizePoints(s.points, indices, box, s.distances ? { distances: s.distances, max: scale } : undefined));
    return { name: s.name, path: s.path, total: s.points.length / 3, shown: indices.length, worstKept: s.distances ? samples[k].worstKept : 0, hasDistances: s.distances !== null, distanceScale: scale };
  });
  const packed = packPlanes(planes);

  const regions = sources.map((s, k) => (s.distances
    ? worstRegions(s.points, s.distances, REGION_COUNT, REGION_RADIUS_SHARE * (s.name === 'A' ? r.a : r.b).bboxDiagonal, largest[k]!.ordered)
    : []));
  const sliceView = per ? maskSlices(per) : { slices: null };
  if (sliceView.note) notes.push(sliceView.note);
  const json = compareJson(r);

  const marked = await marks;
  const directions: DirectionData[] = [];
  sources.forEach((s, k) => {
    if (!s.distances) return;
    const ab = s.name === 'A';
    directions.push({
      key: ab ? 'ab' : 'ba',
      label: ab ? 'A → B' : 'B → A',
      set: k as 0 | 1,
      summary: summarizeDistances(s.distances, (ab ? marked!.ab : marked!.ba) ?? undefined, maxima[k]),
      regions: regions[k],
      witness: witnessData(ab ? r.witnessAb : r.witnessBa, ab ? r.hdAb : r.hdBa),
    });
  });

  return {
    kind: 'compare',
    version: XHD_VERSION,
    generated: new Date().toISOString(),
    command: options.command ?? [],
    json,
    range: options.range ?? [0, r.hd > 0 && Number.isFinite(r.hd) ? r.hd : 1],
    rangeGiven: options.range !== undefined,
    colourTable: Array.from(perceptualTable(256)),
    box,
    sets,
    directions,
    packed,
    notes,
    slices: sliceView.slices,
  };
}

function witnessData(w: Witness | null, distance: number | null): DirectionData['witness'] {
  if (!w || distance === null) return null;
  const pad = (p: number[]) => (p.length === 2 ? [p[0], p[1], 0] : p);
  return { from: pad(w.fromPoint), to: pad(w.toPoint), distance };
}

/** An even stride of at most budget of n points (the overlay of a directed run has no distances to favour). */
function evenSample(n: number, budget: number): { indices: Uint32Array; worstKept: number } {
  const m = Math.min(n, budget);
  const indices = new Uint32Array(m);
  for (let k = 0; k < m; k++) indices[k] = Math.floor((k * n) / m);
  return { indices, worstKept: 0 };
}
