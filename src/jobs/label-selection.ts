// --labels all|1,2,3|1-5: which labels of two label masks are compared, each as its own pair of surfaces.
import { ValueSyntaxError } from '../core/errors.js';

/** 'all': every nonzero value in either mask; else these values, ascending, without repeats. */
export type LabelSelection = 'all' | number[];

/** Ranges wider than this are refused: a typo such as 1-100000 would otherwise start 100,000 comparisons. */
const MAX_RANGE = 65535;

/** Parses `all`, a comma list of integers, ranges `a-b` (a ≤ b), or a mix (`1,3-5`). */
export function parseLabelSelection(text: string): LabelSelection {
  const trimmed = text.trim();
  if (trimmed === 'all') return 'all';
  if (trimmed === '') throw new ValueSyntaxError('expected all, label values such as 1,2,3, or ranges such as 1-5; got nothing');
  const labels = new Set<number>();
  for (const part of trimmed.split(',')) {
    const item = part.trim();
    const range = /^(-?\d+)\s*-\s*(-?\d+)$/.exec(item);
    if (range) {
      const from = Number(range[1]), to = Number(range[2]);
      if (from > to) throw new ValueSyntaxError(`label range ${item} runs backwards; write ${to}-${from}`);
      if (to - from >= MAX_RANGE) throw new ValueSyntaxError(`label range ${item} spans more than ${MAX_RANGE} labels`);
      for (let v = from; v <= to; v++) labels.add(v);
      continue;
    }
    if (!/^-?\d+$/.test(item)) throw new ValueSyntaxError(`expected all, label values such as 1,2,3, or ranges such as 1-5; '${item}' in '${text}' is neither`);
    labels.add(Number(item));
  }
  if (labels.has(0)) throw new ValueSyntaxError('label 0 is the background, not a label: leave it out');
  if ([...labels].some((v) => !Number.isSafeInteger(v))) throw new ValueSyntaxError(`label values must be integers within ±2^53; got '${text}'`);
  return [...labels].sort((x, y) => x - y);
}
