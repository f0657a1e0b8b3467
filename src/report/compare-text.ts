// The human-readable report of `xhd compare`: the answer first, then what was compared and what it cost.
import type { ChalkInstance } from 'chalk';

import type { CompareResult, InputSummary, Witness } from '../jobs/compare.js';
import { crsLabel, crsUnits } from '../io/crs.js';
import type { RelativeValues } from '../metrics/relative.js';
import type { DirectionStats } from '../ops/surface-compare.js';
import { statsLines } from './stats-text.js';
import { toleranceLines } from './tolerance-text.js';
import { countOf, formatBytes, formatCount, formatDistance, formatMs, formatPoint } from './format.js';

function inputLine(label: string, s: InputSummary): string {
  const what = s.source === 'vertices' ? countOf(s.points, 'vertex', 'vertices') : countOf(s.points, 'point');
  const units = s.crs && crsUnits(s.crs);
  const crs = s.crs ? `  ${crsLabel(s.crs)}${units ? `, ${units}` : ''}` : '';
  return `  ${label}  ${s.path}  ${s.format.toUpperCase()}  ${what}  ${s.dims}D${crs}`;
}

function witnessText(w: Witness | null, from: string, to: string, surface = false): string {
  if (!w) return '(an input is empty)';
  // In surface mode the source is a sample and the target a triangle (or a point of a point cloud).
  const target = surface ? `${to} triangle ${w.toIndex}` : `${to}[${w.toIndex}]`;
  const source = surface ? `${from} sample ${w.fromIndex}` : `${from}[${w.fromIndex}]`;
  return `${source} ${formatPoint(w.fromPoint)} → ${target} ${formatPoint(w.toPoint)}`;
}

function surfaceLines(r: CompareResult, c: ChalkInstance): string[] {
  const s = r.surface!;
  const stats = (label: string, d: DirectionStats) =>
    `  ${label.padEnd(22)} ${c.dim('mean')} ${formatDistance(d.mean)}  ${c.dim('rms')} ${formatDistance(d.rms)}  ` +
    `${c.dim('min')} ${formatDistance(d.min)}  ${c.dim('E')} ${formatDistance(d.e)}  ${c.dim('E/sample')} ${formatDistance(d.e / d.samples)}`;
  const lines = [stats('A → B', s.ab)];
  if (s.ba) lines.push(stats('B → A', s.ba), `  ${'Es = max(E)'.padEnd(22)} ${formatDistance(s.es!)}`);
  const counts = s.ba ? `A ${formatCount(s.ab.samples)} · B ${formatCount(s.ba.samples)}` : `A ${formatCount(s.ab.samples)}`;
  lines.push(c.dim(`  samples ${counts} · ${s.sampling} sampling · seed ${s.seed}`));
  return lines;
}

function relativeLine(rel: RelativeValues, c: ChalkInstance): string {
  const which = rel.basis === 'union' ? 'both inputs\'' : `${rel.basis.toUpperCase()}'s`;
  const parts = Object.entries(rel.percent).filter(([, v]) => v !== null).map(([k, v]) => `${k} ${v!.toPrecision(4)}%`);
  return `  ${'relative'.padEnd(22)} ${c.dim(`of ${which} bbox diagonal ${formatDistance(rel.diagonal)}:`)} ${parts.join(' · ')}`;
}

export function renderCompareText(r: CompareResult, c: ChalkInstance): string {
  const percent = r.bboxDiagonal > 0 ? (100 * r.hd) / r.bboxDiagonal : 0;
  const surface = r.mode === 'surface';
  const title = (r.directed ? 'Directed Hausdorff A → B' : 'Hausdorff distance') + (surface ? ' (surfaces)' : '');
  const lines = [
    `${c.bold(title.padEnd(24))} ${c.bold.cyan(formatDistance(r.hd))}` +
      // A zero diagonal (every point in one place) makes no percentage worth printing.
      (r.bboxDiagonal > 0 ? c.dim(`   (${percent.toPrecision(3)}% of bbox diagonal ${formatDistance(r.bboxDiagonal)})`) : ''),
    `  ${'A → B'.padEnd(22)} ${formatDistance(r.hdAb).padEnd(16)} ${c.dim(witnessText(r.witnessAb, 'A', 'B', surface))}`,
  ];
  if (r.hdBa !== null) {
    lines.push(`  ${'B → A'.padEnd(22)} ${formatDistance(r.hdBa).padEnd(16)} ${c.dim(witnessText(r.witnessBa, 'B', 'A', surface))}`);
  }
  if (surface) lines.push(...surfaceLines(r, c));
  if (r.stats) lines.push(...statsLines(r.stats, c));
  if (r.tolerance) lines.push(...toleranceLines(r.tolerance, c));
  if (r.relative) lines.push(relativeLine(r.relative, c));
  lines.push('', inputLine('A', r.a), inputLine('B', r.b));
  const t = r.timingsMs;
  if (r.empty) {
    lines.push(`  nothing measured: an input is empty · time read ${formatMs(t.read)} · total ${formatMs(t.total)}`);
  } else if (r.device) {
    lines.push(`  method ${r.method} · backend ${r.backend} · GPU ${r.device.ordinal} ${r.device.name} · peak ${formatBytes(r.peakDeviceBytes)}`);
    if (r.placement) {
      const tiles = r.placement.targetTiles > 1 ? ` · target in ${r.placement.targetTiles} tiles` : '';
      const space = r.placement.splitBySpace.length > 0
        ? ` · split by space: ${r.placement.splitBySpace.map((d) => (d === 'ab' ? 'A → B' : 'B → A')).join(', ')}` : '';
      lines.push(`  workers ${r.placement.workers} on GPUs ${r.placement.devices.join(',')}${tiles}${space}`);
    }
    lines.push(
      `  time   read ${formatMs(t.read)}${surface ? ` · sample ${formatMs(t.sample)}` : ''} · upload ${formatMs(t.upload)} · build ${formatMs(t.build)} · query ${formatMs(t.query)} · ` +
        `download ${formatMs(t.download)} · total ${formatMs(t.total)}`,
    );
  } else {
    lines.push(`  method ${r.method} · backend ${r.backend} · ${r.threads} thread${r.threads === 1 ? '' : 's'}`);
    lines.push(
      `  time   read ${formatMs(t.read)}${surface ? ` · sample ${formatMs(t.sample)}` : ''} · build ${formatMs(t.build)} · ` +
        `query ${formatMs(t.query)}${t.stats > 0 ? ` · statistics ${formatMs(t.stats)}` : ''} · total ${formatMs(t.total)}`,
    );
  }
  for (const n of r.notes) lines.push(c.yellow(`  note   ${n}`));
  if (r.threshold) {
    const t = r.threshold;
    const verdict = `${t.label} ${formatDistance(t.value)} ${t.exceeded ? '>' : '<='} ${formatDistance(t.limit)} (--fail-above ${t.spec})`;
    lines.push(t.exceeded ? c.bold.red(`FAIL  ${verdict}`) : c.green(`pass  ${verdict}`));
  }
  return lines.join('\n') + '\n';
}
