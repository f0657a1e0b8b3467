// Surface area and area-weighted sampling through a backend library (xhd_surface_area and
// xhd_sample_surface): multithreaded on the host, the same points as the TypeScript sampler.
import { throwUnlessOk } from '../native/call.js';
import type { NativeBackend } from '../native/library.js';
import type { Random } from './random.js';
import type { AreaSampler, MeshInput } from './sample-mesh.js';

function meshStruct(mesh: MeshInput) {
  return { xyz: mesh.positions, vertex_count: mesh.positions.length / 3, triangles: mesh.triangles, triangle_count: mesh.triangles.length / 3, xyz64: null };
}

const REFUSAL = 'the mesh cannot be sampled';

/** Σ of the triangles' areas, each in double precision, summed in triangle order (as triangleAreas is). */
export function nativeSurfaceArea(backend: NativeBackend, mesh: MeshInput): number {
  const area = new Float64Array(1);
  throwUnlessOk(backend, backend.surfaceArea(meshStruct(mesh), area) as number, REFUSAL);
  return area[0];
}

export function nativeAreaSampler(backend: NativeBackend, threads: number): AreaSampler {
  return (mesh: MeshInput, count: number, random: Random) => {
    const out = new Float32Array(3 * count);
    const state = random.state;
    throwUnlessOk(backend, backend.sampleSurface(meshStruct(mesh), count, state, threads, out) as number, REFUSAL);
    random.state = state;
    return out;
  };
}
