// The --json report of `xhd compare --labels` (and --components): one object whose `labels` map holds, per
// label value, the keys a single compare gives for its distances (hd, hd95, assd, nsd_1, …), its empty-input
// outcome, and with --components the lesion-wise evaluation.
import type { LabelsResult, LabelResult } from '../jobs/compare-labels.js';
import type { LesionReport } from '../jobs/lesion-wise.js';
import type { PairMetrics } from '../jobs/mask-pair-metrics.js';
import { XHD_VERSION } from '../core/version.js';
import { COMPARE_JSON_SCHEMA_VERSION, deviceJson } from './compare-json.js';
import { statsJson } from './stats-json.js';
import { toleranceJson } from './tolerance-json.js';

/** One pair of surfaces' values: a label's, a lesion's, a false positive's. */
export function pairMetricsJson(m: PairMetrics) {
  return {
    hd: m.hd,
    hd_ab: m.hdAb,
    hd_ba: m.hdBa,
    ...statsJson(m.stats),
    ...toleranceJson(m.tolerance),
    points: { a: m.points.a, b: m.points.b },
    empty: { a: m.empty?.a ?? false, b: m.empty?.b ?? false, policy: m.empty?.policy ?? null },
  };
}

function lesionsJson(l: LesionReport) {
  return {
    rule: 'brats-2023-lesion-wise',
    reference: 'b',
    connectivity: l.connectivity,
    dilation: l.dilation,
    min_volume_mm3: l.minVolume,
    counts: {
      lesions: l.counts.lesions, true_positives: l.counts.truePositives, false_negatives: l.counts.falseNegatives,
      false_positives: l.counts.falsePositives, left_out: l.counts.leftOut,
    },
    lesion_wise: Object.fromEntries(l.lesionWise),
    lesions: l.lesions.map((x) => ({ id: x.id, voxels: x.voxels, volume_mm3: x.volume, kept: x.kept, matched: x.matched, dice: x.dice, ...pairMetricsJson(x.metrics) })),
    false_positives: l.falsePositives.map((f) => ({ id: f.id, voxels: f.voxels, ...pairMetricsJson(f.metrics) })),
  };
}

export function labelJson(l: LabelResult) {
  return { ...pairMetricsJson(l), voxels: { a: l.voxels.a, b: l.voxels.b }, ...(l.lesions ? { lesions: lesionsJson(l.lesions) } : {}) };
}

export function labelsJson(r: LabelsResult) {
  return {
    schema_version: COMPARE_JSON_SCHEMA_VERSION,
    xhd_version: XHD_VERSION,
    mode: r.mode,
    labels: Object.fromEntries(r.labels.map((l) => [l.label, labelJson(l)])),
    label_in_neither: r.labelInNeither,
    directed: r.directed,
    a: { path: r.a.path, format: 'nifti', dims: r.a.dims, spacing: r.a.spacing, labels_present: r.a.labelsPresent },
    b: { path: r.b.path, format: 'nifti', dims: r.b.dims, spacing: r.b.spacing, labels_present: r.b.labelsPresent },
    method: r.method,
    backend: r.backend,
    threads: r.threads,
    device: deviceJson(r.device),
    timings_ms: r.timingsMs,
    notes: r.notes,
  };
}

export function renderLabelsJson(r: LabelsResult): string {
  return JSON.stringify(labelsJson(r), null, 2) + '\n';
}
