// The point filters' values (--classes, --returns, --bbox, --every): what they hold, how their text parses and
// how they are written back. Apart from the filtering itself, so that the shape every reader returns
// (geometry.ts) can name them without importing the readers' helpers.
import { ValueSyntaxError } from '../core/errors.js';

export type ReturnsFilter = 'first' | 'last' | 'all';
export const RETURNS_FILTERS: ReturnsFilter[] = ['first', 'last', 'all'];

export interface PointFilters {
  /** LAS classification codes to keep. */
  classes?: number[];
  /** first: return number ≤ 1; last: return number ≥ number of returns; all: every point. */
  returns?: ReturnsFilter;
  /** Keep points inside this box (edges included); a 2D box leaves z free (±Infinity). */
  bbox?: { min: [number, number, number]; max: [number, number, number] };
  /** Keep every Nth of the points the other filters keep (the first, the N+1th, ...). */
  every?: number;
  /** E57: read this scan alone (numbered from 0 in the file's order) instead of every scan. */
  scan?: number;
}

export function parseClasses(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  const classes = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
  if (parts.length === 0 || classes.some((c) => !(c >= 0 && c <= 255))) {
    throw new ValueSyntaxError(`expected comma-separated LAS classification codes from 0 to 255, got '${value}'`);
  }
  return [...new Set(classes)].sort((a, b) => a - b);
}

export function parseBbox(value: string): PointFilters['bbox'] {
  const numbers = value.split(',').map((p) => (p.trim() === '' ? NaN : Number(p)));
  if ((numbers.length !== 4 && numbers.length !== 6) || numbers.some((n) => !Number.isFinite(n))) {
    throw new ValueSyntaxError(`expected xmin,ymin,xmax,ymax or xmin,ymin,zmin,xmax,ymax,zmax, got '${value}'`);
  }
  const [min, max]: [number, number, number][] = numbers.length === 4
    ? [[numbers[0], numbers[1], -Infinity], [numbers[2], numbers[3], Infinity]]
    : [[numbers[0], numbers[1], numbers[2]], [numbers[3], numbers[4], numbers[5]]];
  if (min.some((m, axis) => m > max[axis])) throw new ValueSyntaxError(`a minimum is above its maximum in '${value}'`);
  return { min, max };
}

export function hasFilters(f: PointFilters | undefined): f is PointFilters {
  return f !== undefined && (f.classes !== undefined || (f.returns !== undefined && f.returns !== 'all') || f.bbox !== undefined || (f.every ?? 1) > 1);
}

/** "--classes 2,6 --every 10": the filters given, as they were written. */
export function describeFilters(f: PointFilters): string {
  const parts: string[] = [];
  if (f.classes) parts.push(`--classes ${f.classes.join(',')}`);
  if (f.returns && f.returns !== 'all') parts.push(`--returns ${f.returns}`);
  if (f.bbox) {
    const { min, max } = f.bbox;
    parts.push(`--bbox ${(Number.isFinite(min[2]) ? [...min, ...max] : [min[0], min[1], max[0], max[1]]).join(',')}`);
  }
  if ((f.every ?? 1) > 1) parts.push(`--every ${f.every}`);
  return parts.join(' ');
}
