// What xhd info shows of an E57 file, as the geometry carries it: its own file so that geometry.ts can name
// it without importing the E57 reader (which imports geometry.ts).
import type { Bounds } from '../core/coordinates.js';
import type { E57Scan } from './e57-scans.js';

/** What xhd info shows of an E57 file: its GUID, and each scan (read or not). */
export interface E57Summary {
  version: string;
  guid?: string;
  /** The scan --scan picked, or null for all. */
  selected: number | null;
  scans: {
    index: number;
    name?: string;
    guid?: string;
    records: number;
    coordinates: 'cartesian' | 'spherical';
    pose: E57Scan['pose'];
    /** For the scans read: points kept, records skipped as invalid, and the bounds after the pose. */
    points: number | null;
    invalid: number | null;
    bounds: Bounds | null;
  }[];
}
