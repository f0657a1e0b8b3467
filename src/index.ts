// The library surface of xhd, for programs and tests that use it without the CLI.
export { hausdorff, CancelledError, METHODS, DEFAULT_SEED } from './hausdorff.js';
export type { HausdorffOptions, HausdorffResult, DirectedHausdorff, Method, BackendChoice } from './hausdorff.js';
export { compareFiles } from './compare.js';
export type { CompareResult, CompareOptions } from './compare.js';
export { compareJson } from './report/compare-json.js';
export { readGeometry, parseGeometry } from './io/read.js';
export type { Geometry, Bounds, Coordinates, FileFormat, ReadOptions } from './io/geometry.js';
export { XhdError, UsageError, InputError, OutputError, NativeError } from './errors.js';
export { XHD_VERSION } from './version.js';
export { MeshDistance, meshDistance, DISTANCE_METHODS, IDENTITY_POSE } from './mesh-distance.js';
export type { MeshDistanceOptions, DistanceMesh, DistancePair, DistanceQuery, DistanceMethod, Pose } from './mesh-distance.js';
export { pointSurfaceDistances, pointSurfaceDistancesOnly, SURFACE_METHODS } from './surface.js';
export type { SurfaceOptions, SurfaceDistances, SurfaceMeasure, SurfaceMethod, TriangleMesh } from './surface.js';
