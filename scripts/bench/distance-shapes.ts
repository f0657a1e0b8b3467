// The shapes of scripts/bench-distance's scenes, generated straight into typed arrays (15M triangles take
// a few seconds and about 0.5 GB per mesh): a wavy torus, a bumpy sphere, a height field, a soup of small
// triangles and a toothed shaft. Each takes the number of triangles wanted and comes close to it.
import { Random } from '../../src/sampling/random.js';
import type { TriangleMesh } from '../../src/ops/surface-distance.js';

type VertexAt = (i: number, j: number, out: Float64Array) => void;

/**
 * A quad grid of nu × nv cells, two triangles each. A wrapped direction reuses its first row of vertices
 * as its last (a closed tube or ring); vertexAt(i, j) gives the vertex at grid point (i, j).
 */
function gridSurface(nu: number, nv: number, wrapU: boolean, wrapV: boolean, vertexAt: VertexAt): TriangleMesh {
  const ru = wrapU ? nu : nu + 1, rv = wrapV ? nv : nv + 1;
  const positions = new Float32Array(3 * ru * rv);
  const p = new Float64Array(3);
  for (let i = 0, k = 0; i < ru; i++) {
    for (let j = 0; j < rv; j++, k += 3) {
      vertexAt(i, j, p);
      positions[k] = p[0], positions[k + 1] = p[1], positions[k + 2] = p[2];
    }
  }
  const triangles = new Uint32Array(6 * nu * nv);
  for (let i = 0, t = 0; i < nu; i++) {
    const i1 = wrapU && i + 1 === nu ? 0 : i + 1;
    for (let j = 0; j < nv; j++, t += 6) {
      const j1 = wrapV && j + 1 === nv ? 0 : j + 1;
      const a = i * rv + j, b = i1 * rv + j, c = i1 * rv + j1, d = i * rv + j1;
      triangles[t] = a, triangles[t + 1] = b, triangles[t + 2] = c;
      triangles[t + 3] = a, triangles[t + 4] = c, triangles[t + 5] = d;
    }
  }
  return { positions, triangles };
}

/** Several meshes as one: their vertices end to end, indices shifted. */
function concatMeshes(parts: TriangleMesh[]): TriangleMesh {
  const positions = new Float32Array(parts.reduce((n, m) => n + m.positions.length, 0));
  const triangles = new Uint32Array(parts.reduce((n, m) => n + m.triangles.length, 0));
  let p = 0, t = 0;
  for (const m of parts) {
    positions.set(m.positions, p);
    const base = p / 3;
    for (let k = 0; k < m.triangles.length; k++) triangles[t + k] = m.triangles[k] + base;
    p += m.positions.length, t += m.triangles.length;
  }
  return { positions, triangles };
}

/**
 * A torus in the xy-plane about the z axis, ring radius R, whose tube radius swells and narrows `waves`
 * times around the ring (r · (1 + swell · sin(waves φ))), so that spinning it about its axis moves it.
 * Cells are about square: 4 around the ring per one around the tube when R = 4r.
 */
export function wavyTorus(triangles: number, R: number, r: number, waves: number, swell: number): TriangleMesh {
  const around = Math.max(3, Math.round(Math.sqrt(triangles / 2 / (R / r)))), along = Math.max(3, Math.round((around * R) / r));
  return gridSurface(along, around, true, true, (i, j, out) => {
    const phi = (2 * Math.PI * i) / along, theta = (2 * Math.PI * j) / around;
    const tube = r * (1 + swell * Math.sin(waves * phi));
    const ring = R + tube * Math.cos(theta);
    out[0] = ring * Math.cos(phi), out[1] = ring * Math.sin(phi), out[2] = tube * Math.sin(theta);
  });
}

/**
 * A sphere about the origin made of a cube's six faces, each an n × n grid pushed onto the sphere (through
 * tan, so cells are about equal), its radius modulated by bumps: radius · (1 + bump · sin(fx)sin(fy)sin(fz))
 * on the unit direction (x, y, z). The faces do not share their edge vertices (a distance query needs none).
 */
export function bumpySphere(triangles: number, radius: number, bump: number, frequency: number): TriangleMesh {
  const n = Math.max(1, Math.round(Math.sqrt(triangles / 12)));
  const faces: TriangleMesh[] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const sign of [1, -1]) {
      faces.push(gridSurface(n, n, false, false, (i, j, out) => {
        // The face's two in-plane coordinates, warped so that equal steps span about equal angles.
        const u = Math.tan((Math.PI / 4) * ((2 * i) / n - 1)), v = Math.tan((Math.PI / 4) * ((2 * j) / n - 1));
        const c = [0, 0, 0];
        c[axis] = sign, c[(axis + 1) % 3] = sign * u, c[(axis + 2) % 3] = v; // sign keeps every face facing out
        const length = Math.hypot(c[0], c[1], c[2]);
        const x = c[0] / length, y = c[1] / length, z = c[2] / length;
        const rho = radius * (1 + bump * Math.sin(frequency * x) * Math.sin(frequency * y) * Math.sin(frequency * z));
        out[0] = rho * x, out[1] = rho * y, out[2] = rho * z;
      }));
    }
  }
  return concatMeshes(faces);
}

