// The compare report's page: reads the embedded data, draws the 3D view, legend, worst regions, plots and
// tables, and wires the controls. window.__xhd exposes the view to the browser tests and the benchmark.
import { decodeSets } from './decode.js';
import { count, element, short } from './format.js';
import { DIRECTION_COLOURS, drawCdf, drawHistogram } from './plots.js';
import type { CompareReportData } from './report-data.js';
import { createScene, type SceneView } from './scene.js';
import { createSliceView, type SliceView } from './slices.js';
import { fillNumbers, fillRun } from './tables.js';

interface TestHooks {
  ready: boolean;
  error?: string;
  view?: SceneView;
  /** The masks' slice view, when the report has one. */
  slices?: SliceView;
  /** Renders `frames` frames turning the camera a little each time; resolves to frames per second. */
  benchmark?: (frames: number) => Promise<number>;
}

const hooks: TestHooks = { ready: false };
(window as unknown as { __xhd: TestHooks }).__xhd = hooks;
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

async function start(): Promise<void> {
  const data = JSON.parse(byId('xhd-data').textContent!) as CompareReportData;
  document.title = `xhd compare: ${data.sets[0]?.path ?? (data.json as any).a.path} vs ${data.sets[1]?.path ?? (data.json as any).b.path}`;
  byId('legend-hd').textContent = `HD = ${data.json.hd}`;
  fillNumbers(byId<HTMLTableElement>('numbers-table'), data);
  fillRun(byId('run-list'), data);
  drawPlots(data);

  const { min, step } = data.box;
  const centre: [number, number, number] = [0, 1, 2].map((c) => min[c] + (step[c] * 65535) / 2) as [number, number, number];
  const radius = Math.max(1e-9, Math.hypot(step[0], step[1], step[2]) * 65535 / 2);
  const decoding = decodeSets(data, centre);
  byId('shown').textContent = data.sets.map((s) => `${s.name}: ${count(s.shown)} of ${count(s.total)} points shown`
    + (s.shown < s.total && s.worstKept > 0 ? ` (its ${count(s.worstKept)} largest distances always kept)` : '')).join('; ') || 'no points to draw';
  if (data.directions.length === 0) {
    await decoding;
    hooks.ready = true;
    return;
  }

  const view = await createScene(byId('view'), byId('witness-label'), decoding, data.colourTable, radius);
  hooks.view = view;
  if (data.slices) {
    byId('slices-panel').hidden = false;
    hooks.slices = await createSliceView(byId('slices'), data.slices, data.colourTable);
  }
  const toView = (p: number[]) => [p[0] - centre[0], p[1] - centre[1], (p[2] ?? 0) - centre[2]];
  let active = 0;
  const range = data.range;
  drawColourBar(data);

  const show = (k: number) => {
    active = k;
    const d = data.directions[k];
    view.showColoured(d.set, range);
    hooks.slices?.colour(d.set, range);
    view.setWitness(d.witness && toView(d.witness.from), d.witness && toView(d.witness.to), d.witness ? `HD witness ${d.label}: ${short(d.witness.distance)}` : '');
    byId('colouring').textContent = `${data.sets[d.set].name} coloured by distance to ${data.sets[1 - d.set]?.name ?? 'the other'} (${d.label})`;
    const toggle = byId<HTMLButtonElement>('toggle-direction');
    toggle.disabled = data.directions.length < 2;
    toggle.textContent = data.directions.length < 2 ? 'directed: A → B only' : `show ${data.directions[1 - k].label}`;
    fillRegions(data, k, (p) => view.flyTo(toView(p)));
  };
  byId('toggle-direction').addEventListener('click', () => show((active + 1) % data.directions.length));
  byId<HTMLInputElement>('toggle-overlay').addEventListener('change', (e) => view.setOverlayVisible((e.target as HTMLInputElement).checked));
  byId('reset-view').addEventListener('click', () => view.resetView());
  show(0);

  hooks.benchmark = (frames) => new Promise((resolve) => {
    let done = 0;
    const started = performance.now();
    const tick = () => {
      view.controls.autoRotate = true;
      view.controls.update(1 / 60);
      view.render();
      view.renderer.getContext().finish(); // count the GPU's work, not only its queueing
      if (++done < frames) requestAnimationFrame(tick);
      else {
        view.controls.autoRotate = false;
        resolve((1000 * frames) / (performance.now() - started));
      }
    };
    requestAnimationFrame(tick);
  });
  // Ready once the first frame is drawn: the view asked for it (requestRender) before this callback.
  await new Promise((resolve) => requestAnimationFrame(resolve));
  hooks.ready = true;
}

function drawPlots(data: CompareReportData): void {
  const log = byId<HTMLInputElement>('log-counts');
  const legend = byId('plot-legend');
  data.directions.forEach((d, k) => {
    const swatch = element('span', `■ ${d.label}`);
    swatch.style.color = DIRECTION_COLOURS[k];
    legend.append(swatch, ' ');
  });
  const draw = () => {
    drawHistogram(byId<HTMLCanvasElement>('histogram'), data.directions, log.checked);
    drawCdf(byId<HTMLCanvasElement>('cdf'), data.directions);
  };
  log.addEventListener('change', draw);
  new ResizeObserver(draw).observe(byId('histogram'));
}

function drawColourBar(data: CompareReportData): void {
  const canvas = byId<HTMLCanvasElement>('colour-bar');
  canvas.width = 256;
  canvas.height = 1;
  const ctx = canvas.getContext('2d')!;
  const image = ctx.createImageData(256, 1);
  for (let i = 0; i < 256; i++) image.data.set([...data.colourTable.slice(3 * i, 3 * i + 3), 255], 4 * i);
  ctx.putImageData(image, 0, 0);
  byId('range-low').textContent = short(data.range[0]);
  byId('range-high').textContent = `${short(data.range[1])}${data.rangeGiven ? ' (--report-range)' : ' (HD)'}`;
}

function fillRegions(data: CompareReportData, k: number, fly: (p: number[]) => void): void {
  const list = byId('regions');
  list.replaceChildren();
  const d = data.directions[k];
  byId('regions-title').textContent = `Worst regions, ${d.label}`;
  d.regions.forEach((r, i) => {
    const button = element('button', `${short(r.distance)} at (${r.point.map(short).join(', ')})${r.members > 1 ? ` · ${count(r.members)} of the largest distances near it` : ''}`);
    button.dataset.region = String(i);
    button.addEventListener('click', () => fly(r.point));
    const item = element('li');
    item.append(button);
    list.append(item);
  });
}

start().catch((error: unknown) => {
  hooks.error = String(error);
  byId('shown').textContent = `the report could not be drawn: ${error}`;
  console.error(error);
});
