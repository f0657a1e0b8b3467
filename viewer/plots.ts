// The distance plots, drawn on 2D canvases: a histogram (linear or log counts) and the cumulative
// distribution of each direction, with HD, HD95 and the mean marked.
import type { DirectionData } from './report-data.js';
import { short } from './format.js';
import { prepareCanvas } from './canvas.js';

const BARS = 64;
export const DIRECTION_COLOURS = ['#4fc3f7', '#ffb74d'];
const MARKS: ['max' | 'p95' | 'mean', string][] = [['max', 'HD'], ['p95', 'HD95'], ['mean', 'mean']];

interface Frame {
  ctx: CanvasRenderingContext2D;
  left: number;
  top: number;
  width: number;
  height: number;
}

function frame(canvas: HTMLCanvasElement): Frame {
  const { ctx, w, h } = prepareCanvas(canvas);
  return { ctx, left: 48, top: 10, width: w - 60, height: h - 38 };
}

function axes(f: Frame, maxX: number, yLabel: string, yTop: string): void {
  const { ctx, left, top, width, height } = f;
  ctx.strokeStyle = '#667';
  ctx.fillStyle = '#aab';
  ctx.beginPath();
  ctx.moveTo(left, top);
  ctx.lineTo(left, top + height);
  ctx.lineTo(left + width, top + height);
  ctx.stroke();
  for (let k = 0; k <= 4; k++) {
    const x = left + (k / 4) * width;
    ctx.fillText(short((k / 4) * maxX), x - 12, top + height + 14);
  }
  ctx.fillText('distance', left + width - 44, top + height + 28);
  ctx.fillText(yTop, 4, top + 8);
  ctx.fillText(yLabel, 4, top + height);
}

function markers(f: Frame, directions: DirectionData[], maxX: number): void {
  const { ctx, left, top, width, height } = f;
  directions.forEach((d, k) => {
    ctx.strokeStyle = ctx.fillStyle = DIRECTION_COLOURS[k];
    MARKS.forEach(([key, name], m) => {
      const v = d.summary[key];
      const x = left + (maxX > 0 ? v / maxX : 0) * width;
      ctx.setLineDash(m === 0 ? [] : m === 1 ? [5, 3] : [2, 3]);
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, top + height);
      ctx.stroke();
      ctx.fillText(`${name} ${d.key === 'ab' ? 'A→B' : 'B→A'}`, Math.min(x + 3, left + width - 60), top + 12 + 13 * (3 * k + m));
    });
    ctx.setLineDash([]);
  });
}

/** The largest distance over the directions: the plots share one x axis. */
function xExtent(directions: DirectionData[]): number {
  return Math.max(0, ...directions.map((d) => d.summary.max));
}

/** Fine bins regrouped onto the shared axis: BARS bars over [0, maxX]. */
function bars(d: DirectionData, maxX: number): number[] {
  const out = new Array<number>(BARS).fill(0);
  const fine = d.summary.bins.length;
  d.summary.bins.forEach((c, i) => {
    const centre = ((i + 0.5) / fine) * d.summary.max;
    out[Math.min(BARS - 1, maxX > 0 ? Math.floor((centre / maxX) * BARS) : 0)] += c;
  });
  return out;
}

export function drawHistogram(canvas: HTMLCanvasElement, directions: DirectionData[], log: boolean): void {
  const f = frame(canvas);
  const maxX = xExtent(directions);
  const all = directions.map((d) => bars(d, maxX));
  const y = (c: number) => (log ? Math.log10(1 + c) : c);
  const top = Math.max(1, ...all.flat().map(y));
  axes(f, maxX, '0', log ? `10^${top.toFixed(1)}` : short(top));
  all.forEach((counts, k) => {
    f.ctx.fillStyle = DIRECTION_COLOURS[k] + '99';
    counts.forEach((c, i) => {
      const h = (y(c) / top) * f.height;
      f.ctx.fillRect(f.left + (i / BARS) * f.width, f.top + f.height - h, f.width / BARS - 1, h);
    });
  });
  markers(f, directions, maxX);
}

export function drawCdf(canvas: HTMLCanvasElement, directions: DirectionData[]): void {
  const f = frame(canvas);
  const maxX = xExtent(directions);
  axes(f, maxX, '0', '1');
  directions.forEach((d, k) => {
    const { bins, max, count } = d.summary;
    f.ctx.strokeStyle = DIRECTION_COLOURS[k];
    f.ctx.lineWidth = 2;
    f.ctx.beginPath();
    f.ctx.moveTo(f.left, f.top + f.height);
    let sum = 0;
    bins.forEach((c, i) => {
      sum += c;
      const x = f.left + (maxX > 0 ? (((i + 1) / bins.length) * max) / maxX : 1) * f.width;
      f.ctx.lineTo(x, f.top + f.height * (1 - sum / Math.max(1, count)));
    });
    f.ctx.stroke();
    f.ctx.lineWidth = 1;
  });
  markers(f, directions, maxX);
}
