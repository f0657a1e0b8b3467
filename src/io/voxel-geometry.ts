// A NIfTI voxel mask as the points every comparison works on: its surface voxels (by default) or all of
// its voxels, in millimetres through the file's affine, with its grid kept for the same-space check.
import { computeBounds, type Geometry, type MaskOptions } from './geometry.js';
import { parseNifti } from './nifti.js';
import { maskToPoints } from './voxel-mask.js';

export function parseVoxelMask(bytes: Uint8Array, name: string, options: MaskOptions): Geometry {
  const volume = parseNifti(bytes, name);
  const region = options.region ?? 'surface';
  const points = maskToPoints(volume, { label: options.label, region, voxelSpace: options.voxelSpace });
  const which = options.label === undefined ? 'nonzero voxels' : `voxels labelled ${options.label}`;
  const [nx, ny, nz] = volume.dims;
  return {
    positions: points.positions,
    count: points.count,
    dims: 3,
    bounds: computeBounds(points.positions),
    format: 'nifti',
    notes: [
      `mask of ${points.foregroundVoxels.toLocaleString('en-US')} ${which} in a ${nx}×${ny}×${nz} grid; ` +
        `${region === 'surface' ? 'its surface voxels' : 'all of them'} compared, ` +
        (options.voxelSpace ? 'in voxel indices' : `in mm (${volume.affineSource} affine)`),
    ],
    grid: { dims: volume.dims, affine: volume.affine, foregroundVoxels: points.foregroundVoxels },
  };
}
