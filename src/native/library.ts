// Finds and loads a backend library. Any failure becomes one NativeError that lists what was tried,
// the likely cause and the fix, instead of a crash or a raw dlopen message.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import koffi from 'koffi';

import { NativeError } from '../core/errors.js';
import { ABI_STRUCTS, PROTOTYPES, XHD_ABI_VERSION } from './abi.js';

export type BackendName = 'cpu' | 'cuda' | 'optix';

export interface NativeBackend {
  name: BackendName;
  path: string;
  abiVersion: number;
  lastError: () => string;
  deviceCount: () => number;
  // koffi function: (ordinal, out) => status, or .async(ordinal, out, callback) on a worker thread.
  deviceInfo: koffi.KoffiFunction;
  /** (ordinal, [optixVersion], [rtcoreVersion]) => status: OptiX on a device; only the OptiX library has it. */
  optixInfo: koffi.KoffiFunction | null;
  // koffi function: call synchronously, or through .async(...args, callback).
  hausdorff: koffi.KoffiFunction;
  pointSurfaceDistance: koffi.KoffiFunction;
  /** Every point's nearest neighbour; null where the library does not export it (so far the CUDA one). */
  nearestPoints: koffi.KoffiFunction | null;
  surfaceArea: koffi.KoffiFunction;
  sampleSurface: koffi.KoffiFunction;
  /** All of a surface compare in one call (xhd_surface_compare), and the release of what it returns. */
  surfaceCompare: koffi.KoffiFunction;
  surfaceCompareFree: koffi.KoffiFunction;
  distanceContextCreate: koffi.KoffiFunction;
  distanceQuery: koffi.KoffiFunction;
  distanceQueryMany: koffi.KoffiFunction;
  distanceContextDestroy: koffi.KoffiFunction;
  /** The file readers' entry points (src/io/native-reader.ts); null where the library does not export them (the CUDA one). */
  readers: NativeReaders | null;
}

export interface NativeReaders {
  readFile: koffi.KoffiFunction;
  readPlyVertices: koffi.KoffiFunction;
  countLines: koffi.KoffiFunction;
  parseDelimited: koffi.KoffiFunction;
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
 * Every struct this xhd declares must have the library's own size: a field added on one side only would
 * otherwise be read or written past, silently. Checked once per library, after its version.
 */
function checkStructLayouts(name: BackendName, path: string, lib: koffi.IKoffiLib): void {
  let structSize: (struct: string) => number | bigint;
  try {
    structSize = lib.func(PROTOTYPES.structSize) as (struct: string) => number | bigint;
  } catch (err) {
    throw lacksEntryPoints(name, path, err);
  }
  for (const struct of ABI_STRUCTS) {
    const theirs = Number(structSize(struct)), ours = koffi.sizeof(struct);
    if (theirs !== ours) {
      throw new NativeError(
        `the native ${name} library at ${path} lays out ${struct} in ${theirs} bytes, this xhd in ${ours}; ` +
          'rebuild it with `npm run build`',
      );
    }
  }
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
  let lib: koffi.IKoffiLib;
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
    backend = {
      name,
      path,
      abiVersion,
      lastError: lib.func(PROTOTYPES.lastError) as () => string,
      deviceCount: lib.func(PROTOTYPES.deviceCount) as () => number,
      deviceInfo: lib.func(PROTOTYPES.deviceInfo),
      optixInfo: name === 'optix' ? lib.func(PROTOTYPES.optixInfo) : null,
      hausdorff: lib.func(PROTOTYPES.hausdorff),
      pointSurfaceDistance: lib.func(PROTOTYPES.pointSurfaceDistance),
      nearestPoints: name === 'cpu' ? lib.func(PROTOTYPES.nearestPoints) : null,
      surfaceArea: lib.func(PROTOTYPES.surfaceArea),
      sampleSurface: lib.func(PROTOTYPES.sampleSurface),
      surfaceCompare: lib.func(PROTOTYPES.surfaceCompare),
      surfaceCompareFree: lib.func(PROTOTYPES.surfaceCompareFree),
      distanceContextCreate: lib.func(PROTOTYPES.distanceContextCreate),
      distanceQuery: lib.func(PROTOTYPES.distanceQuery),
      distanceQueryMany: lib.func(PROTOTYPES.distanceQueryMany),
      distanceContextDestroy: lib.func(PROTOTYPES.distanceContextDestroy),
      readers: name === 'cpu' ? {
        readFile: lib.func(PROTOTYPES.readFile),
        readPlyVertices: lib.func(PROTOTYPES.readPlyVertices),
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
