// A label volume read whole, for the comparisons that work on the voxels themselves (--labels, --components)
// rather than on one mask's points: NIfTI today; other volume formats plug in here.
import { UsageError } from '../core/errors.js';
import { formatFromExtension, sniffFormat } from './detect-format.js';
import type { FileFormat } from './geometry.js';
import { readInputFile } from './input-file.js';
import { parseNiftiAsync, type VoxelVolume } from './nifti.js';

/** The volume of a NIfTI file, inflated (a .nii.gz) on the thread pool, off the main thread that `xhd batch` lanes share. */
export async function readVolume(path: string, format: FileFormat | undefined, option: string): Promise<VoxelVolume> {
  if (path === '-') throw new UsageError(`${option} reads label volumes from files, not from standard input`);
  const bytes = readInputFile(path, 'a NIfTI file');
  const found = format ?? formatFromExtension(path) ?? sniffFormat(bytes);
  if (found !== undefined && found !== 'nifti') {
    throw new UsageError(`${option} compares label volumes (NIfTI); ${path} is ${found.toUpperCase()}`);
  }
  return parseNiftiAsync(bytes, path);
}
