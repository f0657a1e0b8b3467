// The library surface of xhd, for programs and tests that use it without the CLI.
export { hausdorff, CancelledError, METHODS, DEFAULT_SEED } from './ops/hausdorff.js';
export type { HausdorffOptions, HausdorffResult, DirectedHausdorff, Method, BackendChoice } from './ops/hausdorff.js';
export { compareFiles } from './jobs/compare.js';
export type { CompareResult, CompareOptions } from './jobs/compare.js';
export { compareJson } from './report/compare-json.js';
export { readGeometry, parseGeometry } from './io/read.js';
export type { Geometry, Bounds, Coordinates, FileFormat, ReadOptions } from './io/geometry.js';
export { XhdError, UsageError, InputError, OutputError, NativeError } from './core/errors.js';
export { XHD_VERSION } from './core/version.js';
export { MeshDistance, meshDistance, DISTANCE_METHODS, IDENTITY_POSE } from './ops/mesh-distance.js';
export type { MeshDistanceOptions, DistanceMesh, DistancePair, DistanceQuery, DistanceMethod, Pose } from './ops/mesh-distance.js';
export { pointSurfaceDistances, pointSurfaceDistancesOnly, SURFACE_METHODS } from './ops/surface-distance.js';
export type { SurfaceOptions, SurfaceDistances, SurfaceMeasure, SurfaceMethod, TriangleMesh } from './ops/surface-distance.js';
