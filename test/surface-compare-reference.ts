// The reference for xhd_surface_compare: the comparison composed, as src/surface-compare.ts did before the one
// native call, from the single-purpose parts that remain: the TypeScript sampler (src/sampling/sample-mesh.ts,
// the sampling reference), one point-to-surface call per direction (every point's distance), the TypeScript
// reduce below, and the brute reference for each witness's triangle and closest point.
import type { Coordinates, Geometry } from '../src/io/geometry.js';
import { defaultSampleCount, sampleMesh, triangleAreas } from '../src/sampling/sample-mesh.js';
import { hasFaces, type DirectionStats, type SurfaceCompareOptions } from '../src/ops/surface-compare.js';
import { pointsAsMesh, pointSurfaceDistances, type TriangleMesh } from '../src/ops/surface-distance.js';

/** The options of compareSurfaces that describe the job, with one named backend. */
export type ReferenceOptions = Pick<SurfaceCompareOptions, 'method' | 'directed' | 'sampling' | 'samples' | 'density' | 'seed'> & {
  backend: 'cpu' | 'cuda';
};

export interface ReferenceOutcome {
  ab: DirectionStats;
  ba: DirectionStats | null;
  queriesA: Coordinates;
  queriesB: Coordinates;
  distancesAb: Float64Array;
  distancesBa: Float64Array | null;
  origin: [number, number, number];
  notes: string[];
}

function point(values: ArrayLike<number>, i: number, dims: 2 | 3): number[] {
  const p = [values[3 * i], values[3 * i + 1], values[3 * i + 2]];
  return dims === 2 ? p.slice(0, 2) : p;
}

/** The statistics of one direction: one pass in sample order, the witness the first sample of the largest distance. */
export function reduceDistances(queries: Coordinates, distances: Float64Array, dims: 2 | 3): Omit<DirectionStats, 'toIndex' | 'toPoint'> {
  const n = distances.length;
  let worst = 0, min = Infinity, sum = 0, sum2 = 0;
  for (let i = 0; i < n; i++) {
    const v = distances[i];
    if (v > distances[worst]) worst = i; // ties keep the smallest sample index
    if (v < min) min = v;
    sum += v;
    sum2 += v * v;
  }
  return { hd: distances[worst], min, mean: sum / n, rms: Math.sqrt(sum2 / n), e: sum2, samples: n, fromIndex: worst, fromPoint: point(queries, worst, dims) };
}

/** A side's query points: its samples, or its own points (a cloud, vertices sampling, a mesh without area). */
function queryPoints(g: Geometry, name: string, o: ReferenceOptions, seed: number, notes: string[]): Coordinates {
  if (!hasFaces(g) || o.sampling === 'vertices') return g.positions;
  const mesh = { positions: g.positions, triangles: g.triangles! };
  let area = 0;
  for (const a of triangleAreas(mesh)) area += a; // in triangle order, as the library sums it
  if (!(area > 0)) {
    notes.push(`${name} has no area (every triangle is degenerate): its vertices are used as samples`);
    return g.positions;
  }
  const count = o.samples ?? (o.density !== undefined ? Math.max(1, Math.round(o.density * area)) : defaultSampleCount(mesh));
  return sampleMesh(mesh, { mode: o.sampling, count, seed });
}

function targetOf(g: Geometry): TriangleMesh {
  return hasFaces(g) ? { positions: g.positions, triangles: g.triangles! } : pointsAsMesh(g.positions);
}

async function direction(queries: Coordinates, target: TriangleMesh, o: ReferenceOptions, dims: 2 | 3) {
  const measured = await pointSurfaceDistances(queries, target, { backend: o.backend, method: o.method, threads: 2 });
  const stats = reduceDistances(queries, measured.distances, dims);
  const i = stats.fromIndex;
  const witness = await pointSurfaceDistances(queries.slice(3 * i, 3 * i + 3), target, { backend: 'cpu', method: 'brute', threads: 1 });
  const full: DirectionStats = { ...stats, toIndex: witness.triangles[0], toPoint: point(witness.closest, 0, dims) };
  return { stats: full, distances: measured.distances, origin: measured.origin };
}

export async function referenceCompare(a: Geometry, b: Geometry, o: ReferenceOptions): Promise<ReferenceOutcome> {
  const notes: string[] = [];
  const queriesA = queryPoints(a, 'A', o, o.seed, notes);
  const ab = await direction(queriesA, targetOf(b), o, a.dims);
  const queriesB = o.directed ? new Float64Array(0) : queryPoints(b, 'B', o, o.seed + 1, notes);
  const ba = o.directed ? null : await direction(queriesB, targetOf(a), o, a.dims);
  return {
    ab: ab.stats,
    ba: ba ? ba.stats : null,
    queriesA,
    queriesB,
    distancesAb: ab.distances,
    distancesBa: ba ? ba.distances : null,
    origin: ab.origin,
    notes,
  };
}
