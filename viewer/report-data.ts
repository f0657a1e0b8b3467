// The data the report generator embeds (src/report/html/compare-report-data.ts writes it): the page's
// view of it. Kept by hand in step with the generator; the browser tests load real reports through it.

export interface DistanceSummary {
  count: number;
  max: number;
  mean: number;
  p95: number;
  bins: number[];
}

export interface WorstRegion {
  index: number;
  point: [number, number, number];
  distance: number;
  members: number;
}

export interface DirectionData {
  key: 'ab' | 'ba';
  label: string;
  set: 0 | 1;
  summary: DistanceSummary;
  regions: WorstRegion[];
  witness: { from: number[]; to: number[]; distance: number } | null;
}

export interface SetData {
  name: 'A' | 'B';
  path: string;
  total: number;
  shown: number;
  worstKept: number;
  hasDistances: boolean;
  distanceScale: number;
}

export interface CompareReportData {
  kind: 'compare';
  version: string;
  generated: string;
  command: string[];
  json: Record<string, unknown> & { hd: number };
  range: [number, number];
  rangeGiven: boolean;
  colourTable: number[];
  box: { min: [number, number, number]; step: [number, number, number] };
  sets: SetData[];
  directions: DirectionData[];
  packed: string;
  notes: string[];
}

/** A set's drawn points, decoded: coordinates relative to the view's centre, distances in input units. */
export interface DecodedSet {
  positions: Float32Array;
  distances: Float32Array | null;
}

/** The batch report's data (src/report/html/batch-html.ts writes it). */
export interface BatchRow {
  line: number;
  status: string;
  a: string;
  b: string;
  hd: number | null;
  hd95: number | null;
  assd: number | null;
  metric: string | null;
  limit: number | null;
  totalMs: number | null;
  error: string | null;
}

export interface BatchReportData {
  kind: 'batch';
  version: string;
  generated: string;
  command: string[];
  summary: Record<string, unknown>;
  rows: BatchRow[];
}
