// `xhd batch --report FILE.html`: the pairs of a batch as one self-contained page: a sortable table of every
// pair with its status and metrics, and the distribution of a chosen metric over the pairs. The script is the
// bundled batch viewer (viewer/batch.ts); the rows are the batch's JSON Lines records, trimmed to the columns.
import { dirname, relative, resolve, sep } from 'node:path';

import { XHD_VERSION } from '../../core/version.js';
import { writeOutputFile } from '../output-file.js';
import { escapeHtml } from './script-safe.js';
import { reportPage } from './page-shell.js';
import { readViewerBundle } from './viewer-bundle.js';
import type { BatchReportData, BatchRow } from './page-data.js';

export type { BatchReportData, BatchRow } from './page-data.js';



const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * A row from one JSON Lines record of `xhd batch` (the pair's compare JSON, or its error). pageDir: the batch
 * page's directory, which a pair's report link (--report-dir) is made relative to.
 */
export function batchRow(record: Record<string, any>, pageDir = '.'): BatchRow {
  return {
    line: record.line,
    status: record.status,
    a: record.pair?.a ?? '',
    b: record.pair?.b ?? '',
    hd: numberOrNull(record.hd),
    hd95: numberOrNull(record.hd95),
    assd: numberOrNull(record.assd),
    metric: record.threshold?.measured ?? null,
    limit: numberOrNull(record.threshold?.limit),
    totalMs: numberOrNull(record.timings_ms?.total),
    error: record.error?.message ?? null,
    report: typeof record.report === 'string' ? relativeLink(pageDir, record.report) : null,
  };
}

/** A link from a page in pageDir to target, with URL separators and each segment escaped. */
function relativeLink(pageDir: string, target: string): string {
  return relative(resolve(pageDir), resolve(target)).split(sep).map(encodeURIComponent).join('/');
}

export function batchHtml(data: BatchReportData, viewerScript: string): string {
  return reportPage({
    title: `xhd batch: ${String(data.summary.manifest ?? '')}`,
    version: data.version,
    subtitle: `xhd ${escapeHtml(data.version)} · ${escapeHtml(data.generated)} · <span id="summary"></span>`,
    data,
    script: viewerScript,
    main: `
  <section class="wide"><h2>Pairs <span style="font-weight: normal; font-size: 12px; color: var(--muted)">(click a column to sort)</span></h2>
    <table id="pairs"><thead></thead><tbody></tbody></table></section>
  <section class="wide"><h2>Distribution over the pairs of <select id="metric"></select></h2><canvas id="distribution" style="width: 100%; height: 220px; display: block"></canvas></section>
  <section class="wide"><h2>Run</h2><dl id="run-list"></dl></section>
`,
  });
}

/** Writes the batch page atomically (never a partial file: writeOutputFile). */
export async function writeBatchReport(path: string, records: Record<string, any>[], summary: Record<string, unknown>, command: string[], signal?: AbortSignal): Promise<void> {
  const data: BatchReportData = { kind: 'batch', version: XHD_VERSION, generated: new Date().toISOString(), command, summary, rows: records.map((r) => batchRow(r, dirname(path))) };
  const html = batchHtml(data, readViewerBundle('batch'));
  await writeOutputFile(path, function* () {
    yield Buffer.from(html, 'utf8');
  }, signal);
}
