// The rows of `xhd join` as CSV (a header, then one line a pair) or JSON Lines, written as they come, and its
// summary for stderr. Numbers are JavaScript's shortest round-trip form: every distance and coordinate reads
// back as the double the library computed.
import type { JoinRow, JoinSummary } from '../jobs/join.js';
import { formatCount } from '../core/counts.js';

export type JoinOutputFormat = 'csv' | 'json';

/** A CSV field, quoted when it holds a comma, a quote or a line break. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function joinCsvHeader(intersects: boolean): string {
  return intersects ? 'a_id,b_id,a_triangle,b_triangle,x,y,z\n' : 'a_id,b_id,distance,a_triangle,b_triangle,a_x,a_y,a_z,b_x,b_y,b_z\n';
}

/** The rows as lines of the chosen format (intersects: the pair's first intersecting triangles and their common point). */
export function renderJoinRows(rows: JoinRow[], format: JoinOutputFormat, intersects: boolean): string {
  const out: string[] = [];
  for (const r of rows) {
    if (format === 'csv') {
      const ids = `${csvField(r.aId)},${csvField(r.bId)}`;
      out.push(intersects
        ? `${ids},${r.aTriangle},${r.bTriangle},${r.aPoint.join(',')}\n`
        : `${ids},${r.distance},${r.aTriangle},${r.bTriangle},${r.aPoint.join(',')},${r.bPoint.join(',')}\n`);
    } else {
      out.push(JSON.stringify(intersects
        ? { a_id: r.aId, b_id: r.bId, a_triangle: r.aTriangle, b_triangle: r.bTriangle, point: r.aPoint }
        : { a_id: r.aId, b_id: r.bId, distance: r.distance, a_point: r.aPoint, b_point: r.bPoint, a_triangle: r.aTriangle, b_triangle: r.bTriangle }) + '\n');
    }
  }
  return out.join('');
}

function describePredicate(s: JoinSummary): string {
  const p = s.predicate;
  return p.kind === 'intersects' ? 'intersecting' : p.kind === 'within' ? `within ${p.distance}` : `${p.k} nearest`;
}

function ms(x: number): string {
  return x >= 100 ? `${x.toFixed(0)} ms` : `${x.toPrecision(3)} ms`;
}

/** The summary: what was joined, how much work each stage left, where and how long. */
export function renderJoinSummary(s: JoinSummary): string {
  const side = (name: string, c: JoinSummary['a']) => `  ${name}  ${c.path}  ${c.kind}  ${formatCount(c.objects)} objects  ${formatCount(c.triangles)} triangles\n`;
  const t = s.timingsMs;
  return `${formatCount(s.pairs)} pair${s.pairs === 1 ? '' : 's'} ${describePredicate(s)}${s.selfJoin ? ' (self-join)' : ''}\n` +
    side('A', s.a) + (s.selfJoin ? '' : side('B', s.b)) +
    `  work   ${formatCount(s.objectPairs)} object pairs past the box filter · ${formatCount(s.groupPairs)} facet-group pairs · ${formatCount(s.trianglePairs)} exact triangle pairs\n` +
    `  method ${s.method} · backend ${s.backend}${s.device ? ` (${s.device.name})` : ''} · ${s.threads} thread${s.threads === 1 ? '' : 's'}\n` +
    `  time   read ${ms(t.read)} · build ${ms(t.build)} · filter ${ms(t.filter)} · refine ${ms(t.refine)} · total ${ms(t.total)}\n`;
}
