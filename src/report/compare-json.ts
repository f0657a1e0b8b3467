// The --json report of `xhd compare`. Its keys are a stable, documented interface (README, "JSON output"):
// later metrics add keys beside these and never rename them.
import type { DeviceInfo } from '../ops/backends.js';
import type { CompareResult, InputSummary, Witness } from '../jobs/compare.js';
import { crsJson } from '../io/crs.js';
import { XHD_VERSION } from '../core/version.js';
import { relativeKey } from '../metrics/relative.js';
import { statsJson } from './stats-json.js';
import { toleranceJson } from './tolerance-json.js';

export const COMPARE_JSON_SCHEMA_VERSION = 1;

/** An input's description; `xhd distance` reports its inputs the same way. */
export function inputJson(s: InputSummary) {
  return { path: s.path, format: s.format, points: s.points, dims: s.dims, triangles: s.triangles, source: s.source, bbox_diagonal: s.bboxDiagonal };
}

/** compare's description of an input: inputJson and the CRS the file states (null when none). */
function compareInputJson(s: InputSummary) {
  // Object.assign, not a spread followed by a new field, which V8 (Node 20) adds at about 2 µs.
  return Object.assign(inputJson(s), { crs: crsJson(s.crs) });
}

export function deviceJson(d: DeviceInfo | null) {
  if (!d) return null;
  return { ordinal: d.ordinal, name: d.name, compute_capability: d.computeCapability, memory_bytes: d.totalMemoryBytes, driver: d.driverVersion };
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

/** Surface mode's statistics: raw, per sample (E), and relative to the union bbox diagonal. */
function surfaceJson(r: CompareResult) {
  const s = r.surface;
  const ab = s?.ab, ba = s?.ba ?? null;
  const diag = r.bboxDiagonal;
  const rel = (v: number | null | undefined, power = 1) => (v === null || v === undefined || !(diag > 0) ? null : v / diag ** power);
  return {
    mean_ab: ab?.mean ?? null,
    mean_ba: ba?.mean ?? null,
    rms_ab: ab?.rms ?? null,
    rms_ba: ba?.rms ?? null,
    min_ab: ab?.min ?? null,
    min_ba: ba?.min ?? null,
    e_ab: ab?.e ?? null,
    e_ba: ba?.e ?? null,
    es: s?.es ?? null,
    e_ab_per_sample: ab ? ab.e / ab.samples : null,
    e_ba_per_sample: ba ? ba.e / ba.samples : null,
    samples: s ? { a: ab!.samples, b: ba ? ba.samples : null, sampling: s.sampling, seed: s.seed } : null,
    relative_to_bbox_diagonal: s
      ? {
          hd: rel(r.hd),
          hd_ab: rel(r.hdAb),
          hd_ba: rel(r.hdBa),
          mean_ab: rel(ab!.mean),
          mean_ba: rel(ba?.mean),
          rms_ab: rel(ab!.rms),
          rms_ba: rel(ba?.rms),
          min_ab: rel(ab!.min),
          min_ba: rel(ba?.min),
          e_ab_per_sample: rel(ab!.e / ab!.samples, 2),
          e_ba_per_sample: rel(ba ? ba.e / ba.samples : null, 2),
        }
      : null,
  };
}

export function compareJson(r: CompareResult) {
  return {
    schema_version: COMPARE_JSON_SCHEMA_VERSION,
    xhd_version: XHD_VERSION,
    hd: r.hd,
    hd_ab: r.hdAb,
    hd_ba: r.hdBa,
    mode: r.mode,
    ...surfaceJson(r),
    ...statsJson(r.stats),
    ...toleranceJson(r.tolerance),
    directed: r.directed,
    witness_ab: witnessJson(r.witnessAb, 'a', 'b'),
    witness_ba: witnessJson(r.witnessBa, 'b', 'a'),
    a: compareInputJson(r.a),
    b: compareInputJson(r.b),
    method: r.method,
    backend: r.backend,
    threads: r.threads,
    device: deviceJson(r.device),
    peak_device_memory_bytes: r.peakDeviceBytes,
    query_chunks: r.queryChunks,
    ...(r.streamed ? { streamed: { memory_limit_bytes: r.streamed.memoryLimit, slabs: r.streamed.slabs, passes: r.streamed.passes, slow_directions: r.streamed.slowDirections, slow_slabs: r.streamed.slowSlabs, second_pass_queries: r.streamed.secondPassQueries,
      skipped_records: r.streamed.skippedRecords } } : {}),
    ...(r.placement ? { devices: r.placement.devices, workers: r.placement.workers, target_tiles: r.placement.targetTiles, memory_limit_bytes: r.placement.memoryLimit, split_by_space: r.placement.splitBySpace } : {}),
    bbox_diagonal: r.bboxDiagonal,
    // The float32 searches ran on coordinates minus this point; every point above is in the input's own.
    coordinate_origin: r.coordinateOrigin,
    hd_percent_of_bbox_diagonal: r.bboxDiagonal > 0 ? (100 * r.hd) / r.bboxDiagonal : 0,
    ...(r.relative ? { relative_diagonal: { basis: r.relative.basis, length: r.relative.diagonal }, [relativeKey(r.relative.basis)]: r.relative.percent } : {}),
    empty: { a: r.empty?.a ?? false, b: r.empty?.b ?? false, policy: r.empty?.policy ?? null },
    threshold: r.threshold
      ? { metric: r.threshold.metric, measured: r.threshold.label, value: r.threshold.value, limit: r.threshold.limit, fail_above: r.threshold.spec, exceeded: r.threshold.exceeded }
      : null,
    timings_ms: r.timingsMs,
    notes: r.notes,
  };
}

export function renderCompareJson(r: CompareResult): string {
  return JSON.stringify(compareJson(r), null, 2) + '\n';
}
