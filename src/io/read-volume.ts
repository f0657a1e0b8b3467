// A label volume read whole, for the comparisons that work on the voxels themselves (--labels, --components)
// rather than on one mask's points: any volume format (NIfTI, NRRD, MetaImage, DICOM-SEG), each giving the same
// VoxelVolume as when it is read as one mask.
import { UsageError } from '../core/errors.js';
import { formatFromExtension, sniffFormat } from './detect-format.js';
import { isVolumeFormat, type FileFormat } from './geometry.js';
import { readInputFile } from './input-file.js';
import type { VoxelVolume } from './nifti.js';
import { parseVolumeAsync } from './voxel-volume.js';

/** The volume of a file, a .nii.gz inflated on the thread pool, off the main thread that `xhd batch` lanes share. */
export async function readVolume(path: string, format: FileFormat | undefined, option: string): Promise<VoxelVolume> {
  if (path === '-') throw new UsageError(`${option} reads label volumes from files, not from standard input`);
  const bytes = readInputFile(path, 'a label volume');
  const found = format ?? formatFromExtension(path) ?? sniffFormat(bytes);
  if (!isVolumeFormat(found)) {
    throw new UsageError(`${option} compares label volumes (NIfTI, NRRD, MetaImage, DICOM-SEG); ${path} is ${found === undefined ? 'of no known format' : found.toUpperCase()}`);
  }
  return parseVolumeAsync(found, bytes, path);
}
