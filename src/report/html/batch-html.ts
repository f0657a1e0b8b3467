// `xhd batch --report FILE.html`: the pairs of a batch as one self-contained page: a sortable table of every
// pair with its status and metrics, and the distribution of a chosen metric over the pairs. The script is the
// bundled batch viewer (viewer/batch.ts); the rows are the batch's JSON Lines records, trimmed to the columns.
import { XHD_VERSION } from '../../core/version.js';
import { writeOutputFile } from '../output-file.js';
import { PAGE_STYLE } from './page-style.js';
import { escapeHtml, scriptSafe } from './script-safe.js';
import { readViewerBundle } from './viewer-bundle.js';
import type { BatchReportData, BatchRow } from './page-data.js';

export type { BatchReportData, BatchRow } from './page-data.js';



const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A row from one JSON Lines record of `xhd batch` (the pair's compare JSON, or its error). */
export function batchRow(record: Record<string, any>): BatchRow {
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
  };
}

export function batchHtml(data: BatchReportData, viewerScript: string): string {
  if (/<\/script/i.test(viewerScript)) throw new Error('the viewer bundle contains "</script"');
  const manifest = escapeHtml(String(data.summary.manifest ?? ''));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="xhd ${escapeHtml(data.version)}">
<title>xhd batch: ${manifest}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
  <h1>xhd batch: ${manifest}</h1>
  <p>xhd ${escapeHtml(data.version)} · ${escapeHtml(data.generated)} · <span id="summary"></span></p>
</header>
<main>
  <section class="wide"><h2>Pairs <span style="font-weight: normal; font-size: 12px; color: var(--muted)">(click a column to sort)</span></h2>
    <table id="pairs"><thead></thead><tbody></tbody></table></section>
  <section class="wide"><h2>Distribution over the pairs of <select id="metric"></select></h2><canvas id="distribution" style="width: 100%; height: 220px; display: block"></canvas></section>
  <section class="wide"><h2>Run</h2><dl id="run-list"></dl></section>
</main>
<script type="application/json" id="xhd-data">${scriptSafe(JSON.stringify(data))}</script>
<script>${viewerScript}</script>
</body>
</html>
`;
}

/** Writes the batch page atomically (never a partial file: writeOutputFile). */
export async function writeBatchReport(path: string, records: Record<string, any>[], summary: Record<string, unknown>, command: string[], signal?: AbortSignal): Promise<void> {
  const data: BatchReportData = { kind: 'batch', version: XHD_VERSION, generated: new Date().toISOString(), command, summary, rows: records.map(batchRow) };
  const html = batchHtml(data, readViewerBundle('batch'));
  await writeOutputFile(path, function* () {
    yield Buffer.from(html, 'utf8');
  }, signal);
}
