// The native file readers (kernels/cpu/ply_vertex_reader.cpp and delimited_rows.cpp). They come from the
// CPU library whichever backend computes: reading is host work, and that library is always built. Where
// it cannot be loaded (not built, or built for another ABI) the TypeScript readers do all the work, as
// they always could; the computation then reports the library problem itself. XHD_NATIVE_READ=0 turns
// the native readers off, so that tests (and a user who suspects them) can compare the two.
import { loadBackend, type NativeBackend, type NativeReaders } from '../native/library.js';

export interface NativeReader extends NativeReaders {
  lastError: () => string;
  /** A voxel mask's points on every core (xhd_mask_points), the library's name and the release of its memory. */
  maskPoints: NativeBackend['maskPoints'];
  maskPointsFree: NativeBackend['maskPointsFree'];
  name: string;
}

let loaded: NativeReader | null | undefined;

export function nativeReader(): NativeReader | undefined {
  if (process.env.XHD_NATIVE_READ === '0') return undefined;
  if (loaded === undefined) {
    let backend: NativeBackend | undefined;
    try {
      backend = loadBackend('cpu');
    } catch {
      backend = undefined;
    }
    loaded = backend?.readers
      ? { ...backend.readers, lastError: backend.lastError, maskPoints: backend.maskPoints, maskPointsFree: backend.maskPointsFree, name: backend.name }
      : null;
  }
  return loaded ?? undefined;
}

/** Pieces forced small (XHD_READ_PIECE_BYTES, for tests) are passed on; 0 leaves the library its default. */
export function nativePieceBytes(): number {
  const forced = Number(process.env.XHD_READ_PIECE_BYTES);
  return forced > 0 ? Math.floor(forced) : 0;
}
