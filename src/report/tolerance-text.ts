// The human-readable lines of NSD and F-score at each τ.
import type { ChalkInstance } from 'chalk';

import type { ToleranceReport } from '../metrics/surface-tolerance.js';
import { formatDistance } from './format.js';

export function toleranceLines(t: ToleranceReport, c: ChalkInstance): string[] {
  const at = (tau: number) => t.values.find((v) => v.tau === tau)!;
  const lines: string[] = [];
  const share = (v: number) => (Number.isNaN(v) ? 'nan' : v.toFixed(6));
  for (const tau of t.nsdTaus) lines.push(`  ${`NSD @ ${formatDistance(tau)}`.padEnd(22)} ${share(at(tau).nsd).padEnd(16)} ${c.dim(`${t.variant} variant`)}`);
  for (const tau of t.fscoreTaus) {
    const v = at(tau);
    lines.push(`  ${`F-score @ ${formatDistance(tau)}`.padEnd(22)} ${share(v.fscore).padEnd(16)} ${c.dim(`precision ${share(v.precision)} · recall ${share(v.recall)} · ${t.variant} variant`)}`);
  }
  return lines;
}
