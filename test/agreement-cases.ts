// The point-set pairs every backend's agreement suite runs: near-ties, duplicates, far sets, crowded
// cells, a hollow shell. Each builds A and B from a size, a dimension and a seed.
import { clustered, rng, shifted, uniform, withDuplicates, type Dims } from './random-points.js';

export type AgreementCase = { name: string; make: (n: number, dims: Dims, seed: number) => [Float32Array, Float32Array] };

export const AGREEMENT_CASES: AgreementCase[] = [
  { name: 'uniform', make: (n, d, s) => { const r = rng(s); return [uniform(n, d, r), uniform(n, d, r)]; } },
  { name: 'clustered', make: (n, d, s) => { const r = rng(s); return [clustered(n, d, r), clustered(n, d, r)]; } },
  { name: 'overlapping, tiny shift', make: (n, d, s) => { const a = uniform(n, d, rng(s)); return [a, shifted(a, 1e-4)]; } },
  { name: 'disjoint', make: (n, d, s) => { const r = rng(s); return [uniform(n, d, r), uniform(n, d, r, 3.5)]; } },
  { name: 'duplicates', make: (n, d, s) => { const r = rng(s); return [withDuplicates(uniform(Math.ceil(n / 4), d, r), 4, r), uniform(n, d, r)]; } },
  { name: 'one set inside a hollow shell', make: (n, d, s) => {
      const r = rng(s);
      const inner = uniform(Math.max(1, n >> 3), d, r, 0.4, 0.2);
      const shell = uniform(n, d, r);
      for (let i = 0; i < shell.length; i += 3) {  // push every point onto the sphere/circle of radius 0.5
        const x = shell[i] - 0.5, y = shell[i + 1] - 0.5, z = d === 3 ? shell[i + 2] - 0.5 : 0;
        const len = Math.hypot(x, y, z) || 1;
        shell[i] = 0.5 + (0.5 * x) / len; shell[i + 1] = 0.5 + (0.5 * y) / len; shell[i + 2] = d === 3 ? 0.5 + (0.5 * z) / len : 0;
      }
      return [inner, shell];
    } },
];
