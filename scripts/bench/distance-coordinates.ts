// The coordinates our side of scripts/bench-distance measures a scene in (--coordinates): float32 as
// generated; float64, the same values as doubles (the exact path over double inputs, on the same shapes);
// survey, those doubles moved to x ≈ 5e5, y ≈ 4.2e6, z = 100 with the poses moved along, so every frame is
// the same relative placement (up to the rounding of the moved doubles).
import type { DistanceMesh, Pose } from '../../src/ops/mesh-distance.js';
import type { DistanceScene } from './distance-scenes.js';

export const DISTANCE_COORDINATES = ['float32', 'float64', 'survey'] as const;
export type DistanceCoordinates = (typeof DISTANCE_COORDINATES)[number];

const SURVEY = [5e5, 4.2e6, 100];

/** What our backends measure: the meshes, the poses, and which distance. */
export interface OursScene {
  measure: 'min' | 'max';
  a: DistanceMesh;
  b: DistanceMesh;
  poses: Pose[];
}

function asDoubles(mesh: DistanceMesh, shift: number[]): DistanceMesh {
  return { positions: Float64Array.from(mesh.positions, (v, i) => v + shift[i % 3]), triangles: mesh.triangles };
}

/** A pose [M | t] of B for both meshes moved by s: B moved is b + s, posed M (b + s) + t', which must be M b + t + s. */
function movedPose(pose: Pose, s: number[]): Pose {
  const out = Float64Array.from(pose);
  for (let r = 0; r < 3; r++) out[4 * r + 3] = pose[4 * r + 3] + s[r] - (pose[4 * r] * s[0] + pose[4 * r + 1] * s[1] + pose[4 * r + 2] * s[2]);
  return out;
}

export function inCoordinates(scene: DistanceScene, kind: DistanceCoordinates): OursScene {
  if (kind === 'float32') return scene;
  const shift = kind === 'survey' ? SURVEY : [0, 0, 0];
  return {
    measure: scene.measure,
    a: asDoubles(scene.a, shift),
    b: asDoubles(scene.b, shift),
    poses: kind === 'survey' ? scene.poses.map((p) => movedPose(p, shift)) : scene.poses,
  };
}
