// The point filters as commander hands them over, gathered into the one object the readers take.
import type { PointFilters } from '../../io/point-filters.js';

export interface FilterFlags {
  classes?: number[];
  returns?: PointFilters['returns'];
  bbox?: PointFilters['bbox'];
  every?: number;
  scan?: number;
}

/** The filters given, or undefined when none was. */
export function pointFilters(flags: FilterFlags): PointFilters | undefined {
  const filters: PointFilters = {};
  if (flags.classes !== undefined) filters.classes = flags.classes;
  if (flags.returns !== undefined) filters.returns = flags.returns;
  if (flags.bbox !== undefined) filters.bbox = flags.bbox;
  if (flags.every !== undefined) filters.every = flags.every;
  if (flags.scan !== undefined) filters.scan = flags.scan;
  return Object.keys(filters).length > 0 ? filters : undefined;
}
