// Seeded synthetic point-set pairs for the benchmarks: the same seed and size always give the same floats.
// No dependencies, so the benchmark's inputs can be regenerated anywhere bit for bit.

export interface DatasetPair {
  /** Interleaved xyz, n points. */
  a: Float32Array;
  /** Interleaved xyz, n points. */
  b: Float32Array;
  description: string;
}

export const DATASET_NAMES = ['overlapping', 'same-surface', 'disjoint', 'skewed-clusters'] as const;
export type DatasetName = (typeof DATASET_NAMES)[number];

/** xoshiro128** seeded through splitmix32: fast, good enough statistically, trivial to port. */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let x = seed >>> 0;
    const splitmix32 = () => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = splitmix32();
    this.s1 = splitmix32();
    this.s2 = splitmix32();
    this.s3 = splitmix32();
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform double in [0, 1) with 53 random bits. */
  uniform(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Standard normal (Box-Muller; the second value is dropped for simplicity). */
  normal(): number {
    const u = 1 - this.uniform(); // (0, 1], so the log is finite
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.uniform());
  }

  /** Index drawn with probability proportional to cumulative[i] - cumulative[i-1]. */
  pick(cumulative: readonly number[]): number {
    const x = this.uniform() * cumulative[cumulative.length - 1];
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

function cumulativeSums(weights: readonly number[]): number[] {
  let sum = 0;
  return weights.map((w) => (sum += w));
}

function fill(n: number, sample: (out: number[]) => void): Float32Array {
  const xyz = new Float32Array(3 * n);
  const p = [0, 0, 0];
  for (let i = 0; i < n; ++i) {
    sample(p);
    xyz[3 * i] = p[0];
    xyz[3 * i + 1] = p[1];
    xyz[3 * i + 2] = p[2];
  }
  return xyz;
}

function uniformCube(rng: Rng, n: number, xOffset = 0): Float32Array {
  return fill(n, (p) => {
    p[0] = xOffset + rng.uniform();
    p[1] = rng.uniform();
    p[2] = rng.uniform();
  });
}

export function overlapping(n: number, seed: number): DatasetPair {
  const rng = new Rng(seed);
  const a = uniformCube(rng, n);
  const shift = 0.005; // 0.5 % of the unit extent
  const b = new Float32Array(a);
  for (let i = 0; i < b.length; i += 3) b[i] = a[i] + shift;
  return { a, b, description: 'A uniform in the unit cube; B = A shifted by 0.005 (0.5 % of the extent) along x' };
}

export function disjoint(n: number, seed: number): DatasetPair {
  const rng = new Rng(seed);
  return {
    a: uniformCube(rng, n),
    b: uniformCube(rng, n, 2),
    description: 'A uniform in [0,1]^3; B uniform in [2,3]x[0,1]^2 (independent, no overlap)',
  };
}

// Surfaces of the same-surface case, in a box [-1,1]^3: a sphere, a torus and the box's six faces.
const SPHERE = { centre: [-0.4, 0.3, 0], radius: 0.45 };
const TORUS = { centre: [0.35, -0.3, 0.1], major: 0.45, minor: 0.15 };
const BOX_HALF = 1;

interface Surface {
  area: number;
  sample(rng: Rng, p: number[]): void;
}

const surfaces: Surface[] = [
  {
    area: 4 * Math.PI * SPHERE.radius ** 2,
    sample(rng, p) {
      // A normalized Gaussian vector is uniform on the sphere.
      let x, y, z, len;
      do {
        x = rng.normal();
        y = rng.normal();
        z = rng.normal();
        len = Math.hypot(x, y, z);
      } while (len === 0);
      p[0] = SPHERE.centre[0] + (SPHERE.radius * x) / len;
      p[1] = SPHERE.centre[1] + (SPHERE.radius * y) / len;
      p[2] = SPHERE.centre[2] + (SPHERE.radius * z) / len;
    },
  },
  {
    area: 4 * Math.PI ** 2 * TORUS.major * TORUS.minor,
    sample(rng, p) {
      // The area element is proportional to R + r cos(v): rejection on v makes the sample uniform.
      const { major: R, minor: r } = TORUS;
      let v;
      do v = 2 * Math.PI * rng.uniform();
      while (rng.uniform() * (R + r) > R + r * Math.cos(v));
      const u = 2 * Math.PI * rng.uniform();
      const ring = R + r * Math.cos(v);
      p[0] = TORUS.centre[0] + ring * Math.cos(u);
      p[1] = TORUS.centre[1] + ring * Math.sin(u);
      p[2] = TORUS.centre[2] + r * Math.sin(v);
    },
  },
  {
    area: 6 * (2 * BOX_HALF) ** 2,
    sample(rng, p) {
      const face = Math.floor(rng.uniform() * 6);
      const axis = face >> 1;
      p[axis] = face & 1 ? BOX_HALF : -BOX_HALF;
      p[(axis + 1) % 3] = BOX_HALF * (2 * rng.uniform() - 1);
      p[(axis + 2) % 3] = BOX_HALF * (2 * rng.uniform() - 1);
    },
  },
];

export function sameSurface(n: number, seed: number): DatasetPair {
  const rng = new Rng(seed);
  const cumulativeArea = cumulativeSums(surfaces.map((s) => s.area));
  const sample = (p: number[]) => surfaces[rng.pick(cumulativeArea)].sample(rng, p);
  return {
    a: fill(n, sample),
    b: fill(n, sample),
    description: 'A and B independent area-uniform samples of a sphere, a torus and the six faces of a box [-1,1]^3',
  };
}

export function skewedClusters(n: number, seed: number): DatasetPair {
  const rng = new Rng(seed);
  const clusters = 32;
  const centres = Array.from({ length: clusters }, () => [rng.uniform(), rng.uniform(), rng.uniform()]);
  // Zipf weights 1/k; sigmas log-uniform over 0.001..0.1 (100x), so dense and sparse clusters mix.
  const cumulativeWeight = cumulativeSums(centres.map((_, k) => 1 / (k + 1)));
  const sigmas = centres.map(() => 0.001 * 100 ** rng.uniform());
  const sample = (p: number[]) => {
    const k = rng.pick(cumulativeWeight);
    for (let i = 0; i < 3; ++i) p[i] = centres[k][i] + sigmas[k] * rng.normal();
  };
  return {
    a: fill(n, sample),
    b: fill(n, sample),
    description: '32 Gaussian clusters (centres uniform in the unit cube, Zipf 1/k weights, sigmas 0.001..0.1); A, B independent draws',
  };
}

export function makeDataset(name: DatasetName, n: number, seed: number): DatasetPair {
  switch (name) {
    case 'overlapping':
      return overlapping(n, seed);
    case 'same-surface':
      return sameSurface(n, seed);
    case 'disjoint':
      return disjoint(n, seed);
    case 'skewed-clusters':
      return skewedClusters(n, seed);
  }
}

/** Curves in the plane z = 0: a circle and a square outline (the 2D "same surface"). */
function sameCurve(n: number, seed: number): DatasetPair {
  const rng = new Rng(seed);
  const circle = 2 * Math.PI * 0.45;
  const square = 8;
  const sample = (p: number[]) => {
    if (rng.uniform() * (circle + square) < circle) {
      const t = 2 * Math.PI * rng.uniform();
      p[0] = -0.4 + 0.45 * Math.cos(t);
      p[1] = 0.3 + 0.45 * Math.sin(t);
    } else {
      const s = 8 * rng.uniform();
      const side = Math.floor(s / 2), t = (s % 2) - 1;
      p[0] = side === 0 ? t : side === 1 ? 1 : side === 2 ? -t : -1;
      p[1] = side === 0 ? -1 : side === 1 ? t : side === 2 ? 1 : -t;
    }
    p[2] = 0;
  };
  return {
    a: fill(n, sample),
    b: fill(n, sample),
    description: 'A and B independent length-uniform samples of a circle and a square outline in the plane',
  };
}

/** The 2D version of a case: the same construction flattened onto z = 0 (curves for same-surface). */
export function makeDataset2d(name: DatasetName, n: number, seed: number): DatasetPair {
  if (name === 'same-surface') return sameCurve(n, seed);
  const pair = makeDataset(name, n, seed);
  for (const p of [pair.a, pair.b]) for (let i = 2; i < p.length; i += 3) p[i] = 0;
  return { ...pair, description: `${pair.description}, flattened onto z = 0` };
}
