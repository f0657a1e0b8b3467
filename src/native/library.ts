// Finds and loads a backend library. Any failure becomes one NativeError that lists what was tried,
// the likely cause and the fix, instead of a crash or a raw dlopen message.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import koffi from './koffi.js';
import type * as Koffi from 'koffi';

import { NativeError } from '../core/errors.js';
import {
  PROTOTYPES,
  XHD_ABI_VERSION,
  XHD_CAP_DELIMITED_TEXT,
  XHD_CAP_DEVICES,
  XHD_CAP_FILE_READERS,
  XHD_CAP_NEAREST_POINTS,
  XHD_CAP_REFERENCE_METHODS,
  XHD_CAP_STREAMED_COMPARE,
} from './abi.js';
import { firstLayoutMismatch, layoutReader } from './layout-check.js';

export type BackendName = 'cpu' | 'cuda' | 'optix';

/** What a library says it implements of the ABI's optional parts (xhd_capabilities). */
export interface Capabilities {
  /** xhd_nearest_points */
  nearestPoints: boolean;
  /** xhd_read_file, xhd_read_ply_vertices, xhd_read_triangle_records, xhd_count_degenerate_triangles and the LAS,
   * LAZ and E57 readers */
  fileReaders: boolean;
  /** xhd_count_lines and xhd_parse_delimited */
  delimitedText: boolean;
  /** Computes on devices (GPUs) that xhd_device_count counts. */
  devices: boolean;
  /** The double-precision brute-force references (the brute methods). */
  referenceMethods: boolean;
  /** xhd_points_compare_files: a compare streamed from binary PLY files in slabs and tiles. */
  streamedCompare: boolean;
}

export function capabilitiesOf(bits: bigint): Capabilities {
  const has = (bit: bigint) => (bits & bit) !== 0n;
  return {
    nearestPoints: has(XHD_CAP_NEAREST_POINTS),
    fileReaders: has(XHD_CAP_FILE_READERS),
    delimitedText: has(XHD_CAP_DELIMITED_TEXT),
    devices: has(XHD_CAP_DEVICES),
    referenceMethods: has(XHD_CAP_REFERENCE_METHODS),
    streamedCompare: has(XHD_CAP_STREAMED_COMPARE),
  };
}

export interface NativeBackend {
  name: BackendName;
  path: string;
  abiVersion: number;
  capabilities: Capabilities;
  lastError: () => string;
  /** Page-locking the caller's input memory for the GPUs' copies, and its undoing (xhd_host_pin): src/native/pinned-inputs.ts. */
  hostPin: Koffi.KoffiFunction;
  hostUnpin: Koffi.KoffiFunction;
  deviceCount: () => number;
  // koffi function: (ordinal, out) => status, or .async(ordinal, out, callback) on a worker thread.
  deviceInfo: Koffi.KoffiFunction;
  /** (ordinal, [optixVersion], [rtcoreVersion]) => status: OptiX on a device; only the OptiX library has it. */
  optixInfo: Koffi.KoffiFunction | null;
  // koffi function: call synchronously, or through .async(...args, callback).
  hausdorff: Koffi.KoffiFunction;
  /** The Hausdorff distance and, when asked, every point's nearest in one search (xhd_points_compare). */
  pointsCompare: Koffi.KoffiFunction;
  pointsCompareStats: Koffi.KoffiFunction;
  /** The same on several workers (GPUs; CPU thread groups) with a memory limit (xhd_points_compare_placed). */
  pointsComparePlaced: Koffi.KoffiFunction;
  pointSurfaceDistance: Koffi.KoffiFunction;
  /** Every point's nearest neighbour; null where the library does not implement it (capabilities.nearestPoints). */
  nearestPoints: Koffi.KoffiFunction | null;
  /** The compare streamed from files (xhd_points_compare_files); null where not implemented (capabilities.streamedCompare). */
  pointsCompareFiles: Koffi.KoffiFunction | null;
  surfaceArea: Koffi.KoffiFunction;
  sampleSurface: Koffi.KoffiFunction;
  /** All of a surface compare in one call (xhd_surface_compare), and the release of what it returns. */
  surfaceCompare: Koffi.KoffiFunction;
  surfaceCompareFree: Koffi.KoffiFunction;
  /** A voxel mask's points (xhd_mask_points: every core on the CPU, a kernel on a GPU) and their release. */
  maskPoints: Koffi.KoffiFunction;
  maskPointsFree: Koffi.KoffiFunction;
  /** The statistics of per-point distances (xhd_distance_stats: every core on the CPU, the device on a GPU). */
  distanceStats: Koffi.KoffiFunction;
  /** The spatial join (xhd_join), reading its pairs out and freeing them. */
  join: Koffi.KoffiFunction;
  joinRead: Koffi.KoffiFunction;
  joinFree: Koffi.KoffiFunction;
  distanceContextCreate: Koffi.KoffiFunction;
  distanceQuery: Koffi.KoffiFunction;
  distanceQueryMany: Koffi.KoffiFunction;
  distanceContextDestroy: Koffi.KoffiFunction;
  /** The file readers' entry points (src/io/native-reader.ts); null where the library does not implement them all
   * (capabilities.fileReaders and delimitedText). */
  readers: NativeReaders | null;
}

