// Surface area and area-weighted sampling through a backend library (xhd_surface_area and
// xhd_sample_surface): multithreaded on the host, the same points as the TypeScript sampler.
import { meshArg } from '../native/abi.js';
import { throwUnlessOk } from '../native/call.js';
import type { NativeBackend } from '../native/library.js';
import type { Random } from './random.js';
import type { AreaSampler, MeshInput } from './sample-mesh.js';


const REFUSAL = 'the mesh cannot be sampled';

/** Σ of the triangles' areas, each in double precision, summed in triangle order (as triangleAreas is). */
export function nativeSurfaceArea(backend: NativeBackend, mesh: MeshInput): number {
  const area = new Float64Array(1);
  throwUnlessOk(backend, backend.surfaceArea(meshArg(mesh.positions, mesh.triangles), area) as number, REFUSAL);
  return area[0];
}

export function nativeAreaSampler(backend: NativeBackend, threads: number): AreaSampler {
  return (mesh: MeshInput, count: number, random: Random) => {
    // Samples of a double mesh are doubles, of a float32 one floats: the type of the truth they came from.
    const floats = mesh.positions instanceof Float32Array;
    const out = floats ? new Float32Array(3 * count) : new Float64Array(3 * count);
    const state = random.state;
    const status = backend.sampleSurface(meshArg(mesh.positions, mesh.triangles), count, state, threads,
      floats ? out : null, floats ? null : out) as number;
    throwUnlessOk(backend, status, REFUSAL);
    random.state = state;
    return out;
  };
}
