// Which measurements are not worth starting because they would surely exceed the time limit.
import type { MethodName, Outcome } from './methods.js';
import { formatSeconds } from './report.js';

// Early-break scans grow about quadratically with n (the cmax ball holds a roughly constant number
// of points), so a larger size is skipped when the smaller one's time scaled by n^2 exceeds the limit.
export const QUADRATIC: ReadonlySet<MethodName> = new Set(['eb', 'scipy']);

/** Why a quadratic method is not worth starting at size n, judging from its time at a smaller size. */
export function skipReason(previous: { n: number; outcome: Outcome } | undefined, n: number, timeoutS: number): string | null {
  if (!previous || previous.n >= n) return null;
  const scale = (n / previous.n) ** 2;
  const { outcome } = previous;
  if (outcome.kind === 'timeout') return `est. > ${Math.round(timeoutS * scale)} s > limit`;
  if (outcome.kind === 'done' && (outcome.ms * scale) / 1000 > timeoutS) return `est. ~${formatSeconds((outcome.ms * scale) / 1000)} s > limit`;
  return null;
}
