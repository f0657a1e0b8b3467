// The --json report of `xhd compare`. Its keys are a stable, documented interface (README, "JSON output"):
// later metrics add keys beside these and never rename them.
import type { CompareResult, InputSummary, Witness } from '../compare.js';
import { XHD_VERSION } from '../version.js';

export const COMPARE_JSON_SCHEMA_VERSION = 1;

function inputJson(s: InputSummary) {
  return { path: s.path, format: s.format, points: s.points, dims: s.dims, triangles: s.triangles, source: s.source };
}

function witnessJson(w: Witness | null, from: 'a' | 'b', to: 'a' | 'b') {
  if (!w) return null;
  return {
    [`${from}_index`]: w.fromIndex,
    [`${from}_point`]: w.fromPoint,
    [`${to}_index`]: w.toIndex,
    [`${to}_point`]: w.toPoint,
  };
}

export function compareJson(r: CompareResult) {
  return {
    schema_version: COMPARE_JSON_SCHEMA_VERSION,
    xhd_version: XHD_VERSION,
    hd: r.hd,
    hd_ab: r.hdAb,
    hd_ba: r.hdBa,
    directed: r.directed,
    witness_ab: witnessJson(r.witnessAb, 'a', 'b'),
    witness_ba: witnessJson(r.witnessBa, 'b', 'a'),
    a: inputJson(r.a),
    b: inputJson(r.b),
    method: r.method,
    backend: r.backend,
    threads: r.threads,
    device: r.device
      ? {
          ordinal: r.device.ordinal,
          name: r.device.name,
          compute_capability: r.device.computeCapability,
          memory_bytes: r.device.totalMemoryBytes,
          driver: r.device.driverVersion,
        }
      : null,
    peak_device_memory_bytes: r.peakDeviceBytes,
    query_chunks: r.queryChunks,
    bbox_diagonal: r.bboxDiagonal,
    hd_percent_of_bbox_diagonal: r.bboxDiagonal > 0 ? (100 * r.hd) / r.bboxDiagonal : 0,
    timings_ms: r.timingsMs,
    notes: r.notes,
  };
}

export function renderCompareJson(r: CompareResult): string {
  return JSON.stringify(compareJson(r), null, 2) + '\n';
}
