// The numbers beside the picture: the JSON report flattened into a table, and how the run was made.
import type { CompareReportData } from './report-data.js';
import { count, element, short } from './format.js';

/** Each leaf of the JSON report as a row `a.b.c  value` (arrays and nulls printed as JSON). */
export function flatten(value: unknown, prefix = '', rows: [string, string][] = []): [string, string][] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, rows);
  } else {
    rows.push([prefix, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  return rows;
}

export function fillNumbers(table: HTMLTableElement, data: CompareReportData): void {
  const skip = new Set(['notes']);
  for (const [key, value] of flatten(data.json)) {
    if (skip.has(key.split('.')[0])) continue;
    const row = table.insertRow();
    row.insertCell().textContent = key;
    row.insertCell().textContent = value;
  }
}

export function fillRun(list: HTMLElement, data: CompareReportData): void {
  const json = data.json as Record<string, any>;
  const items: [string, string][] = [
    ['command', data.command.join(' ') || '(not recorded)'],
    ['A', `${json.a.path} (${json.a.format}, ${count(json.a.points)} points${json.a.triangles ? `, ${count(json.a.triangles)} triangles` : ''})`],
    ['B', `${json.b.path} (${json.b.format}, ${count(json.b.points)} points${json.b.triangles ? `, ${count(json.b.triangles)} triangles` : ''})`],
    ['mode', `${json.mode}${json.directed ? ', directed' : ''}, method ${json.method}`],
    ['backend', `${json.backend}${json.device ? ` (${json.device.name})` : ''}, ${json.threads} thread${json.threads === 1 ? '' : 's'}`],
    ['timings', Object.entries(json.timings_ms as Record<string, number>).map(([k, v]) => `${k} ${short(v)} ms`).join(', ')],
    ['xhd', `${data.version}, report generated ${data.generated}`],
  ];
  for (const [k, v] of items) {
    list.append(element('dt', k), element('dd', v));
  }
  for (const note of [...(json.notes as string[]), ...data.notes]) list.append(element('dt', 'note'), element('dd', note));
}
