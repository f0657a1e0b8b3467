// `xhd compare --heatmap`: the A → B query points as a binary little-endian PLY point cloud, each with its
// distance as `quality` (MeshLab's per-vertex scalar; CloudCompare shows any float property as a scalar
// field) and as a colour of the heat map in colour-map.ts, from blue at 0 to red at the largest distance.
import { XHD_VERSION } from '../core/version.js';
import { writeHeatColour } from './colour-map.js';
import { writeOutputFile } from './output-file.js';
import type { Coordinates } from '../io/geometry.js';

/** x, y, z (float, or double for double inputs); uchar red, green, blue; float quality. Packed, no padding. */
function recordBytes(doubles: boolean): number {
  return doubles ? 31 : 19;
}
/** Points encoded per write: about 2.5 MiB at a time, so memory stays flat for any count. */
const CHUNK_POINTS = 1 << 17;

export function heatmapHeader(count: number, maxDistance: number, doubles = false): string {
  return [
    'ply',
    'format binary_little_endian 1.0',
    `comment xhd ${XHD_VERSION} heatmap: distance from each point of A to B`,
    `comment quality = distance; colour = distance / ${maxDistance} (the largest) on blue-cyan-green-yellow-red`,
    `element vertex ${count}`,
    ...['x', 'y', 'z'].map((axis) => `property ${doubles ? 'double' : 'float'} ${axis}`),
    'property uchar red',
    'property uchar green',
    'property uchar blue',
    'property float quality',
    'end_header',
    '',
  ].join('\n');
}

/**
 * Writes points (interleaved x,y,z) with their distances. 2D inputs get z = 0. Failures (missing directory,
 * permission, full disk) throw an OutputError naming the file, an abort CancelledError; neither leaves a
 * partial file (writeOutputFile).
 */
export function writeHeatmapPly(path: string, points: Coordinates, distances: Float64Array, dims: 2 | 3,
  signal?: AbortSignal): Promise<void> {
  const doubles = points instanceof Float64Array;
  const RECORD_BYTES = recordBytes(doubles);
  const c = doubles ? 8 : 4;
  const set = (view: DataView, at: number, v: number) => (doubles ? view.setFloat64(at, v, true) : view.setFloat32(at, v, true));
  const n = distances.length;
  if (points.length !== 3 * n) throw new Error(`heatmap: ${points.length / 3} points but ${n} distances`);
  let max = 0;
  for (let i = 0; i < n; i++) if (distances[i] > max) max = distances[i];

  return writeOutputFile(path, function* () {
    yield Buffer.from(heatmapHeader(n, max, doubles), 'latin1');
    const chunk = Buffer.allocUnsafe(Math.min(n, CHUNK_POINTS) * RECORD_BYTES);
    const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let start = 0; start < n; start += CHUNK_POINTS) {
      const end = Math.min(n, start + CHUNK_POINTS);
      let o = 0;
      for (let i = start; i < end; i++, o += RECORD_BYTES) {
        set(view, o, points[3 * i]);
        set(view, o + c, points[3 * i + 1]);
        set(view, o + 2 * c, dims === 2 ? 0 : points[3 * i + 2]);
        writeHeatColour(max > 0 ? distances[i] / max : 0, chunk, o + 3 * c);
        view.setFloat32(o + 3 * c + 3, distances[i], true);
      }
      yield chunk.subarray(0, o);
    }
  }, signal);
}
