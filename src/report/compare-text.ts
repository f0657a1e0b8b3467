// The human-readable report of `xhd compare`: the answer first, then what was compared and what it cost.
import type { ChalkInstance } from 'chalk';

import type { CompareResult, InputSummary, Witness } from '../compare.js';
import { formatBytes, formatCount, formatDistance, formatMs, formatPoint } from './format.js';

function inputLine(label: string, s: InputSummary): string {
  const what = s.source === 'vertices' ? `${formatCount(s.points)} vertices` : `${formatCount(s.points)} points`;
  return `  ${label}  ${s.path}  ${s.format.toUpperCase()}  ${what}  ${s.dims}D`;
}

function witnessText(w: Witness, from: string, to: string): string {
  return `${from}[${w.fromIndex}] ${formatPoint(w.fromPoint)} → ${to}[${w.toIndex}] ${formatPoint(w.toPoint)}`;
}

export function renderCompareText(r: CompareResult, c: ChalkInstance): string {
  const percent = r.bboxDiagonal > 0 ? (100 * r.hd) / r.bboxDiagonal : 0;
  const title = r.directed ? 'Directed Hausdorff A → B' : 'Hausdorff distance';
  const lines = [
    `${c.bold(title.padEnd(24))} ${c.bold.cyan(formatDistance(r.hd))}   ` +
      c.dim(`(${percent.toPrecision(3)}% of bbox diagonal ${formatDistance(r.bboxDiagonal)})`),
    `  ${'A → B'.padEnd(22)} ${formatDistance(r.hdAb).padEnd(16)} ${c.dim(witnessText(r.witnessAb, 'A', 'B'))}`,
  ];
  if (r.hdBa !== null && r.witnessBa) {
    lines.push(`  ${'B → A'.padEnd(22)} ${formatDistance(r.hdBa).padEnd(16)} ${c.dim(witnessText(r.witnessBa, 'B', 'A'))}`);
  }
  lines.push('', inputLine('A', r.a), inputLine('B', r.b));
  const t = r.timingsMs;
  if (r.device) {
    lines.push(`  method ${r.method} · backend ${r.backend} · GPU ${r.device.ordinal} ${r.device.name} · peak ${formatBytes(r.peakDeviceBytes)}`);
    lines.push(
      `  time   read ${formatMs(t.read)} · upload ${formatMs(t.upload)} · build ${formatMs(t.build)} · query ${formatMs(t.query)} · ` +
        `download ${formatMs(t.download)} · total ${formatMs(t.total)}`,
    );
  } else {
    lines.push(`  method ${r.method} · backend ${r.backend} · ${r.threads} thread${r.threads === 1 ? '' : 's'}`);
    lines.push(
      `  time   read ${formatMs(t.read)} · build ${formatMs(t.build)} · query ${formatMs(t.query)} · total ${formatMs(t.total)}`,
    );
  }
  for (const n of r.notes) lines.push(c.yellow(`  note   ${n}`));
  return lines.join('\n') + '\n';
}
