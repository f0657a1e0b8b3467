// The scenes of scripts/bench-distance, after the benchmarks of the gDist paper (Fan et al. 2024, §8):
// each gives mesh A, mesh B and B's pose in A's frame for every frame (when both objects move, the
// relative pose). Everything is deterministic: the same size and frame count give the same scene.
import type { Pose } from '../../src/ops/mesh-distance.js';
import type { TriangleMesh } from '../../src/ops/surface-distance.js';
import { compose, degrees, relativePose, rotation, translation } from './distance-poses.js';
import { bumpySphere, heightField, heightFieldCells, sampleHeights, setSoupTriangle, smoothNoise, toothedShaft, triangleSoup, wavyTorus } from './distance-shapes.js';

export const DISTANCE_SCENES = ['rings', 'balls', 'terrains', 'clusters', 'tools', 'maxdist'] as const;
export type DistanceSceneName = (typeof DISTANCE_SCENES)[number];

export interface DistanceScene {
  name: DistanceSceneName;
  /** Which distance the scene measures: every scene the minimum, maxdist the maximum. */
  measure: 'min' | 'max';
  a: TriangleMesh;
  b: TriangleMesh;
  poses: Pose[];
  /** The largest distance of a vertex from the origin, A or any posed B: the scale of float rounding. */
  extent: number;
}

/** What each scene is, for the report's notes. */
export const SCENE_NOTES: Record<DistanceSceneName, string> = {
  rings: 'two interlocked rings (tori, ring radius 1, tube radius 0.2 swelling ±20 % five and seven times around), ' +
    'each spinning about its own axis (A 3° and B −4° a frame), so the swellings pass each other; gap about 0.5',
  balls: 'a bumpy ball (radius 0.55, ±4 % bumps) inside a bumpy shell (radius 1), 0.2 off its centre; both turn about ' +
    'the shell\'s axis, the inner one twice as fast (strictly together, every frame would repeat one relative pose)',
  terrains: 'two 1 × 1 height fields of smooth noise (amplitude 0.1), B a copy of A with ±0.01 noise of its own, lifted ' +
    'so that it stays 0.002 above A over every frame; B slides along x by whole grid cells (at least one a frame)',
  clusters: 'two soups of small random triangles filling two unit boxes one spacing apart along x, each with one larger ' +
    'triangle reaching across the gap (at index 0.618 n of A and 0.382 n of B, not 0: FCL tests triangle pair (0, 0) before it ' +
    'traverses); the two cross on the x axis, so the minimum is 0; B turns about the x axis, 2° a frame',
  tools: 'two shafts 4 long (radius 0.4, 12 helical teeth 0.08 high, lead 1), side by side 0.02 apart crest to crest; ' +
    'B moves along its axis, one lead over the frames',
  maxdist: 'the tools scene measuring the maximum distance (the paper\'s MaxDist); FCL has no maximum-distance query',
};

function maxNorm(positions: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < positions.length; i += 3) max = Math.max(max, positions[i] ** 2 + positions[i + 1] ** 2 + positions[i + 2] ** 2);
  return Math.sqrt(max);
}

/** The pose of every frame k = 0 … frames − 1. */
const steps = (frames: number, f: (k: number) => Pose) => Array.from({ length: frames }, (_, k) => f(k));

function rings(triangles: number, frames: number) {
  const a = wavyTorus(triangles, 1, 0.2, 5, 0.2), b = wavyTorus(triangles, 1, 0.2, 7, 0.2);
  // B's ring stands in the xz-plane through A's hole, centred on A's tube (a chain link).
  const placeB = compose(translation([1, 0, 0]), rotation([1, 0, 0], degrees(90)));
  const poses = steps(frames, (k) => relativePose(rotation([0, 0, 1], degrees(3 * k)), compose(placeB, rotation([0, 0, 1], degrees(-4 * k)))));
  return { a, b, poses };
}

