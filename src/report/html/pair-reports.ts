// `xhd batch --report-dir DIR`: one compare report page a pair, beside the batch. Each page is the pair's own
// `xhd compare --report` page; its name comes from the pair's manifest line, which is unique in a manifest
// and stable across reruns, so links from the batch page (and from elsewhere) keep pointing at the same pair.
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { OutputError } from '../../core/errors.js';
import type { CompareResult } from '../../jobs/compare.js';
import { asOutputError, checkWritable } from '../output-file.js';
import { DEFAULT_DISPLAY_POINTS } from './report-range.js';
import { writeCompareReport } from './compare-html.js';

/** The page of the pair on this manifest line, inside dir. */
export const pairReportPath = (dir: string, line: number) => join(dir, `pair-${line}.html`);

/**
 * Makes dir (and missing parents) and checks a page can be written there, before any pair runs: a bad
 * directory is one OutputError line, exit 2, with nothing measured.
 */
export function prepareReportDir(dir: string): void {
  try {
    const stats = statSync(dir, { throwIfNoEntry: false });
    if (stats && !stats.isDirectory()) throw new OutputError(dir, 'is not a directory');
    if (!stats) mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw asOutputError(dir, error);
  }
  checkWritable(pairReportPath(dir, 0));
}

/** Writes one pair's page (atomically, as every report); returns its path. */
export async function writePairReport(dir: string, line: number, result: CompareResult, command: string[], signal?: AbortSignal): Promise<string> {
  const path = pairReportPath(dir, line);
  await writeCompareReport(path, result, { displayPoints: DEFAULT_DISPLAY_POINTS, command }, signal);
  return path;
}
