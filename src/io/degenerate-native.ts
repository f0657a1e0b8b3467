// The degenerate triangles of a mesh counted by the native library (xhd_count_degenerate_triangles) on every
// core, for the note every reader gives. countDegenerateTriangles (build.ts) is the reference, and the count is
// the same bit for bit: the library does JavaScript's double arithmetic in the same order, never fused.
import { NativeError } from '../core/errors.js';
import { meshArg } from '../native/abi.js';
import type { Coordinates } from './geometry.js';
import type { NativeReader } from './native-reader.js';
import { readerThreads } from './reader-threads.js';

/** Meshes with fewer triangles are counted in TypeScript, which takes well under a millisecond for them. */
export const NATIVE_DEGENERATE_TRIANGLES = 65_536;

export function countDegenerateTrianglesNatively(reader: NativeReader, positions: Coordinates, triangles: Uint32Array, threads?: number): number {
  const mesh = meshArg(positions, triangles);
  // A partial vertex at the end (never from a reader) is no vertex: TypeScript reads its missing values as NaN.
  mesh.vertex_count = Math.floor(positions.length / 3);
  mesh.triangle_count = Math.floor(triangles.length / 3);
  const degenerate = new BigUint64Array(1);
  const status = reader.countDegenerateTriangles(mesh, readerThreads(threads), degenerate) as number;
  if (status !== 0) throw new NativeError(`counting degenerate triangles: ${reader.lastError()}`);
  return Number(degenerate[0]);
}
