// `xhd compare --report FILE.html`: one self-contained page (style, script and data inline; no network when
// opened, from file:// or a CI artifact viewer) with the 3D view, legend, worst regions, plots and numbers.
// The data is compare-report-data.ts's; the script is the bundled viewer (viewer/, scripts/build-viewer.mjs).
import type { CompareResult } from '../../jobs/compare.js';
import { writeOutputFile } from '../output-file.js';
import { compareReportData, type CompareReportData, type ReportOptions } from './compare-report-data.js';
import { escapeHtml } from './script-safe.js';
import { reportPage } from './page-shell.js';
import { readViewerBundle } from './viewer-bundle.js';

export { scriptSafe } from './script-safe.js';

/** The page around the data and the script (the script fills in everything that depends on the data). */
export function compareHtml(data: CompareReportData, viewerScript: string): string {
  return reportPage({
    title: `xhd compare: ${data.json.a.path} vs ${data.json.b.path}`,
    version: data.version,
    subtitle: `xhd ${escapeHtml(data.version)} · ${escapeHtml(data.json.mode)} mode · ${escapeHtml(data.generated)}`,
    data,
    script: viewerScript,
    main: `
  <section id="view-panel">
    <div id="view"><div id="witness-label" hidden></div></div>
    <div id="controls">
      <button id="toggle-direction" type="button">show B → A</button>
      <label><input id="toggle-overlay" type="checkbox" checked> other input as overlay</label>
      <button id="reset-view" type="button">reset view</button>
      <span id="colouring"></span>
    </div>
    <div id="shown">loading…</div>
  </section>
  <section id="legend-panel">
    <div id="legend">
      <div id="legend-hd"></div>
      <canvas id="colour-bar" width="256" height="1"></canvas>
      <div class="bar-ends"><span id="range-low"></span><span id="range-high"></span></div>
    </div>
    <h2 id="regions-title" style="margin-top: 14px">Worst regions</h2>
    <ol id="regions"></ol>
  </section>
  <section class="wide" id="slices-panel" hidden>
    <h2>Slices <span style="font-weight: normal; font-size: 12px; color: var(--muted)">(both masks' surface voxels: the coloured one by its distance, the other grey; scroll a slice with the slider or the mouse wheel)</span></h2>
    <div id="slices"></div>
  </section>
  <div class="plots">
    <section><h2>Histogram <label style="font-weight: normal; font-size: 12px"><input id="log-counts" type="checkbox"> log counts</label> <span id="plot-legend"></span></h2><canvas id="histogram"></canvas></section>
    <section><h2>Cumulative distribution</h2><canvas id="cdf"></canvas></section>
  </div>
  <section class="numbers"><h2>Numbers (the --json report)</h2><table id="numbers-table"></table></section>
  <section><h2>Run</h2><dl id="run-list"></dl></section>
`,
  });
}

/** Stands in the page for the packed points while the rest of it is made. */
const PACKED_MARK = 'xhd-packed-points';

/**
 * compareHtml's page as UTF-8 bytes, in pieces: the packed points (megabytes of base64, which JSON and a script
 * element take as they are) go in as one piece of their own instead of through JSON.stringify, the escaping and
 * the page's string. The same bytes as Buffer.from(compareHtml(data, viewerScript)).
 */
export function compareHtmlChunks(data: CompareReportData, viewerScript: string): Buffer[] {
  const page = compareHtml({ ...data, packed: PACKED_MARK }, viewerScript);
  // Quotes inside JSON strings are escaped and the text before the data is HTML-escaped: only the key matches.
  const key = `"packed":"${PACKED_MARK}"`;
  const at = page.indexOf(key);
  if (at < 0) throw new Error('the compare page lost its packed points');
  const split = at + key.length - PACKED_MARK.length - 1;
  return [Buffer.from(page.slice(0, split), 'utf8'), Buffer.from(data.packed, 'latin1'), Buffer.from(page.slice(split + PACKED_MARK.length), 'utf8')];
}

/** Builds the report's data and writes the page atomically (never a partial file: writeOutputFile). */
export async function writeCompareReport(path: string, result: CompareResult, options: ReportOptions, signal?: AbortSignal): Promise<{ shown: number; total: number }> {
  const script = readViewerBundle('compare');
  const data = await compareReportData(result, options);
  const chunks = compareHtmlChunks(data, script);
  await writeOutputFile(path, () => chunks, signal);
  return { shown: data.sets.reduce((s, x) => s + x.shown, 0), total: data.sets.reduce((s, x) => s + x.total, 0) };
}
