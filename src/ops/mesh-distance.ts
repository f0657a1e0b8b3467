// Mesh–mesh minimum and maximum distance (the gDist algorithm): a context holds both meshes' hierarchies
// (and their device copies on a GPU), built once; each query poses B and measures. Frames of a moving B
// reuse the context, as the paper's benchmarks do.

import { expectOneOf, expectPoints } from '../core/arguments.js';
import { NativeError, UsageError } from '../core/errors.js';
import { cudaDevice, type BackendChoice, type DeviceInfo } from './backends.js';
import { resolveRun } from './run-settings.js';
import type { Coordinates } from '../io/geometry.js';
import { DISTANCE_CONTACTS, DISTANCE_PENETRATION, DISTANCE_MAX, DISTANCE_METHOD_CODES, DISTANCE_MIN, DISTANCE_ON_DEMAND, meshArg, type RawDistancePair, type RawDistanceResult } from '../native/abi.js';
import { callNative } from '../native/call.js';
import { contactsOf, DistanceResults, penetrationOf, type DistancePair, type DistanceQuery } from '../native/distance-results.js';
import { IDENTITY_POSE, type Pose } from '../core/pose.js';
import type { BackendName, NativeBackend } from '../native/library.js';

export const DISTANCE_METHODS = ['bvh', 'brute'] as const;
export type DistanceMethod = (typeof DISTANCE_METHODS)[number];

export interface MeshDistanceOptions {
  /** Which distances every query measures (default: the minimum only). */
  min?: boolean;
  max?: boolean;
  /**
   * With the minimum: when it is 0, every triangle pair at distance 0 counted and bounded (DistanceContacts).
   * Computed by the CPU backend only: backend auto then picks the CPU, cuda is refused.
   */
  contacts?: boolean;
  /**
   * With the minimum, for closed meshes: whether the solids they bound overlap, and bounds on the penetration
   * depth (DistancePenetration). Computed by the CPU backend only: backend auto then picks the CPU, cuda is refused.
   */
  penetration?: boolean;
  /** bvh (default): f12 hierarchies; brute: every triangle pair, the double-precision reference (CPU). */
  method?: DistanceMethod;
  /**
   * For one or a few queries: each hierarchy is ordered, and each node's bounds made, when a search first
   * reaches the node, not all at creation (the CPU backend; the same answers). A single query on two
   * 1M-triangle spheres reaches about a hundred of each mesh's million nodes. With backend auto the CPU is then
   * chosen: its creation splits only the top levels, the GPU's builds every bound (an H200 host, the whole
   * `xhd distance` on two 1M-triangle spheres: 0.24–0.29 s against 0.87 s; 7.5M: 0.67–0.75 s against 3.16 s).
   */
  boundsOnDemand?: boolean;
  backend?: BackendChoice;
  device?: number;
  threads?: number;
  /** Building the hierarchies: called about ten times a second with the work done and to do (units of the
   * library's choosing), and once at the end. */
  onProgress?: (done: number, total: number) => void;
  /** Stops the build between its steps: create() then rejects with CancelledError, nothing kept. */
  signal?: AbortSignal;
}

/** How far a queryMany call has got, and how to stop it. */
export interface QueryManyOptions {
  /** Called about ten times a second with the poses answered so far and the poses of the call, and once at the end. */
  onProgress?: (done: number, total: number) => void;
  /** Stops the call before its next pose: it rejects with CancelledError; the context stays usable. */
  signal?: AbortSignal;
}

/**
 * A mesh as the distance measures it: its vertices exactly as read (float32 files stay float32, text and double
 * files double; see Coordinates), which every distance and point is exact over, and its vertex-index triples.
 */
export interface DistanceMesh {
  positions: Coordinates;
  triangles: Uint32Array;
}

// The result types are declared beside the code that decodes them (native/) and the pose with the pose
// parsers (core/); re-exported here, where callers of this operation look for them.
export type { DistanceContacts, DistancePair, DistancePenetration, DistanceQuery } from '../native/distance-results.js';
export { IDENTITY_POSE, type Pose } from '../core/pose.js';

