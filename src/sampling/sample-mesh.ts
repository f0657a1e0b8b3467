// Points on a mesh's surface, deterministic for a seed (src/sampling/random.ts): the same seed gives the
// same samples on every machine, and every backend measures the same samples.
//   area: i.i.d. points, triangles chosen with probability proportional to their area, uniform within.
//   vertices: the mesh's vertices as they are.
//   vertices+edges+faces (as Metro does): every vertex, points evenly spaced along every edge, and area
//     samples inside the faces, with one density t² per unit area and t per unit length, where t is
//     chosen so the total is the requested count (the faces take the remainder of the edges' rounding; a
//     count below the vertex count still gives every vertex).
import type { Coordinates } from '../io/geometry.js';
import { Random } from './random.js';

export const SAMPLING_MODES = ['area', 'vertices', 'vertices+edges+faces'] as const;
export type SamplingMode = (typeof SAMPLING_MODES)[number];

export interface MeshInput {
  /** float32 or double vertices: samples come out in the same type, each computed in double. */
  positions: Coordinates;
  triangles: Uint32Array;
}

export interface SampleRequest {
  mode: SamplingMode;
  /** How many samples (area and vertices+edges+faces); ignored for vertices. */
  count: number;
  seed: number;
}

/** Default sample count for a mesh: its vertex count, and at least 100,000 so small meshes are measured finely. */
export function defaultSampleCount(mesh: MeshInput): number {
  return Math.max(mesh.positions.length / 3, 100_000);
}

/** Area of each triangle, in double precision. */
export function triangleAreas(mesh: MeshInput): Float64Array {
  const p = mesh.positions, t = mesh.triangles;
  const areas = new Float64Array(t.length / 3);
  for (let k = 0; k < areas.length; k++) {
    const a = 3 * t[3 * k], b = 3 * t[3 * k + 1], c = 3 * t[3 * k + 2];
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    areas[k] = 0.5 * Math.sqrt(nx * nx + ny * ny + nz * nz);
  }
  return areas;
}

/**
 * count area-weighted random points of a mesh, the next draws of random. The native sampler
 * (xhd_sample_surface, src/sampling/native-sampler.ts) gives the same points as typescriptAreaSampler.
 */
export type AreaSampler = (mesh: MeshInput, count: number, random: Random) => Coordinates;

/** The reference area sampler, in TypeScript; areas: the mesh's triangleAreas, when already known. */
export function typescriptAreaSampler(areas?: Float64Array): AreaSampler {
  return (mesh, count, random) => areaSamples(mesh, areas ?? triangleAreas(mesh), count, random);
}

export function sampleMesh(mesh: MeshInput, request: SampleRequest, areaSampler = typescriptAreaSampler()): Coordinates {
  if (request.mode === 'vertices') return mesh.positions;
  const random = new Random(request.seed);
  if (request.mode === 'area') return areaSampler(mesh, request.count, random);
  return metroSamples(mesh, request.count, random, areaSampler);
}

/** Running totals of the areas: triangle k covers (cumulative[k-1], cumulative[k]]. */
function cumulativeAreas(areas: Float64Array): Float64Array {
  const cumulative = new Float64Array(areas.length);
  let sum = 0;
  for (let k = 0; k < areas.length; k++) cumulative[k] = sum += areas[k];
  return cumulative;
}

/** An array of n numbers of the same type as the mesh's vertices. */
function likeVertices(mesh: MeshInput, n: number): Coordinates {
  return mesh.positions instanceof Float32Array ? new Float32Array(n) : new Float64Array(n);
}

