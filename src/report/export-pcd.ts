// compare --export FILE.pcd: a binary PCD (v0.7) of every exported point with fields x y z distance
// nearest_index direction, which PCL-based viewers (CloudCompare, pcl_viewer) show as scalar fields.
// x y z are float32 when every input point set is float32 (their own values), else float64; distance is
// float64; nearest_index int32 (-1 where none was measured), as in the PLY export; direction uint8.
import type { PerPointDistances } from '../jobs/per-point.js';
import { exportDirections, rowCount } from './export-rows.js';
import { XHD_VERSION } from '../core/version.js';

const CHUNK_POINTS = 1 << 16;

export function* pcdChunks(d: PerPointDistances): Generator<Uint8Array> {
  const doubles = exportDirections(d).some(([, p]) => p.points instanceof Float64Array);
  const coordinate = doubles ? 8 : 4;
  const record = 3 * coordinate + 8 + 4 + 1;
  const count = rowCount(d);
  const header = [
    `# .PCD v0.7 - xhd ${XHD_VERSION} --export: each point's distance to the other input (direction 0: A to B, 1: B to A)`,
    'VERSION 0.7',
    'FIELDS x y z distance nearest_index direction',
    `SIZE ${coordinate} ${coordinate} ${coordinate} 8 4 1`,
    'TYPE F F F F I U',
    'COUNT 1 1 1 1 1 1',
    `WIDTH ${count}`,
    'HEIGHT 1',
    'VIEWPOINT 0 0 0 1 0 0 0',
    `POINTS ${count}`,
    'DATA binary',
    '',
  ].join('\n');
  yield new TextEncoder().encode(header);
  const chunk = new Uint8Array(CHUNK_POINTS * record);
  const view = new DataView(chunk.buffer);
  const put = doubles ? (at: number, v: number) => view.setFloat64(at, v, true) : (at: number, v: number) => view.setFloat32(at, v, true);
  for (const [direction, p] of exportDirections(d)) {
    const n = p.distances.length;
    for (let start = 0; start < n; start += CHUNK_POINTS) {
      const end = Math.min(n, start + CHUNK_POINTS);
      for (let i = start, o = 0; i < end; i++, o += record) {
        put(o, p.points[3 * i]);
        put(o + coordinate, p.points[3 * i + 1]);
        put(o + 2 * coordinate, d.dims === 2 ? 0 : p.points[3 * i + 2]);
        view.setFloat64(o + 3 * coordinate, p.distances[i], true);
        view.setInt32(o + 3 * coordinate + 8, p.nearest ? Number(p.nearest[i]) : -1, true);
        chunk[o + 3 * coordinate + 12] = direction;
      }
      yield chunk.subarray(0, (end - start) * record);
    }
  }
}
