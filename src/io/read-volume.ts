// A label volume read whole, for the comparisons that work on the voxels themselves (--labels, --components)
// rather than on one mask's points: NIfTI today; other volume formats plug in here.
import { UsageError } from '../core/errors.js';
import { formatFromExtension, sniffFormat } from './detect-format.js';
import type { FileFormat } from './geometry.js';
import { readInputFile } from './input-file.js';
import { parseNifti, type VoxelVolume } from './nifti.js';

export function readVolume(path: string, format: FileFormat | undefined, option: string): VoxelVolume {
  if (path === '-') throw new UsageError(`${option} reads label volumes from files, not from standard input`);
  const bytes = readInputFile(path, 'a NIfTI file');
  const found = format ?? formatFromExtension(path) ?? sniffFormat(bytes);
  if (found !== undefined && found !== 'nifti') {
    throw new UsageError(`${option} compares label volumes (NIfTI); ${path} is ${found.toUpperCase()}`);
  }
  return parseNifti(bytes, path);
}
