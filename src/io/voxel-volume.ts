// The label-volume readers behind one call: each gives the same VoxelVolume (values, grid, RAS+ affine).
import { parseMetaImage } from './metaimage.js';
import { parseNifti, parseNiftiAsync, type VoxelVolume } from './nifti.js';
import { parseNrrd } from './nrrd.js';

export function parseVolume(format: 'nifti' | 'nrrd' | 'metaimage', bytes: Uint8Array, name: string): VoxelVolume {
  switch (format) {
    case 'nifti': return parseNifti(bytes, name);
    case 'nrrd': return parseNrrd(bytes, name);
    case 'metaimage': return parseMetaImage(bytes, name);
  }
}

/** parseVolume with a .nii.gz file inflated on the thread pool (parseNiftiAsync); NRRD and MetaImage as parseVolume. */
export async function parseVolumeAsync(format: 'nifti' | 'nrrd' | 'metaimage', bytes: Uint8Array, name: string): Promise<VoxelVolume> {
  return format === 'nifti' ? parseNiftiAsync(bytes, name) : parseVolume(format, bytes, name);
}
