// Allocating a reader's coordinates for a count a file declares: refused, with the file named, when it is
// more memory than the machine has, rather than attempted (a lying count must not take the machine down).
import { freemem, totalmem } from 'node:os';

import { InputError } from '../core/errors.js';
import { plural } from './build.js';

/** Room for `count` points' coordinates, refused (not attempted) when it is more memory than the machine has. */
export function allocatePositions(count: number, file: string): Float64Array {
  checkRoomFor(count, file);
  const bytes = 24 * count;
  try {
    return new Float64Array(3 * count);
  } catch {
    throw new InputError(file, {}, `${plural(count, 'point')} need ${(bytes / 1024 ** 3).toFixed(1)} GiB for their coordinates; only ${(freemem() / 1024 ** 3).toFixed(1)} GiB are free`);
  }
}


/** Refuses `count` points' coordinates when they would take more memory than the machine has. */
export function checkRoomFor(count: number, file: string): void {
  const bytes = 24 * count;
  if (bytes > totalmem()) {
    throw new InputError(file, {}, `${plural(count, 'point')} need ${(bytes / 1024 ** 3).toFixed(1)} GiB for their coordinates, more than this machine's ${(totalmem() / 1024 ** 3).toFixed(1)} GiB of memory`);
  }
}
