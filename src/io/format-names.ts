// A file's format from its name alone: the extensions xhd knows. Apart from the sniffing of detect-format.ts, so
// that deciding by name (as `xhd compare` does before reading two masks) loads no reader.
import { extname } from 'node:path';

import type { FileFormat } from './geometry.js';

const EXTENSIONS: Record<string, FileFormat> = {
  '.off': 'off',
  '.ply': 'ply',
  '.stl': 'stl',
  '.obj': 'obj',
  '.csv': 'csv',
  '.xyz': 'xyz',
  '.txt': 'xyz',
  '.pts': 'xyz',
  '.nii': 'nifti',
  '.nrrd': 'nrrd',
  '.nhdr': 'nrrd',
  '.mha': 'metaimage',
  '.mhd': 'metaimage',
  '.dcm': 'dicom-seg',
  '.las': 'las',
  '.laz': 'laz',
  '.pcd': 'pcd',
  '.e57': 'e57',
};

export function formatFromExtension(name: string): FileFormat | undefined {
  if (name.toLowerCase().endsWith('.nii.gz')) return 'nifti';
  return EXTENSIONS[extname(name).toLowerCase()];
}