/** Smooth noise on the plane: a few plane waves with seeded directions and phases, amplitudes falling with frequency. */
export function smoothNoise(seed: number, amplitude: number, waves = 6): (x: number, y: number) => number {
  const random = new Random(seed);
  const terms = Array.from({ length: waves }, (_, k) => {
    const angle = 2 * Math.PI * random.nextDouble();
    const frequency = 2 * Math.PI * (1.5 + k * 1.3) * (0.8 + 0.4 * random.nextDouble());
    return { fx: frequency * Math.cos(angle), fy: frequency * Math.sin(angle), phase: 2 * Math.PI * random.nextDouble(), weight: 1 / (1 + k) };
  });
  const norm = amplitude / terms.reduce((s, t) => s + t.weight, 0);
  return (x, y) => {
    let h = 0;
    for (const t of terms) h += t.weight * Math.sin(t.fx * x + t.fy * y + t.phase);
    return norm * h;
  };
}

/** A height field over [0, 1]²: n × n cells (2n² triangles), vertex (i, j) at (i/n, j/n, height[i(n+1) + j]). */
export function heightField(n: number, height: Float64Array): TriangleMesh {
  return gridSurface(n, n, false, false, (i, j, out) => {
    out[0] = i / n, out[1] = j / n, out[2] = height[i * (n + 1) + j];
  });
}

/** Cells per side of a height field of about `triangles` triangles. */
export const heightFieldCells = (triangles: number) => Math.max(1, Math.round(Math.sqrt(triangles / 2)));

/** Heights of f at the (n + 1)² grid points of heightField, row by row. */
export function sampleHeights(n: number, f: (x: number, y: number) => number): Float64Array {
  const heights = new Float64Array((n + 1) * (n + 1));
  for (let i = 0, k = 0; i <= n; i++) for (let j = 0; j <= n; j++, k++) heights[k] = f(i / n, j / n);
  return heights;
}

/** A uniform number in [0, 1) from a seed and a counter (Wellons' lowbias32 hash): fast and stateless. */
function hashUniform(seed: number, k: number): number {
  let x = (k ^ Math.imul(seed, 0x9e3779b9)) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return ((x ^ (x >>> 16)) >>> 0) / 4294967296;
}

/**
 * `count` small triangles (3 vertices of their own each) scattered through the box [lo, hi]: each has a
 * uniform random centre at least `size` inside the box and corners up to ±size/2 from it on every axis.
 */
export function triangleSoup(count: number, lo: [number, number, number], hi: [number, number, number], size: number, seed: number): TriangleMesh {
  const positions = new Float32Array(9 * count);
  for (let t = 0; t < count; t++) {
    for (let axis = 0; axis < 3; axis++) {
      const centre = lo[axis] + size + (hi[axis] - lo[axis] - 2 * size) * hashUniform(seed, 12 * t + axis);
      for (let corner = 0; corner < 3; corner++) {
        positions[9 * t + 3 * corner + axis] = centre + size * (hashUniform(seed, 12 * t + 3 + 3 * corner + axis) - 0.5);
      }
    }
  }
  const triangles = new Uint32Array(3 * count);
  for (let k = 0; k < triangles.length; k++) triangles[k] = k;
  return { positions, triangles };
}

/** Replaces triangle `index` of a soup (3 vertices of its own) by the triangle with corners `corners`. */
export function setSoupTriangle(mesh: TriangleMesh, index: number, corners: number[][]): void {
  for (let c = 0; c < 3; c++) for (let axis = 0; axis < 3; axis++) mesh.positions[9 * index + 3 * c + axis] = corners[c][axis];
}

/** Trapezoidal tooth profile over one period (t in [0, 1)): rise, flat crest, fall, flat root. */
function tooth(t: number): number {
  if (t < 0.2) return t / 0.2;
  if (t < 0.5) return 1;
  if (t < 0.7) return (0.7 - t) / 0.2;
  return 0;
}

/**
 * A shaft along x from 0 to length: an open tube of radius r0 with `teeth` helical teeth of height h, one
 * turn every `pitch` along x (like a screw or a hobbing tool). Cells are about square.
 */
export function toothedShaft(triangles: number, length: number, r0: number, h: number, teeth: number, pitch: number): TriangleMesh {
  const circumference = 2 * Math.PI * (r0 + h / 2);
  const along = Math.max(1, Math.round(Math.sqrt((triangles / 2) * (length / circumference))));
  const around = Math.max(3, Math.round(triangles / 2 / along));
  return gridSurface(along, around, false, true, (i, j, out) => {
    const x = (length * i) / along, theta = (2 * Math.PI * j) / around;
    const phase = (teeth * theta) / (2 * Math.PI) + (teeth * x) / pitch;
    const rho = r0 + h * tooth(phase - Math.floor(phase));
    out[0] = x, out[1] = rho * Math.cos(theta), out[2] = rho * Math.sin(theta);
  });
}
