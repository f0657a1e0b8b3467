// --report-range: the distances the report's colour bar spans, `MAX` (from 0) or `MIN,MAX`; and --report-points'
// default. The report's options, read when the command is registered: this module stays small, the report's own
// modules are loaded only when a report is drawn.
import { ValueSyntaxError } from '../../core/errors.js';

/** --report-points: points drawn per input at most, by default. */
export const DEFAULT_DISPLAY_POINTS = 500_000;

export function parseReportRange(text: string): [number, number] {
  const parts = text.split(',').map((p) => p.trim());
  const numbers = parts.map(Number);
  if (parts.length > 2 || parts.some((p) => p === '') || numbers.some((n) => !Number.isFinite(n))) {
    throw new ValueSyntaxError(`expected MAX or MIN,MAX (distances), got '${text}'`);
  }
  const [lo, hi] = numbers.length === 1 ? [0, numbers[0]] : numbers;
  if (!(lo >= 0) || !(hi > lo)) throw new ValueSyntaxError(`expected 0 ≤ MIN < MAX, got '${text}'`);
  return [lo, hi];
}