function pair(raw: RawDistancePair): DistancePair {
  const [ax, ay, az] = raw.point_a, [bx, by, bz] = raw.point_b;
  return {
    distance: raw.distance,
    triangleA: Number(raw.triangle_a),
    triangleB: Number(raw.triangle_b),
    pointA: [ax, ay, az],
    pointB: [bx, by, bz],
    intersecting: raw.intersecting !== 0,
  };
}

const triple = (v: number[]): [number, number, number] => [v[0], v[1], v[2]];

function checkMesh(mesh: DistanceMesh, name: string): void {
  expectPoints(mesh.positions, `${name} positions`);
  if (!(mesh.triangles instanceof Uint32Array) || mesh.triangles.length === 0 || mesh.triangles.length % 3 !== 0) {
    throw new UsageError(`Expected ${name} triangles to be a non-empty Uint32Array of vertex-index triples`);
  }
}

const REFUSAL = 'the mesh distance cannot be measured';

export class MeshDistance {
  private static live = 0;
  private closed = false;
  /** The last query begun: the library takes one query per context at a time (and a CPU context starts
   * from its last answer), so queries wait for each other, and close() for them. */
  private last: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly native: NativeBackend,
    private context: unknown,
    readonly which: { min: boolean; max: boolean; contacts: boolean; penetration: boolean },
    /** Building both hierarchies (and uploading them), in milliseconds. */
    readonly buildMs: number,
    readonly threads: number,
    readonly device: DeviceInfo | null,
  ) {}

  get backend(): BackendName {
    return this.native.name;
  }

  /** Contexts created and not yet freed, in this process: what a cancelled run must leave at 0. */
  static get open(): number {
    return MeshDistance.live;
  }

  /** Builds both hierarchies; the meshes' arrays are copied, so they may change afterwards. */
  static async create(a: DistanceMesh, b: DistanceMesh, options: MeshDistanceOptions = {}): Promise<MeshDistance> {
    checkMesh(a, 'mesh A');
    checkMesh(b, 'mesh B');
    const min = options.min ?? !options.max;
    const max = options.max ?? false;
    if (!min && !max) throw new UsageError('ask for the minimum distance, the maximum, or both');
    const method = expectOneOf(options.method ?? 'bvh', DISTANCE_METHODS, 'method');
    const contacts = options.contacts ?? false;
    if (contacts && !min) throw new UsageError('contacts come with the minimum distance: ask for it too');
    if (contacts && options.backend !== undefined && options.backend !== 'auto' && options.backend !== 'cpu') {
      throw new UsageError(`contacts are computed by the CPU backend only (asked for ${options.backend})`);
    }
    const penetration = options.penetration ?? false;
    if (penetration && !min) throw new UsageError('penetration facts come with the minimum distance: ask for it too');
    if (penetration && options.backend !== undefined && options.backend !== 'auto' && options.backend !== 'cpu') {
      throw new UsageError(`penetration facts are computed by the CPU backend only (asked for ${options.backend})`);
    }
    const onDemand = options.boundsOnDemand ?? false;
    const toCpu = contacts || penetration || (onDemand && (options.backend === undefined || options.backend === 'auto'));
    const runOptions = toCpu ? { ...options, backend: 'cpu' as const } : options;
    const { backend: native, threads, device } = resolveRun(runOptions, method === 'brute' ? 'brute' : 'grid');
    // Only the CPU makes bounds on demand; a GPU context builds them all for the device.
    const which = (min ? DISTANCE_MIN : 0) | (max ? DISTANCE_MAX : 0) | (contacts ? DISTANCE_CONTACTS : 0) | (penetration ? DISTANCE_PENETRATION : 0) |
      (onDemand && native.name === 'cpu' ? DISTANCE_ON_DEMAND : 0);
    const out: unknown[] = [null];
    const buildMs = new Float64Array(1);
    // A cancelled or failed build frees what it built and returns no context: nothing to close here.
    await callNative(native, native.distanceContextCreate, [meshArg(a.positions, a.triangles), meshArg(b.positions, b.triangles),
      { which, method: DISTANCE_METHOD_CODES[method], threads, device }, out, buildMs],
    { onProgress: options.onProgress, signal: options.signal, refusal: REFUSAL });
    if (out[0] === null) throw new NativeError(`${native.name} backend: no distance context was returned`);
    MeshDistance.live++;
    const onGpu = native.name !== 'cpu';
    return new MeshDistance(native, out[0], { min, max, contacts, penetration }, buildMs[0], onGpu ? 0 : threads, onGpu ? cudaDevice(device) : null);
  }

  /** The distances between A and B posed by pose (default: as given). */
  async query(pose: Pose = IDENTITY_POSE, signal?: AbortSignal): Promise<DistanceQuery> {
    if (this.closed) throw new UsageError('this MeshDistance has been closed');
    if (!(pose instanceof Float64Array) || pose.length !== 12 || !pose.every(Number.isFinite)) {
      throw new UsageError('Expected a pose of 12 finite numbers (a 3×4 matrix, row by row)');
    }
    const raw = {} as RawDistanceResult;
    const context = this.context;
    const run = this.last.then(() => callNative(this.native, this.native.distanceQuery, [context, pose, raw], { signal, refusal: REFUSAL }));
    this.last = run.catch(() => undefined);
    await run;
    return {
      min: this.which.min ? pair(raw.min) : null,
      contacts: this.which.contacts ? contactsOf(Number(raw.contact_pairs), triple(raw.contact_min), triple(raw.contact_max)) : null,
      penetration: this.which.penetration
        ? penetrationOf(raw.solids, raw.solids_flags, raw.penetration_lower, raw.penetration_upper, triple(raw.penetration_direction))
        : null,
      max: this.which.max ? pair(raw.max) : null,
      queryMs: raw.query_ms,
      uploadMs: raw.upload_ms,
      downloadMs: raw.download_ms,
      boxPairs: Number(raw.box_pairs),
      trianglePairs: Number(raw.triangle_pairs),
      iterations: raw.iterations,
      peakDeviceBytes: Number(raw.peak_device_bytes),
    };
  }

  /**
   * The distances for many poses in one native call, in order: poses holds 12 numbers a pose, end to end, and
   * answer i is what query() gives for pose i after the poses before it. For many small queries: a call into
   * the library costs more than a small mesh's query.
   */
  async queryMany(poses: Float64Array, options: QueryManyOptions = {}): Promise<DistanceQuery[]> {
    if (this.closed) throw new UsageError('this MeshDistance has been closed');
    if (!(poses instanceof Float64Array) || poses.length % 12 !== 0 || !poses.every(Number.isFinite)) {
      throw new UsageError('Expected poses of 12 finite numbers each (3×4 matrices, row by row, one after another)');
    }
    const n = poses.length / 12;
    const results = new DistanceResults(n);
    const context = this.context;
    const run = this.last.then(() => callNative(this.native, this.native.distanceQueryMany, [context, poses, n, results.bytes],
      { onProgress: options.onProgress, signal: options.signal, refusal: REFUSAL }));
    this.last = run.catch(() => undefined);
    await run;
    const answers = new Array<DistanceQuery>(n);
    for (let i = 0; i < n; i++) answers[i] = results.query(i, this.which);
    return answers;
  }

  /** Frees the hierarchies (and device memory); the object cannot be queried afterwards. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const context = this.context;
    this.context = null;
    // After the queries already begun (freed under a running query, the hierarchies would be read freed).
    void this.last.then(() => {
      this.native.distanceContextDestroy(context);
      MeshDistance.live--;
    });
  }
}

/** One query on a fresh context, closed afterwards. */
export async function meshDistance(a: DistanceMesh, b: DistanceMesh, options: MeshDistanceOptions = {}, pose?: Pose): Promise<DistanceQuery & { buildMs: number; backend: BackendName }> {
  const context = await MeshDistance.create(a, b, options);
  try {
    return { ...(await context.query(pose)), buildMs: context.buildMs, backend: context.backend };
  } finally {
    context.close();
  }
}
