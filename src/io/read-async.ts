// readGeometryAsync as the commands call it: a file named as a volume (NIfTI, NRRD, MetaImage, DICOM-SEG) is read
// by the mask readers alone; anything else by read.ts, loaded then. A compare of two masks so starts without
// compiling every point-cloud and mesh reader (LAS, LAZ, COPC, E57, PLY, OBJ, …: about 400 KB of the CLI's
// bundle), with the same geometry or the same error as read.ts gives: a file named as a volume is read whole and
// parsed as one there too.
import { formatFromExtension } from './format-names.js';
import { isVolumeFormat, type Geometry, type ReadOptions } from './geometry.js';
import { STDIN_NAME } from './stdin-name.js';

export async function readGeometryAsync(path: string, options: ReadOptions = {}): Promise<Geometry> {
  const named = path === STDIN_NAME ? undefined : options.format ?? formatFromExtension(path);
  if (isVolumeFormat(named)) return (await import('./read-volume-file.js')).readVolumeFileAsync(path, named, options);
  return (await import('./read.js')).readGeometryAsync(path, options);
}