export interface NativeReaders {
  readFile: Koffi.KoffiFunction;
  readPlyVertices: Koffi.KoffiFunction;
  readTriangleRecords: Koffi.KoffiFunction;
  countDegenerateTriangles: Koffi.KoffiFunction;
  readLas: Koffi.KoffiFunction;
  readE57: Koffi.KoffiFunction;
  readLaz: Koffi.KoffiFunction;
  writeLaz: Koffi.KoffiFunction;
  compressLazChunk: Koffi.KoffiFunction;
  countLines: Koffi.KoffiFunction;
  parseDelimited: Koffi.KoffiFunction;
}

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Directory holding the built libraries: XHD_LIBRARY_DIR, else <package>/build. */
export function libraryDir(): string {
  return process.env.XHD_LIBRARY_DIR || join(packageRoot, 'build');
}

function lacksEntryPoints(name: string, path: string, err: unknown): NativeError {
  return new NativeError(
    `the native ${name} library at ${path} lacks the xhd entry points ` +
      `(${err instanceof Error ? err.message : String(err)}); rebuild it with \`npm run build\``,
  );
}

const loaded = new Map<BackendName, NativeBackend>();

/** The likely cause and the fix of a missing library, one line each. */
function missingLibraryHelp(name: BackendName): [string, string] {
  if (name === 'cuda') {
    return ['  Likely cause: nvcc (the CUDA compiler) was not found when `npm install` ran, or its build failed.',
      '  Fix: install the CUDA toolkit (nvcc on PATH or CUDA_HOME set) and run `npm run build`.'];
  }
  if (name === 'optix') {
    return ['  Likely cause: nvcc or the OptiX SDK headers were not found when `npm install` ran, or its build failed.',
      '  Fix: install the CUDA toolkit and the OptiX SDK (9.0 for driver 580), set OPTIX_ROOT to the SDK and run `npm run build`.'];
  }
  return ['  Likely cause: `npm install` did not build it (no C++ compiler, or the build failed).',
    '  Fix: install g++ and run `npm run build` in the xhd directory, then try again.'];
}

/**
 * Every struct this xhd declares must have the library's own layout: a field added on one side only would
 * otherwise be read or written past, silently. Checked once per library, after its version.
 */
function checkStructLayouts(name: BackendName, path: string, lib: Koffi.IKoffiLib): void {
  let mismatch: string | null;
  try {
    mismatch = firstLayoutMismatch(layoutReader(lib));
  } catch (err) {
    throw lacksEntryPoints(name, path, err);
  }
  if (mismatch) throw new NativeError(`the native ${name} library at ${path}: ${mismatch}; rebuild it with \`npm run build\``);
}

