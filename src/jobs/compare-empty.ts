// `xhd compare` with an empty input (no points, or a mask without the --label asked for): nothing to search,
// every distance the --empty policy's value; and the refusal when the label is in neither mask.
import { UsageError } from '../core/errors.js';
import { uniformStats, type EmptyOutcome } from './empty-policy.js';
import { boundsDiagonal, type Geometry } from '../io/geometry.js';
import { uniformToleranceReport } from './surface-metrics.js';
import { inputNotes, maskSpaceWarning, resultBase, timings, wantsStats, type CompareOptions, type CompareResult } from './compare-result.js';

/** Whether both inputs are masks without the --label asked for. */
export function labelInNeither(a: Geometry, b: Geometry, label: number | undefined): boolean {
  return label !== undefined && a.grid !== undefined && b.grid !== undefined && a.count === 0 && b.count === 0;
}

export function refuseLabelInNeither(pathA: string, a: Geometry, pathB: string, b: Geometry, options: CompareOptions): void {
  const label = options.mask?.label;
  if (!labelInNeither(a, b, label) || options.empty !== undefined || options.labelInNeither === 'empty-policy') return;
  const has = (path: string, g: Geometry) => {
    const labels = g.grid!.labelsPresent ?? [];
    return labels.length === 0 ? `${path} has no nonzero voxels` : `${path} has label${labels.length === 1 ? '' : 's'} ${listLabels(labels)}`;
  };
  throw new UsageError(`label ${label} is in neither mask (${has(pathA, a)}; ${has(pathB, b)}); `
    + 'give --empty zero-or-diagonal to report it as a match (0) anyway');
}

function listLabels(labels: number[]): string {
  const shown = labels.slice(0, 20).join(', ');
  return labels.length > 20 ? `${shown}, … (${labels.length >= 1000 ? '1000 or more' : labels.length} in all)` : shown;
}

/** The outcome with an empty input: nothing to search, every distance the policy's value. */
export function emptyResult(pathA: string, pathB: string, a: Geometry, b: Geometry, empty: EmptyOutcome, options: CompareOptions,
                     started: number, readMs: number): CompareResult {
  const v = empty.value;
  const which = empty.a && empty.b ? 'both inputs are' : empty.a ? 'A is' : 'B is';
  const notes = [`${which} empty: every distance is ${v} (--empty ${empty.policy})`, ...maskSpaceWarning(a, b), ...inputNotes(a, b)];
  const filled = [a, b].filter((g) => g.count > 0);
  return {
    ...resultBase('points', pathA, a, pathB, b, options),
    stats: wantsStats(options) ? uniformStats(v, a.count, options.directed ? null : b.count, options) : null,
    tolerance: uniformToleranceReport(options, v),
    empty,
    labelInNeither: labelInNeither(a, b, options.mask?.label),
    hd: v,
    hdAb: v,
    hdBa: options.directed ? null : v,
    witnessAb: null,
    witnessBa: null,
    method: options.method,
    backend: 'none',
    threads: 0,
    device: null,
    peakDeviceBytes: 0,
    queryChunks: 0,
    bboxDiagonal: filled.length === 2 ? boundsDiagonal(a.bounds, b.bounds) : filled.length === 1 ? boundsDiagonal(filled[0].bounds) : 0,
    timingsMs: timings(started, readMs),
    notes,
  };
}

