// A file named as a volume, read as read.ts reads it (whole, then parsed as a mask off the main thread, then
// filtered), without loading the other readers: see read-async.ts.
import type { Geometry, ReadOptions, VoxelFormat } from './geometry.js';
import { readInputFile } from './input-file.js';
import { filtered } from './read-filter.js';
import { parseVoxelMaskAsync } from './voxel-geometry.js';

export async function readVolumeFileAsync(path: string, format: VoxelFormat, options: ReadOptions): Promise<Geometry> {
  const bytes = readInputFile(path, 'a geometry file');
  return filtered(await parseVoxelMaskAsync(bytes, path, options.mask ?? {}, format, options.threads, options.maskDevice), path, options);
}
