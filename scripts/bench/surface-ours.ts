// Timing our surface distance in-process, exactly as `xhd compare` runs it after reading the files:
// compareSurfaces samples both meshes (area sampling, A with the seed and B with the seed + 1), measures
// each side's samples against the other mesh and reduces them to HD, mean, RMS, E and Es.
import { compareSurfaces } from '../../src/ops/surface-compare.js';
import { computeBounds, type Geometry } from '../../src/io/geometry.js';
import type { SurfaceMethod, TriangleMesh } from '../../src/ops/surface-distance.js';
import type { Outcome } from './methods.js';
import type { SurfaceCase } from './surface-cases.js';

type Done = Extract<Outcome, { kind: 'done' }>;

/** A finished surface measurement: ms is the whole best run, parts its split (ms, method-specific names). */
export interface SurfaceDone extends Done {
  hdAb: number;
  hdBa: number;
  parts: Record<string, number>;
}
export type SurfaceOutcome = SurfaceDone | Exclude<Outcome, { kind: 'done' }>;

/** A generated or loaded mesh as the readers would hand it over. */
function asGeometry(m: TriangleMesh): Geometry {
  const positions = m.positions;
  return { positions, count: positions.length / 3, dims: 3, triangles: m.triangles, bounds: computeBounds(positions), format: 'off', notes: [] };
}

/** Best of `repeat` runs of the whole measurement; the library's own build/query/transfer times come along. */
export async function measureOurs(c: SurfaceCase, backend: 'cpu' | 'cuda', samples: number, s: { method?: SurfaceMethod; repeat: number; threads: number; seed: number }): Promise<SurfaceOutcome> {
  let best: SurfaceDone | undefined;
  try {
    for (let run = 1; run <= s.repeat; run++) {
      const start = performance.now();
      const o = await compareSurfaces(asGeometry(c.a), asGeometry(c.b), {
        method: s.method ?? 'grid', directed: false, sampling: 'area', samples, seed: s.seed, backend, threads: s.threads,
      });
      const ms = performance.now() - start;
      const hdAb = o.ab.hd, hdBa = o.ba!.hd;
      if (best && ms >= best.ms) continue;
      best = {
        kind: 'done', ms, wallMs: ms, hd: Math.max(hdAb, hdBa), runs: s.repeat, hdAb, hdBa,
        parts: {
          sample: o.sampleMs,
          build: o.buildMs,
          query: o.queryMs,
          upload: o.uploadMs,
          download: o.downloadMs,
          peakDeviceMiB: o.peakDeviceBytes / 2 ** 20,
        },
      };
    }
  } catch (err) {
    return { kind: 'failed', why: err instanceof Error ? err.message : String(err) };
  }
  return best!;
}
