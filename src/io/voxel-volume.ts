// The label-volume readers behind one call: each gives the same VoxelVolume (values, grid, RAS+ affine).
import { parseDicomSeg } from './dicom-seg.js';
import { parseMetaImage } from './metaimage.js';
import { parseNifti, parseNiftiAsync, type VoxelVolume } from './nifti.js';
import { parseNrrd } from './nrrd.js';
import type { VoxelFormat } from './geometry.js';

/**
 * `label` is the --label asked for: DICOM-SEG, whose segments may overlap, keeps that segment's voxels where they do
 * (src/io/dicom-seg.ts); the other formats hold one label a voxel already and ignore it.
 */
export function parseVolume(format: VoxelFormat, bytes: Uint8Array, name: string, label?: number): VoxelVolume {
  switch (format) {
    case 'nifti': return parseNifti(bytes, name);
    case 'nrrd': return parseNrrd(bytes, name);
    case 'metaimage': return parseMetaImage(bytes, name);
    case 'dicom-seg': return parseDicomSeg(bytes, name, { label });
  }
}

/** parseVolume with a .nii.gz file inflated on the thread pool (parseNiftiAsync); the other formats as parseVolume. */
export async function parseVolumeAsync(format: VoxelFormat, bytes: Uint8Array, name: string, label?: number): Promise<VoxelVolume> {
  return format === 'nifti' ? parseNiftiAsync(bytes, name) : parseVolume(format, bytes, name, label);
}
