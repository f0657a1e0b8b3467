// The distance report's page: the minimum (and maximum) distance and the query time of every frame plotted,
// a frame table; a click on a row or a plot picks the frame whose pairs are listed and shown in the 3D view
// (B posed as in that frame). window.__xhd tells the browser tests it is drawn, which frame is picked, and
// holds the view.
import { decodeMeshes } from './decode.js';
import { count, element, short } from './format.js';
import { createMeshScene, type MeshView } from './mesh-scene.js';
import type { DistanceSceneData } from './report-data.js';
import { flatten } from './tables.js';
import { prepareCanvas } from './canvas.js';

interface Pair {
  a_point: number[];
  b_point: number[];
  a_triangle: number;
  b_triangle: number;
  intersecting?: boolean;
}

interface Frame {
  frame: number;
  line: number;
  min_distance?: number;
  max_distance?: number;
  query_ms: number;
  min_pair?: Pair;
  max_pair?: Pair;
}

interface DistanceJson extends Record<string, unknown> {
  min_distance?: number;
  max_distance?: number;
  min_pair?: Pair;
  max_pair?: Pair;
  frames?: Frame[];
  frames_summary?: { frames: number; min_distance?: number; min_frame?: number; max_distance?: number; max_frame?: number };
}

interface DistanceReportData {
  version: string;
  generated: string;
  command: string[];
  json: DistanceJson;
  scene: DistanceSceneData | null;
}

const hooks: { ready: boolean; error?: string; frame?: number; view?: MeshView } = { ready: false };
(window as unknown as { __xhd: typeof hooks }).__xhd = hooks;
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const MIN_COLOUR = '#4fc3f7', MAX_COLOUR = '#ffb74d', TIME_COLOUR = '#b39ddb', PICK_COLOUR = '#ff3b6b';

async function start(): Promise<void> {
  const data = JSON.parse(byId('xhd-data').textContent!) as DistanceReportData;
  const json = data.json;
  // A single pose is one frame, so the page has one shape either way.
  const frames: Frame[] = json.frames ?? [{ frame: 0, line: 0, min_distance: json.min_distance, max_distance: json.max_distance, query_ms: NaN, min_pair: json.min_pair, max_pair: json.max_pair }];
  const s = json.frames_summary;
  byId('headline').textContent = s
    ? `${s.frames} frames` + (s.min_distance !== undefined ? ` · minimum ${short(s.min_distance)} at frame ${s.min_frame}` : '') + (s.max_distance !== undefined ? ` · maximum ${short(s.max_distance)} at frame ${s.max_frame}` : '')
    : [json.min_distance !== undefined && `minimum ${short(json.min_distance)}`, json.max_distance !== undefined && `maximum ${short(json.max_distance)}`].filter(Boolean).join(' · ');
  if (!json.frames) byId('plots').hidden = true;

  const table = byId<HTMLTableElement>('frames');
  const head = table.createTHead().insertRow();
  for (const title of ['frame', 'line', 'min', 'max', 'query ms']) head.append(element('th', title));
  const body = table.createTBody();
  frames.forEach((f) => {
    const row = body.insertRow();
    for (const v of [f.frame, f.line, f.min_distance, f.max_distance, f.query_ms]) row.insertCell().textContent = v === undefined || Number.isNaN(v) ? '' : short(v);
    row.style.cursor = 'pointer';
    row.addEventListener('click', () => pick(f.frame));
  });

  const numbers = byId<HTMLTableElement>('numbers-table');
  for (const [k, v] of flatten({ ...json, frames: undefined, command: data.command.join(' '), generated: data.generated })) {
    if (k === 'frames' || k.startsWith('frames.')) continue;
    const row = numbers.insertRow();
    row.insertCell().textContent = k;
    row.insertCell().textContent = v;
  }

  if (!data.scene) byId('view-panel').hidden = true;
  const view = data.scene ? await meshView(data.scene) : undefined;
  hooks.view = view;
  const distancePlot = byId<HTMLCanvasElement>('distance-plot'), timePlot = byId<HTMLCanvasElement>('time-plot');
  let picked = s?.min_frame ?? s?.max_frame ?? 0;
  const draw = () => {
    plot(distancePlot, frames, [['min_distance', MIN_COLOUR, 'min'], ['max_distance', MAX_COLOUR, 'max']], picked);
    plot(timePlot, frames, [['query_ms', TIME_COLOUR, 'query ms']], picked);
  };
  function pick(frame: number): void {
    picked = frame;
    hooks.frame = frame;
    const f = frames[frame];
    byId('frame-title').textContent = json.frames ? `Frame ${f.frame} (line ${f.line})` : 'The pose';
    const list = byId('frame-pairs');
    list.replaceChildren();
    const add = (k: string, v: string) => list.append(element('dt', k), element('dd', v));
    if (f.min_distance !== undefined) add('minimum', short(f.min_distance) + (f.min_pair?.intersecting ? ' (the meshes intersect)' : ''));
    if (f.min_pair) add('closest pair', `A (${f.min_pair.a_point.map(short).join(', ')}) on triangle ${f.min_pair.a_triangle}; B (${f.min_pair.b_point.map(short).join(', ')}) on triangle ${f.min_pair.b_triangle}`);
    if (f.max_distance !== undefined) add('maximum', short(f.max_distance));
    if (f.max_pair) add('farthest pair', `A (${f.max_pair.a_point.map(short).join(', ')}); B (${f.max_pair.b_point.map(short).join(', ')})`);
    body.querySelectorAll('tr').forEach((tr, k) => (tr.style.background = k === frame ? '#353c4a' : ''));
    view?.showFrame(frame, f.min_pair ?? null, f.max_pair ?? null, f.min_distance !== undefined ? `closest: ${short(f.min_distance)}` : '');
    draw();
  }
  for (const canvas of [distancePlot, timePlot]) {
    canvas.addEventListener('click', (e) => {
      const x = (e.offsetX - LEFT) / (canvas.clientWidth - LEFT - RIGHT);
      pick(Math.min(frames.length - 1, Math.max(0, Math.round(x * Math.max(1, frames.length - 1)))));
    });
  }
  new ResizeObserver(draw).observe(distancePlot);
  pick(picked);
  // Ready once the first frame is drawn: the view asked for it (requestRender) before this callback.
  await new Promise((resolve) => requestAnimationFrame(resolve));
  hooks.ready = true;
}

