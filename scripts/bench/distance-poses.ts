// Rigid poses as MeshDistance.query takes them: the 12 entries of a 3×4 matrix [R | t], row by row.
import type { Pose } from '../../src/ops/mesh-distance.js';

export type Vec3 = [number, number, number];

export function translation(t: Vec3): Pose {
  return Float64Array.of(1, 0, 0, t[0], 0, 1, 0, t[1], 0, 0, 1, t[2]);
}

/** Rotation by `angle` radians about the unit axis `axis` through the origin (Rodrigues' formula). */
export function rotation(axis: Vec3, angle: number): Pose {
  const [x, y, z] = axis, c = Math.cos(angle), s = Math.sin(angle), k = 1 - c;
  return Float64Array.of(
    c + x * x * k, x * y * k - z * s, x * z * k + y * s, 0,
    y * x * k + z * s, c + y * y * k, y * z * k - x * s, 0,
    z * x * k - y * s, z * y * k + x * s, c + z * z * k, 0,
  );
}

/** p ∘ q: first q, then p. */
export function compose(p: Pose, q: Pose): Pose {
  const out = new Float64Array(12);
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 4; col++) {
      let v = col === 3 ? p[4 * row + 3] : 0;
      for (let k = 0; k < 3; k++) v += p[4 * row + k] * q[4 * k + col];
      out[4 * row + col] = v;
    }
  }
  return out;
}

/** The inverse of a rigid pose: [Rᵀ | −Rᵀt]. */
export function inverseRigid(p: Pose): Pose {
  const out = new Float64Array(12);
  for (let row = 0; row < 3; row++) {
    for (let col = 0; col < 3; col++) out[4 * row + col] = p[4 * col + row];
    out[4 * row + 3] = -(p[row] * p[3] + p[4 + row] * p[7] + p[8 + row] * p[11]);
  }
  return out;
}

/** Where both objects move: the pose of B in A's frame, which is all a distance query needs. */
export const relativePose = (poseA: Pose, poseB: Pose): Pose => compose(inverseRigid(poseA), poseB);

export const degrees = (d: number) => (d * Math.PI) / 180;
