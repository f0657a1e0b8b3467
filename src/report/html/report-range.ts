// --report-range: the distances the report's colour bar spans, `MAX` (from 0) or `MIN,MAX`.
import { ValueSyntaxError } from '../../core/errors.js';

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