function balls(triangles: number, frames: number) {
  const a = bumpySphere(triangles, 1, 0.04, 7), b = bumpySphere(triangles, 0.55, 0.04, 9);
  const poses = steps(frames, (k) => {
    const axis: [number, number, number] = [0, 0, 1];
    return relativePose(rotation(axis, degrees(2 * k)), compose(rotation(axis, degrees(4 * k)), translation([0.2, 0, 0])));
  });
  return { a, b, poses };
}

function terrains(triangles: number, frames: number) {
  const n = heightFieldCells(triangles);
  const heightsA = sampleHeights(n, smoothNoise(11, 0.1));
  const own = smoothNoise(12, 0.01);
  const heightsB = new Float64Array(heightsA.length);
  for (let i = 0, k = 0; i <= n; i++) for (let j = 0; j <= n; j++, k++) heightsB[k] = heightsA[k] + own(i / n, j / n);
  const step = Math.max(1, Math.round((0.02 * n) / frames));
  // Shifted by whole cells, B's grid points lie over A's, where the vertical gap between the two piecewise
  // linear surfaces is smallest; the lift keeps the smallest one, over every frame, at 0.002.
  let least = Infinity;
  for (let f = 0; f < frames; f++) {
    const shift = f * step;
    for (let i = 0; i + shift <= n; i++) {
      for (let j = 0; j <= n; j++) least = Math.min(least, heightsB[i * (n + 1) + j] - heightsA[(i + shift) * (n + 1) + j]);
    }
  }
  const lift = 0.002 - least;
  for (let k = 0; k < heightsB.length; k++) heightsB[k] += lift;
  const poses = steps(frames, (f) => translation([(f * step) / n, 0, 0]));
  return { a: heightField(n, heightsA), b: heightField(n, heightsB), poses };
}

function clusters(triangles: number, frames: number) {
  // Soup triangles are about one spacing across, and the boxes one spacing apart; the crossing triangles
  // reach half a spacing past the middle, still half a spacing short of the other soup.
  const spacing = Math.cbrt(1 / triangles), s = spacing;
  const a = triangleSoup(triangles, [-1 - s, -0.5, -0.5], [-s, 0.5, 0.5], s, 21);
  const b = triangleSoup(triangles, [s, -0.5, -0.5], [1 + s, 0.5, 0.5], s, 22);
  // The crossing triangles sit inside the lists, not first: FCL seeds its search with triangle pair (0, 0),
  // which would hand it the answer before its traversal starts.
  setSoupTriangle(a, Math.floor(0.618 * triangles), [[-2 * s, -s, 0], [-2 * s, s, 0], [s / 2, 0, 0]]);
  setSoupTriangle(b, Math.floor(0.382 * triangles), [[2 * s, 0, -s], [2 * s, 0, s], [-s / 2, 0, 0]]);
  const poses = steps(frames, (k) => rotation([1, 0, 0], degrees(2 * k)));
  return { a, b, poses };
}

function tools(triangles: number, frames: number) {
  const a = toothedShaft(triangles, 4, 0.4, 0.08, 12, 1);
  const b = toothedShaft(triangles, 4, 0.4, 0.08, 12, 1);
  const poses = steps(frames, (k) => translation([k / frames - 0.5, 2 * 0.48 + 0.02, 0]));
  return { a, b, poses };
}

/** Builds a scene with about `triangles` triangles per object and `frames` poses of B. */
export function makeDistanceScene(name: DistanceSceneName, triangles: number, frames: number): DistanceScene {
  const make = { rings, balls, terrains, clusters, tools, maxdist: tools }[name];
  const { a, b, poses } = make(triangles, frames);
  const reach = Math.max(...poses.map((p) => Math.hypot(p[3], p[7], p[11])));
  return { name, measure: name === 'maxdist' ? 'max' : 'min', a, b, poses, extent: Math.max(maxNorm(a.positions), maxNorm(b.positions) + reach) };
}

export const triangleCount = (m: TriangleMesh) => m.triangles.length / 3;