function areaSamples(mesh: MeshInput, areas: Float64Array, count: number, random: Random): Coordinates {
  const cumulative = cumulativeAreas(areas);
  const total = cumulative[cumulative.length - 1];
  // A guide table (the cutpoint method): guide[k] is the first triangle whose running total exceeds
  // k/G of the total, so each draw scans a few entries from there instead of a whole binary search.
  const G = cumulative.length;
  const guide = new Uint32Array(G + 1);
  for (let k = 0, t = 0; k <= G; k++) {
    const level = (k / G) * total;
    while (t < G - 1 && !(cumulative[t] > level)) t++;
    guide[k] = t;
  }
  // Three uniforms per sample, drawn in one batch: which triangle, then two for the point inside it.
  const uniforms = new Float64Array(3 * count);
  random.fillDoubles(uniforms);
  const p = mesh.positions, tri = mesh.triangles;
  const out = likeVertices(mesh, 3 * count);
  for (let i = 0; i < count; i++) {
    const target = uniforms[3 * i] * total;
    // The first triangle whose running total exceeds the target (zero-area triangles are never chosen).
    let t = guide[Math.floor((target / total) * G)];
    while (t < G - 1 && !(cumulative[t] > target)) t++;
    // A uniform point of triangle t: the square-root warp of two uniforms.
    const a = 3 * tri[3 * t], b = 3 * tri[3 * t + 1], c = 3 * tri[3 * t + 2];
    const r1 = Math.sqrt(uniforms[3 * i + 1]), r2 = uniforms[3 * i + 2];
    const wa = 1 - r1, wb = r1 * (1 - r2), wc = r1 * r2;
    out[3 * i] = wa * p[a] + wb * p[b] + wc * p[c];
    out[3 * i + 1] = wa * p[a + 1] + wb * p[b + 1] + wc * p[c + 1];
    out[3 * i + 2] = wa * p[a + 2] + wb * p[b + 2] + wc * p[c + 2];
  }
  return out;
}

/** Each undirected edge once, as pairs of vertex indices (smaller first), in first-seen order. */
function uniqueEdges(triangles: Uint32Array): Uint32Array {
  const seen = new Set<number>();
  const edges: number[] = [];
  for (let k = 0; k < triangles.length; k += 3) {
    for (let e = 0; e < 3; e++) {
      const u = triangles[k + e], v = triangles[k + ((e + 1) % 3)];
      const lo = Math.min(u, v), hi = Math.max(u, v);
      const key = lo * 4294967296 + hi;
      if (lo === hi || seen.has(key)) continue;
      seen.add(key);
      edges.push(lo, hi);
    }
  }
  return Uint32Array.from(edges);
}

function metroSamples(mesh: MeshInput, count: number, random: Random, areaSampler: AreaSampler): Coordinates {
  const p = mesh.positions;
  const areas = triangleAreas(mesh);
  const vertexCount = p.length / 3;
  const edges = uniqueEdges(mesh.triangles);
  const lengths = new Float64Array(edges.length / 2);
  let totalLength = 0, totalArea = 0;
  for (let e = 0; e < lengths.length; e++) {
    const a = 3 * edges[2 * e], b = 3 * edges[2 * e + 1];
    lengths[e] = Math.hypot(p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]);
    totalLength += lengths[e];
  }
  for (const area of areas) totalArea += area;
  // Solve totalArea t² + totalLength t = what is left after the vertices, for the linear density t.
  const left = Math.max(count - vertexCount, 0);
  const t = totalArea > 0
    ? (-totalLength + Math.sqrt(totalLength * totalLength + 4 * totalArea * left)) / (2 * totalArea)
    : totalLength > 0 ? left / totalLength : 0;
  const perEdge = Array.from(lengths, (length) => Math.floor(length * t));
  const edgeSamples = perEdge.reduce((s, n) => s + n, 0);
  // The faces take what is left, so the total is the count asked for: flooring each edge's share loses up to
  // one sample an edge, which on meshes of many short edges was 40% of the count (camel.off: 17,858 of 30,000).
  const faceSamples = Math.max(0, left - edgeSamples);
  const out = likeVertices(mesh, 3 * (vertexCount + edgeSamples) + 3 * (totalArea > 0 ? faceSamples : 0));
  out.set(p);
  let i = vertexCount;
  for (let e = 0; e < perEdge.length; e++) {
    const a = 3 * edges[2 * e], b = 3 * edges[2 * e + 1], m = perEdge[e];
    for (let j = 1; j <= m; j++, i++) {
      const s = j / (m + 1);
      for (let d = 0; d < 3; d++) out[3 * i + d] = (1 - s) * p[a + d] + s * p[b + d];
    }
  }
  if (totalArea > 0 && faceSamples > 0) out.set(areaSampler(mesh, faceSamples, random), 3 * i);
  return out;
}
