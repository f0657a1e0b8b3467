// `xhd distance --report FILE.html` (one pose or --frames): one self-contained page with the per-frame minimum
// and maximum distance and query time plotted, a frame table (a click on a row or on the plot picks the frame
// whose closest and farthest pairs are shown, listed and in a 3D view of both meshes with B posed as in that
// frame), and the JSON report's numbers. The data is distanceJson's and distance-scene-data.ts's; the script is
// the bundled distance viewer (viewer/distance.ts).
import type { DistanceResult } from '../../jobs/distance.js';
import { XHD_VERSION } from '../../core/version.js';
import { distanceJson } from '../distance-json.js';
import { writeOutputFile } from '../output-file.js';
import { escapeHtml } from './script-safe.js';
import { reportPage } from './page-shell.js';
import { readViewerBundle } from './viewer-bundle.js';
import { distanceSceneData } from './distance-scene-data.js';
import type { DistanceSceneData } from './page-data.js';

export interface DistanceReportData {
  kind: 'distance';
  version: string;
  generated: string;
  command: string[];
  json: ReturnType<typeof distanceJson>;
  /** The 3D view's meshes and poses; null when the result kept no meshes. */
  scene: DistanceSceneData | null;
}

export function distanceHtml(data: DistanceReportData, viewerScript: string): string {
  return reportPage({
    title: `xhd distance: ${data.json.a.path} vs ${data.json.b.path}`,
    version: data.version,
    subtitle: `xhd ${escapeHtml(data.version)} · ${escapeHtml(data.generated)} · <span id="headline"></span>`,
    data,
    script: viewerScript,
    main: `
  <section class="wide" id="view-panel">
    <div id="view"><div id="witness-label" hidden></div></div>
    <div id="controls">
      <label><input id="toggle-b" type="checkbox" checked> B</label>
      <label><input id="toggle-farthest" type="checkbox" checked> farthest pair</label>
      <button id="reset-view" type="button">reset view</button>
    </div>
    <div id="shown">loading…</div>
  </section>
  <section class="wide" id="plots"><h2>Distance per frame</h2><canvas id="distance-plot" style="width: 100%; height: 240px; display: block; cursor: crosshair"></canvas>
    <h2 style="margin-top: 10px">Query time per frame</h2><canvas id="time-plot" style="width: 100%; height: 140px; display: block; cursor: crosshair"></canvas></section>
  <section><h2 id="frame-title">Frame</h2><dl id="frame-pairs"></dl></section>
  <section class="numbers"><h2>Frames <span style="font-weight: normal; font-size: 12px; color: var(--muted)">(click a row)</span></h2><table id="frames"></table></section>
  <section class="numbers wide"><h2>Numbers (the --json report)</h2><table id="numbers-table"></table></section>
`,
  });
}

/** Writes the distance page atomically (never a partial file: writeOutputFile). */
export async function writeDistanceReport(path: string, result: DistanceResult, command: string[], signal?: AbortSignal): Promise<void> {
  const data: DistanceReportData = {
    kind: 'distance', version: XHD_VERSION, generated: new Date().toISOString(), command, json: distanceJson(result), scene: distanceSceneData(result),
  };
  const html = distanceHtml(data, readViewerBundle('distance'));
  await writeOutputFile(path, function* () {
    yield Buffer.from(html, 'utf8');
  }, signal);
}
