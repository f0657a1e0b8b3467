// The 3D view of `xhd distance --report`: both meshes, thinned to a drawable number of triangles, and each
// frame's pose of B, so the page shows any frame's closest (and farthest) pair in place. Coordinates are packed
// as the compare report packs points (16-bit steps of a box, pack-points.ts), B's in its own frame (the page
// applies the pose); the triangles of the pairs themselves are always drawn and also travel unrounded.
import type { DistanceResult } from '../../jobs/distance.js';
import type { DistanceMesh } from '../../ops/mesh-distance.js';
import type { DistancePair } from '../../ops/mesh-distance.js';
import { packBox, packPlanes, quantizePoints } from './pack-points.js';
import type { DistanceSceneData, SceneMeshData } from './page-data.js';

/** Triangles drawn per mesh at most: a few hundred thousand keep the page quick to open and to turn. */
export const DEFAULT_DISPLAY_TRIANGLES = 250_000;

interface Chosen {
  ids: Uint32Array;
  /** The vertices the chosen triangles use, in order of first use, and the triangles renumbered over them. */
  vertices: Uint32Array;
  corners: Uint32Array;
}

/**
 * The pair triangles, then an even stride over the rest up to the limit (every triangle when it fits), in
 * id order, so the page shows the whole shape thinly rather than part of it densely.
 */
function chooseTriangles(mesh: DistanceMesh, pointCloud: boolean, keep: Set<number>, limit: number): Chosen {
  const total = pointCloud ? mesh.positions.length / 3 : mesh.triangles.length / 3;
  const room = Math.max(0, limit - keep.size);
  const stride = total - keep.size <= room ? 1 : (total - keep.size) / Math.max(1, room);
  const picked: number[] = [];
  let next = 0, extra = 0, rest = 0;
  for (let t = 0; t < total; t++) {
    if (keep.has(t)) {
      picked.push(t);
    } else {
      if (rest >= next && extra < room) {
        picked.push(t);
        extra++;
        next += stride;
      }
      rest++;
    }
  }
  const ids = Uint32Array.from(picked);
  if (pointCloud) return { ids, vertices: ids, corners: new Uint32Array(0) };
  const renumbered = new Map<number, number>();
  const corners = new Uint32Array(3 * ids.length);
  ids.forEach((t, k) => {
    for (let c = 0; c < 3; c++) {
      const v = mesh.triangles[3 * t + c];
      let n = renumbered.get(v);
      if (n === undefined) renumbered.set(v, (n = renumbered.size));
      corners[3 * k + c] = n;
    }
  });
  return { ids, vertices: Uint32Array.from(renumbered.keys()), corners };
}

/** A triangle's corners as read (or a point cloud's point), for the page to highlight exactly. */
function cornersOf(mesh: DistanceMesh, pointCloud: boolean, t: number): number[] {
  const vertices = pointCloud ? [t] : Array.from(mesh.triangles.subarray(3 * t, 3 * t + 3));
  return vertices.flatMap((v) => Array.from(mesh.positions.subarray(3 * v, 3 * v + 3)));
}

/** Whether a mesh came from a point cloud: asMesh made every triangle one point (i, i, i). */
function isPointCloud(mesh: DistanceMesh): boolean {
  const t = mesh.triangles;
  return t.length === mesh.positions.length && t.every((v, i) => v === Math.floor(i / 3));
}

export function distanceSceneData(result: DistanceResult, displayTriangles = DEFAULT_DISPLAY_TRIANGLES): DistanceSceneData | null {
  if (!result.meshes) return null;
  const pairs: DistancePair[] = result.frames
    ? result.frames.flatMap((f) => [f.min, f.max]).filter((p): p is DistancePair => p !== null)
    : [result.min, result.max].filter((p): p is DistancePair => p !== null);
  const sides = [
    { name: 'A' as const, path: result.a.path, mesh: result.meshes.a, keep: new Set(pairs.map((p) => p.triangleA)) },
    { name: 'B' as const, path: result.b.path, mesh: result.meshes.b, keep: new Set(pairs.map((p) => p.triangleB)) },
  ];
  const planes: Array<Uint16Array | Uint32Array> = [];
  const pairTriangles: DistanceSceneData['pairTriangles'] = { a: {}, b: {} };
  const meshes = sides.map(({ name, path, mesh, keep }): SceneMeshData => {
    const pointCloud = isPointCloud(mesh);
    const chosen = chooseTriangles(mesh, pointCloud, keep, displayTriangles);
    const box = packBox([{ points: mesh.positions, indices: chosen.vertices }]);
    planes.push(quantizePoints(mesh.positions, chosen.vertices, box));
    if (!pointCloud) planes.push(chosen.corners);
    for (const t of keep) pairTriangles[name === 'A' ? 'a' : 'b'][String(t)] = cornersOf(mesh, pointCloud, t);
    const total = pointCloud ? mesh.positions.length / 3 : mesh.triangles.length / 3;
    return { name, path, total, shown: chosen.ids.length, pointCloud, vertices: chosen.vertices.length, box };
  }) as [SceneMeshData, SceneMeshData];
  return { meshes, packed: packPlanes(planes), poses: result.meshes.poses.map((p) => Array.from(p)), pairTriangles };
}
