// A voxel mask (NIfTI, NRRD, MetaImage or DICOM-SEG) as the points every comparison works on: its surface voxels (by default) or all of
// its voxels, in millimetres through the file's affine (computed and kept in double), with its grid kept
// for the same-space check.
import { formatCount } from '../core/counts.js';
import { InputError } from '../core/errors.js';
import { boundsAreExact, firstInexactCoordinate } from './build.js';
import { computeBounds, markFinite, type Geometry, type MaskOptions, type VoxelFormat } from './geometry.js';
import { parseVolume, parseVolumeAsync } from './voxel-volume.js';
import { maskToPoints, maskToPointsAsync, type MaskPoints } from './voxel-mask.js';
import type { VoxelVolume } from './nifti.js';
import { labelSlots } from './label-slots.js';
import { slotSurfels } from './surfels.js';


export function parseVoxelMask(bytes: Uint8Array, name: string, options: MaskOptions, format: VoxelFormat = 'nifti', threads?: number): Geometry {
  const volume = parseVolume(format, bytes, name, options.label);
  return maskGeometry(volume, maskToPoints(volume, pointOptions(options, threads)), name, options, format);
}

/**
 * parseVoxelMask with the inflating and the library's selection of the points on the thread pool, off the main
 * thread (where `xhd batch` lanes would wait on each other): the same geometry, or the same error. device: the
 * points selected on that GPU (ReadOptions.maskDevice).
 */
export async function parseVoxelMaskAsync(bytes: Uint8Array, name: string, options: MaskOptions, format: VoxelFormat = 'nifti',
  threads?: number, device?: number): Promise<Geometry> {
  const volume = await parseVolumeAsync(format, bytes, name, options.label);
  return maskGeometry(volume, await maskToPointsAsync(volume, pointOptions(options, threads, device)), name, options, format);
}

function pointOptions(options: MaskOptions, threads: number | undefined, device?: number) {
  return { label: options.label, region: options.region ?? 'surface', voxelSpace: options.voxelSpace, threads, device };
}

/** The geometry of a mask's points: their bounds (checked), what was compared, and the grid for the same-space check. */
function maskGeometry(volume: VoxelVolume, points: MaskPoints, name: string, options: MaskOptions, format: VoxelFormat): Geometry {
  const region = options.region ?? 'surface';
  const which = options.label === undefined ? 'nonzero voxels' : `voxels labelled ${options.label}`;
  const [nx, ny, nz] = volume.dims;
  const bounds = points.bounds ?? computeBounds(points.positions);
  if (points.count > 0) {
    // The same limit as every other reader's: an affine can map voxels beyond it (or overflow).
    if (!boundsAreExact(bounds)) {
      const bad = firstInexactCoordinate(points.positions);
      const value = points.positions[bad];
      const what = Number.isFinite(value) ? `coordinate ${value} of point ${Math.floor(bad / 3)} is beyond ±1e15 (too large for exact distances)`
        : `non-finite coordinate (${value}) in point ${Math.floor(bad / 3)}`;
      throw new InputError(name, {}, `${what} through the ${volume.affineSource} affine`);
    }
    markFinite(points.positions);
  }
  return {
    positions: points.positions,
    count: points.count,
    dims: 3,
    bounds,
    format,
    notes: [
      `mask of ${formatCount(points.foregroundVoxels)} ${which} in a ${nx}×${ny}×${nz} grid; ` +
        `${region === 'surface' ? 'its surface voxels' : 'all of them'} compared, ` +
        (options.voxelSpace ? 'in voxel indices' : `in mm (${volume.affineSource} affine)`),
      ...volume.notes,
    ],
    grid: {
      dims: volume.dims,
      affine: volume.affine,
      foregroundVoxels: points.foregroundVoxels,
      ...(options.label !== undefined && points.foregroundVoxels === 0 ? { labelsPresent: labelsIn(volume.values) } : {}),
      ...(options.surfels ? { surfels: slotSurfels(labelSlots(volume.values, options.label === undefined ? 'nonzero' : [options.label]), volume.dims, 1, volume.affine, options.voxelSpace)[0] } : {}),
    },
  };
}

/** Most labels a mask lacking the asked-for one reports: enough to spot a typo, bounded on float volumes. */
const MAX_LABELS_LISTED = 1000;

/** The distinct nonzero values, ascending (the first MAX_LABELS_LISTED found, when there are more). */
function labelsIn(values: ArrayLike<number>): number[] {
  const seen = new Set<number>();
  for (let n = 0; n < values.length && seen.size < MAX_LABELS_LISTED; n++) if (values[n] !== 0) seen.add(values[n]);
  return [...seen].sort((x, y) => x - y);
}
