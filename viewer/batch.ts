// The batch report's page: a table of every pair, sortable by any column, and the distribution over the
// pairs of a chosen metric. window.__xhd.ready tells the browser tests it is drawn.
import type { BatchReportData, BatchRow } from './report-data.js';
import { count, element, short } from './format.js';
import { prepareCanvas } from './canvas.js';


interface Column {
  key: keyof BatchRow;
  title: string;
  numeric: boolean;
}

const COLUMNS: Column[] = [
  { key: 'line', title: 'line', numeric: true },
  { key: 'status', title: 'status', numeric: false },
  { key: 'a', title: 'A', numeric: false },
  { key: 'b', title: 'B', numeric: false },
  { key: 'hd', title: 'HD', numeric: true },
  { key: 'hd95', title: 'HD95', numeric: true },
  { key: 'assd', title: 'ASSD', numeric: true },
  { key: 'metric', title: 'checked', numeric: false },
  { key: 'limit', title: 'limit', numeric: true },
  { key: 'totalMs', title: 'ms', numeric: true },
  { key: 'error', title: 'error', numeric: false },
  { key: 'report', title: 'report', numeric: false },
];

const STATUS_COLOURS: Record<string, string> = { passed: '#7fd18b', exceeded: '#ff6b81', error: '#ffb74d', unchecked: '#98a0b0' };

const hooks: { ready: boolean; error?: string } = { ready: false };
(window as unknown as { __xhd: typeof hooks }).__xhd = hooks;
const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function start(): void {
  const data = JSON.parse(byId('xhd-data').textContent!) as BatchReportData;
  // Columns no pair has a value in (HD95 without --percentile, errors in a clean run) are left out.
  const columns = COLUMNS.filter((c) => c.key === 'line' || data.rows.some((r) => r[c.key] !== null && r[c.key] !== ''));
  const s = data.summary as Record<string, number>;
  byId('summary').textContent = `${count(s.pairs)} pairs: ${s.passed} passed, ${s.exceeded} exceeded, ${s.unchecked} unchecked, ${s.errors} errors`;

  const head = byId<HTMLTableElement>('pairs').tHead!;
  const body = byId<HTMLTableElement>('pairs').tBodies[0];
  const headRow = head.insertRow();
  let sortKey: keyof BatchRow = 'line', ascending = true;
  const render = () => {
    const rows = [...data.rows].sort((x, y) => compareValues(x[sortKey], y[sortKey]) * (ascending ? 1 : -1) || x.line - y.line);
    body.replaceChildren();
    for (const r of rows) {
      const tr = body.insertRow();
      for (const c of columns) {
        const v = r[c.key];
        const cell = tr.insertCell();
        if (c.key === 'report' && typeof v === 'string') {
          // The pair's own page (--report-dir), opened in place of this one.
          const link = element('a', 'open');
          link.href = v;
          cell.append(link);
          continue;
        }
        cell.textContent = v === null ? '' : typeof v === 'number' && c.key !== 'line' ? short(v) : String(v);
        if (c.key === 'status') cell.style.color = STATUS_COLOURS[r.status] ?? '';
      }
    }
    headRow.querySelectorAll('th').forEach((th, k) => (th.dataset.sorted = columns[k].key === sortKey ? (ascending ? 'ascending' : 'descending') : ''));
  };
  for (const c of columns) {
    const th = element('th', c.title);
    th.style.cursor = 'pointer';
    th.style.textAlign = 'left';
    th.dataset.key = c.key;
    th.addEventListener('click', () => {
      ascending = sortKey === c.key ? !ascending : true;
      sortKey = c.key;
      render();
    });
    headRow.append(th);
  }
  render();

  const select = byId<HTMLSelectElement>('metric');
  for (const c of columns.filter((c) => c.numeric && c.key !== 'line' && c.key !== 'limit')) select.append(new Option(c.title, c.key));
  const draw = () => drawDistribution(byId<HTMLCanvasElement>('distribution'), data.rows.map((r) => r[select.value as keyof BatchRow]).filter((v): v is number => typeof v === 'number'));
  select.addEventListener('change', draw);
  new ResizeObserver(draw).observe(byId('distribution'));

  const list = byId('run-list');
  const items: [string, string][] = [['command', data.command.join(' ') || '(not recorded)'], ['xhd', `${data.version}, report generated ${data.generated}`],
    ...Object.entries(data.summary).map(([k, v]) => [k, String(v)] as [string, string])];
  for (const [k, v] of items) list.append(element('dt', k), element('dd', v));
  hooks.ready = true;
}

/** Numbers by value, text alphabetically; empty cells last in either direction of the sort's first pass. */
function compareValues(x: unknown, y: unknown): number {
  if (x === null || x === undefined) return y === null || y === undefined ? 0 : 1;
  if (y === null || y === undefined) return -1;
  if (typeof x === 'number' && typeof y === 'number') return x - y;
  return String(x).localeCompare(String(y));
}

/** A histogram of the values in 20 bins over [min, max], each bar labelled with its count. */
function drawDistribution(canvas: HTMLCanvasElement, values: number[]): void {
  const { ctx, w, h } = prepareCanvas(canvas);
  ctx.fillStyle = '#aab';
  if (values.length === 0) {
    ctx.fillText('no pair has this value', 10, 20);
    return;
  }
  // A loop, not Math.min(...values): spreading one argument a pair overflows the stack past about 10^5 pairs.
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  const bins = 20, counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[hi > lo ? Math.min(bins - 1, Math.floor(((v - lo) / (hi - lo)) * bins)) : 0]++;
  const most = Math.max(...counts);
  const left = 40, top = 14, width = w - 56, height = h - 50;
  counts.forEach((c, i) => {
    const bh = (c / most) * height;
    ctx.fillStyle = '#4fc3f7aa';
    ctx.fillRect(left + (i / bins) * width, top + height - bh, width / bins - 2, bh);
    if (c > 0) {
      ctx.fillStyle = '#dde1ea';
      ctx.fillText(String(c), left + (i / bins) * width + 2, top + height - bh - 3);
    }
  });
  ctx.fillStyle = '#aab';
  ctx.fillText(short(lo), left, top + height + 14);
  ctx.fillText(short(hi), left + width - 30, top + height + 14);
  ctx.fillText(`${values.length} pairs`, left + width / 2 - 20, top + height + 28);
}

try {
  start();
} catch (error) {
  hooks.error = String(error);
  console.error(error);
}