export function loadBackend(name: BackendName): NativeBackend {
  const cached = loaded.get(name);
  if (cached) return cached;
  const path = join(libraryDir(), `libxhd_${name}.so`);
  if (!existsSync(path)) {
    throw new NativeError(
      [
        `the native ${name} library is missing: ${path}`,
        ...missingLibraryHelp(name),
      ].join('\n'),
    );
  }
  // CUDA loads a library's kernels lazily by default, each at its first launch, inside the timed work of a
  // one-off command: the mask pair's statistics took 3.1-3.5 ms on an H200 host lazily and 2.2 ms eagerly, for
  // the same process wall (docs/benchmarks.md, "Masks end to end"). Eagerly they load with the context, which
  // xhd starts on a worker thread while the files are read. A setting the user made is kept.
  if (name !== 'cpu') process.env.CUDA_MODULE_LOADING ??= 'EAGER';
  let lib: Koffi.IKoffiLib;
  try {
    lib = koffi.load(path);
  } catch (err) {
    throw new NativeError(
      [
        `the native ${name} library could not be loaded: ${path}`,
        `  ${err instanceof Error ? err.message : String(err)}`,
        '  Likely cause: it was built on another machine or for another CPU.',
        '  Fix: rebuild it here with `npm run build`.',
      ].join('\n'),
    );
  }
  // The version is checked before any other symbol is bound: another ABI may name them differently.
  let abiVersion: number;
  try {
    abiVersion = lib.func(PROTOTYPES.abiVersion)() as number;
  } catch (err) {
    throw lacksEntryPoints(name, path, err);
  }
  if (abiVersion !== XHD_ABI_VERSION) {
    throw new NativeError(
      `the native ${name} library at ${path} has ABI version ${abiVersion}, ` +
        `this xhd needs ${XHD_ABI_VERSION}; rebuild it with \`npm run build\``,
    );
  }
  checkStructLayouts(name, path, lib);
  let backend: NativeBackend;
  try {
    const capabilities = capabilitiesOf(BigInt(lib.func(PROTOTYPES.capabilities)() as number | bigint));
    backend = {
      name,
      path,
      abiVersion,
      capabilities,
      lastError: lib.func(PROTOTYPES.lastError) as () => string,
      hostPin: lib.func(PROTOTYPES.hostPin),
      hostUnpin: lib.func(PROTOTYPES.hostUnpin),
      deviceCount: lib.func(PROTOTYPES.deviceCount) as () => number,
      deviceInfo: lib.func(PROTOTYPES.deviceInfo),
      optixInfo: name === 'optix' ? lib.func(PROTOTYPES.optixInfo) : null,
      hausdorff: lib.func(PROTOTYPES.hausdorff),
      pointsCompare: lib.func(PROTOTYPES.pointsCompare),
      pointsCompareStats: lib.func(PROTOTYPES.pointsCompareStats),
      pointsComparePlaced: lib.func(PROTOTYPES.pointsComparePlaced),
      pointSurfaceDistance: lib.func(PROTOTYPES.pointSurfaceDistance),
      nearestPoints: capabilities.nearestPoints ? lib.func(PROTOTYPES.nearestPoints) : null,
      pointsCompareFiles: capabilities.streamedCompare ? lib.func(PROTOTYPES.pointsCompareFiles) : null,
      surfaceArea: lib.func(PROTOTYPES.surfaceArea),
      sampleSurface: lib.func(PROTOTYPES.sampleSurface),
      surfaceCompare: lib.func(PROTOTYPES.surfaceCompare),
      surfaceCompareFree: lib.func(PROTOTYPES.surfaceCompareFree),
      maskPoints: lib.func(PROTOTYPES.maskPoints),
      maskPointsFree: lib.func(PROTOTYPES.maskPointsFree),
      distanceStats: lib.func(PROTOTYPES.distanceStats),
      join: lib.func(PROTOTYPES.join),
      joinRead: lib.func(PROTOTYPES.joinRead),
      joinFree: lib.func(PROTOTYPES.joinFree),
      distanceContextCreate: lib.func(PROTOTYPES.distanceContextCreate),
      distanceQuery: lib.func(PROTOTYPES.distanceQuery),
      distanceQueryMany: lib.func(PROTOTYPES.distanceQueryMany),
      distanceContextDestroy: lib.func(PROTOTYPES.distanceContextDestroy),
      readers: capabilities.fileReaders && capabilities.delimitedText ? {
        readFile: lib.func(PROTOTYPES.readFile),
        readPlyVertices: lib.func(PROTOTYPES.readPlyVertices),
        readTriangleRecords: lib.func(PROTOTYPES.readTriangleRecords),
        countDegenerateTriangles: lib.func(PROTOTYPES.countDegenerateTriangles),
        readLas: lib.func(PROTOTYPES.readLas),
        readE57: lib.func(PROTOTYPES.readE57),
        readLaz: lib.func(PROTOTYPES.readLaz),
        writeLaz: lib.func(PROTOTYPES.writeLaz),
        compressLazChunk: lib.func(PROTOTYPES.compressLazChunk),
        countLines: lib.func(PROTOTYPES.countLines),
        parseDelimited: lib.func(PROTOTYPES.parseDelimited),
      } : null,
    };
  } catch (err) {
    throw lacksEntryPoints(name, path, err);
  }
  loaded.set(name, backend);
  return backend;
}
