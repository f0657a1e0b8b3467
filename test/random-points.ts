// Seeded point-set generators for the agreement tests: the shapes where pruning is most likely to go
// wrong (near-ties, duplicates, far sets, crowded cells, flat data).

/** mulberry32: a tiny, fast, seedable PRNG with values in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Deterministic integers in [0, n) (n up to 2^32): xorshift32 from `seed`, the same list for the same seed. */
export function seededInts(count: number, n: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  return Array.from({ length: count }, () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) % n;
  });
}

export type Dims = 2 | 3;

export function uniform(n: number, dims: Dims, random: () => number, offset = 0, scale = 1): Float32Array {
  const p = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    p[3 * i] = offset + scale * random();
    p[3 * i + 1] = scale * random();
    p[3 * i + 2] = dims === 3 ? scale * random() : 0;
  }
  return p;
}

/** Gaussian blobs of very different sizes and weights: crowded cells beside empty space. */
export function clustered(n: number, dims: Dims, random: () => number): Float32Array {
  const clusters = 6;
  const centres = uniform(clusters, dims, random);
  const sigmas = Array.from({ length: clusters }, (_, k) => 0.002 * Math.pow(4, k));
  const p = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    const k = Math.min(clusters - 1, Math.floor(clusters * random() * random())); // skewed towards small k
    for (let d = 0; d < dims; d++) p[3 * i + d] = centres[3 * k + d] + sigmas[k] * gaussian(random);
  }
  return p;
}

/** Points on the sphere of radius `radius` around (0.5, 0.5, 0.5): a surface, so most cells of a grid over it are empty. */
export function sphereSurface(n: number, random: () => number, radius = 0.5): Float32Array {
  const p = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    const x = gaussian(random), y = gaussian(random), z = gaussian(random);
    const scale = radius / (Math.hypot(x, y, z) || 1);
    p[3 * i] = 0.5 + x * scale;
    p[3 * i + 1] = 0.5 + y * scale;
    p[3 * i + 2] = 0.5 + z * scale;
  }
  return p;
}

/** A copy moved by (dx, 0, 0): every point has a partner at exactly the same distance (near-ties). */
export function shifted(points: Float32Array, dx: number): Float32Array {
  const p = points.slice();
  for (let i = 0; i < p.length; i += 3) p[i] += dx;
  return p;
}

/** Each point repeated `copies` times, in shuffled order. */
export function withDuplicates(points: Float32Array, copies: number, random: () => number): Float32Array {
  const n = points.length / 3;
  const out = new Float32Array(points.length * copies);
  const order = Array.from({ length: n * copies }, (_, i) => i % n);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  order.forEach((src, i) => out.set(points.subarray(3 * src, 3 * src + 3), 3 * i));
  return out;
}

function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Distance between point i of a and point j of b, in double precision. */
export function pairDistance(a: Float32Array, i: number, b: Float32Array, j: number): number {
  const dx = a[3 * i] - b[3 * j], dy = a[3 * i + 1] - b[3 * j + 1], dz = a[3 * i + 2] - b[3 * j + 2];
  return Math.sqrt(dx * dx + dy * dy + dz * dz);
}

/** The first copy of each group of points equal in double (-0 equal to 0), in input order: the set the
 * fast methods search in place of one with duplicates. */
export function firstCopies<T extends Float32Array | Float64Array>(points: T): T {
  const seen = new Set<string>();
  const kept: number[] = [];
  for (let i = 0; i < points.length; i += 3) {
    const key = `${points[i]},${points[i + 1]},${points[i + 2]}`; // String(-0) is "0"
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(points[i], points[i + 1], points[i + 2]);
  }
  return (points instanceof Float64Array ? Float64Array.from(kept) : Float32Array.from(kept)) as T;
}

/** `copies` copies of one point as one run of rows at `at`, inside the other points. */
export function withCopiesOf(points: Float32Array, point: [number, number, number], copies: number, at: number): Float32Array {
  const out = new Float32Array(points.length + 3 * copies);
  out.set(points.subarray(0, 3 * at));
  for (let k = 0; k < copies; k++) out.set(point, 3 * (at + k));
  out.set(points.subarray(3 * at), 3 * (at + copies));
  return out;
}
