// The data the report generators embed: its types are the generators' own (src/report/html/page-data.ts),
// re-exported for the page's modules, beside what only the page makes of it.

export type { BatchReportData, BatchRow, CompareReportData, DirectionData, DistanceSummary, SetData, WorstRegion } from '../src/report/html/page-data.js';

/** A set's drawn points, decoded: coordinates relative to the view's centre, distances in input units. */
export interface DecodedSet {
  positions: Float32Array;
  distances: Float32Array | null;
}
