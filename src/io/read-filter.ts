// What every read does to the geometry it read: the point filters (--classes, --returns, --box, …) for the formats
// that do not filter while they decode, and the note when --scan named a format without scans.
import { filterGeometry } from './point-filters.js';
import type { Geometry, ReadOptions } from './geometry.js';
import { STDIN_NAME } from './stdin-name.js';

export function filtered(geometry: Geometry, path: string, options: ReadOptions): Geometry {
  // LAS and LAZ filter while they decode; every other format is filtered once read.
  const lidar = geometry.format === 'las' || geometry.format === 'laz';
  if (options.filters?.scan !== undefined && geometry.format !== 'e57') geometry.notes.push(`--scan applies to E57 files; this is ${geometry.format.toUpperCase()}, so ignored`);
  return options.filters && !lidar ? filterGeometry(geometry, path === STDIN_NAME ? 'standard input' : path, options.filters) : geometry;
}
