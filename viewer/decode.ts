// Unpacks the report's points (see src/report/html/pack-points.ts): base64, inflate with the browser's own
// DecompressionStream, then 16-bit planes back to coordinates and distances.
import type { CompareReportData, DecodedMesh, DecodedSet, DistanceSceneData } from './report-data.js';

const QUANT_STEPS = 65535;

/** The bytes of base64 text: the engine's own decoder where there is one (Chrome 140, Firefox 133, Safari 18.2). */
function fromBase64(base64: string): Uint8Array<ArrayBuffer> {
  const typed = Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array<ArrayBuffer> };
  if (typed.fromBase64) return typed.fromBase64(base64);
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function inflate(base64: string): Promise<ArrayBuffer> {
  // The whole input written at once (not streamed from a Blob in 64 KiB pieces): half the time in Chromium.
  const stream = new DecompressionStream('deflate-raw');
  const writer = stream.writable.getWriter();
  const written = Promise.all([writer.write(fromBase64(base64)), writer.close()]);
  const [buffer] = await Promise.all([new Response(stream.readable).arrayBuffer(), written]);
  return buffer;
}

/** Each set's points relative to centre (float32 keeps its precision near the view, not at survey offsets). */
export async function decodeSets(data: CompareReportData, centre: [number, number, number]): Promise<DecodedSet[]> {
  const buffer = data.sets.length > 0 ? await inflate(data.packed) : new ArrayBuffer(0);
  const words = new Uint16Array(buffer);
  const { min, step } = data.box;
  let at = 0;
  return data.sets.map((set) => {
    const m = set.shown;
    const positions = new Float32Array(3 * m);
    for (let c = 0; c < 3; c++) {
      const offset = min[c] - centre[c];
      for (let k = 0; k < m; k++) positions[3 * k + c] = offset + words[at + c * m + k] * step[c];
    }
    at += 3 * m;
    let distances: Float32Array | null = null;
    if (set.hasDistances) {
      distances = new Float32Array(m);
      const scale = set.distanceScale / QUANT_STEPS;
      for (let k = 0; k < m; k++) distances[k] = words[at + k] * scale;
      at += m;
    }
    return { positions, distances };
  });
}

/**
 * The distance report's meshes: each one's vertices relative to its own box centre (float32 keeps its precision
 * near the view, and B is placed by the pose from there), and its triangles' vertex indices.
 */
export async function decodeMeshes(scene: DistanceSceneData): Promise<DecodedMesh[]> {
  const bytes = await inflate(scene.packed);
  let at = 0;
  return scene.meshes.map((mesh) => {
    const m = mesh.vertices;
    const words = new Uint16Array(bytes.slice(at, at + 6 * m));
    at += 6 * m;
    const { min, step } = mesh.box;
    const centre = [0, 1, 2].map((c) => min[c] + (step[c] * QUANT_STEPS) / 2) as [number, number, number];
    const positions = new Float32Array(3 * m);
    for (let c = 0; c < 3; c++) {
      const offset = min[c] - centre[c];
      for (let k = 0; k < m; k++) positions[3 * k + c] = offset + words[c * m + k] * step[c];
    }
    let indices: Uint32Array | null = null;
    if (!mesh.pointCloud) {
      indices = new Uint32Array(bytes.slice(at, at + 12 * mesh.shown));
      at += 12 * mesh.shown;
    }
    return { positions, indices, centre };
  });
}