/** The 3D view and its controls; the count of triangles drawn under it. */
async function meshView(scene: DistanceSceneData): Promise<MeshView> {
  const meshes = await decodeMeshes(scene);
  const view = createMeshScene(byId('view'), byId('witness-label'), scene, meshes);
  byId<HTMLInputElement>('toggle-b').addEventListener('change', (e) => view.setBVisible((e.target as HTMLInputElement).checked));
  byId<HTMLInputElement>('toggle-farthest').addEventListener('change', (e) => view.setFarthestVisible((e.target as HTMLInputElement).checked));
  byId('reset-view').addEventListener('click', () => view.base.resetView());
  byId('shown').textContent = scene.meshes.map((m) => `${m.name}: ${count(m.shown)} of ${count(m.total)} ${m.pointCloud ? 'points' : 'triangles'} shown`
    + (m.shown < m.total ? ' (the pairs\' own always)' : '')).join('; ') + '; B as posed in the chosen frame';
  return view;
}

const LEFT = 56, RIGHT = 12;

/** Lines of the chosen keys against the frame index, with the picked frame marked. */
function plot(canvas: HTMLCanvasElement, frames: Frame[], series: [keyof Frame, string, string][], picked: number): void {
  const { ctx, w, h } = prepareCanvas(canvas);
  const top = 10, width = w - LEFT - RIGHT, height = h - 34;
  const values = series.flatMap(([k]) => frames.map((f) => f[k] as number | undefined)).filter((v): v is number => v !== undefined && Number.isFinite(v));
  const hi = Math.max(0, ...values) || 1;
  const x = (i: number) => LEFT + (frames.length > 1 ? i / (frames.length - 1) : 0.5) * width;
  const y = (v: number) => top + height * (1 - v / hi);
  ctx.strokeStyle = '#667';
  ctx.fillStyle = '#aab';
  ctx.beginPath();
  ctx.moveTo(LEFT, top);
  ctx.lineTo(LEFT, top + height);
  ctx.lineTo(LEFT + width, top + height);
  ctx.stroke();
  ctx.fillText(short(hi), 4, top + 8);
  ctx.fillText('0', 4, top + height);
  ctx.fillText('frame', LEFT + width - 30, top + height + 24);
  ctx.fillText(String(frames.length - 1), LEFT + width - 10, top + height + 12);
  series.forEach(([key, colour, name], s) => {
    ctx.strokeStyle = ctx.fillStyle = colour;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    let started = false;
    frames.forEach((f, i) => {
      const v = f[key] as number | undefined;
      if (v === undefined || !Number.isFinite(v)) return;
      if (started) ctx.lineTo(x(i), y(v));
      else ctx.moveTo(x(i), y(v));
      started = true;
    });
    ctx.stroke();
    if (frames.length <= 200) frames.forEach((f, i) => {
      const v = f[key] as number | undefined;
      if (v !== undefined && Number.isFinite(v)) ctx.fillRect(x(i) - 1.5, y(v) - 1.5, 3, 3);
    });
    ctx.fillText(name, LEFT + 8 + 60 * s, top + 10);
  });
  ctx.lineWidth = 1;
  ctx.strokeStyle = PICK_COLOUR;
  ctx.beginPath();
  ctx.moveTo(x(picked), top);
  ctx.lineTo(x(picked), top + height);
  ctx.stroke();
}

start().catch((error: unknown) => {
  hooks.error = String(error);
  console.error(error);
});
