// The human-readable report of `xhd distance`: the distances and their pairs first (with --frames, a line per
// frame and a summary), then what was measured and what it cost. Notes go to stderr (see commands/distance.ts)
// so that the frame lines stay easy to cut.
import type { ChalkInstance } from 'chalk';

import type { InputSummary } from '../jobs/compare.js';
import type { DistanceResult } from '../jobs/distance.js';
import type { FrameOutcome } from '../jobs/frame-summary.js';
import type { DistanceContacts, DistancePair, DistancePenetration, Pose } from '../ops/mesh-distance.js';
import { isIdentityPose } from '../core/pose.js';
import { countOf, formatCount, formatDistance, formatMs, formatPoint, formatSignificant } from './format.js';

function element(s: InputSummary): string {
  return s.source === 'points' ? 'point' : 'triangle';
}

function pairText(p: DistancePair, r: DistanceResult): string {
  return `A ${element(r.a)} ${p.triangleA} ${formatPoint(p.pointA)} ↔ B ${element(r.b)} ${p.triangleB} ${formatPoint(p.pointB)}`;
}

function distanceLine(label: string, p: DistancePair, r: DistanceResult, c: ChalkInstance, frame?: number): string {
  const tags = [frame !== undefined ? `frame ${frame}` : '', p.intersecting ? 'intersecting' : ''].filter(Boolean).join(', ');
  const value = formatDistance(p.distance) + (tags ? ` (${tags})` : '');
  return `${c.bold(label.padEnd(24))} ${c.bold.cyan(value.padEnd(Math.max(16, value.length + 1)))} ${c.dim(pairText(p, r))}`;
}

function contactsLine(k: DistanceContacts, c: ChalkInstance): string {
  const what = k.bounds
    ? `${countOf(k.pairs, 'intersecting triangle pair')}, all within ${formatPoint(k.bounds.min)} – ${formatPoint(k.bounds.max)}`
    : 'no intersecting triangle pair';
  return `${c.bold('Contacts'.padEnd(24))} ${what}`;
}

function penetrationLine(p: DistancePenetration, c: ChalkInstance): string {
  const open = [p.closed.a ? '' : 'A', p.closed.b ? '' : 'B'].filter(Boolean).join(' and ');
  const move = p.direction ? `; B moved ${formatDistance(p.upper!)} along ${formatPoint(p.direction)} parts them` : '';
  let what: string;
  if (p.solids === 'open') {
    what = `not measured: ${open || 'a mesh'} ${open.includes('and') ? 'are' : 'is'} not a closed solid (every edge shared by two triangles, enclosing a volume)`;
  } else if (p.solids === 'apart') {
    what = 'none: the solids do not overlap';
  } else if (p.solids === 'overlap') {
    what = (p.convex ? `depth ${formatDistance(p.upper!)} (convex solids: between ${formatDistance(p.lower!)} and ${formatDistance(p.upper!)})`
      : `depth between ${formatDistance(p.lower!)} and ${formatDistance(p.upper!)}`) + move;
  } else {
    what = `depth at most ${formatDistance(p.upper!)}, overlap not proven (the surfaces touch, or no point inside both was found)${move}`;
  }
  return `${c.bold('Penetration'.padEnd(24))} ${what}`;
}

function inputLine(label: string, s: InputSummary): string {
  const what = s.source === 'points' ? `${countOf(s.points, 'point')} (point cloud)` : `${countOf(s.points, 'vertex', 'vertices')}  ${countOf(s.triangles, 'triangle')}`;
  return `  ${label}  ${s.path}  ${s.format.toUpperCase()}  ${what}  ${s.dims}D`;
}

function poseLine(pose: Pose): string {
  const rows = [0, 4, 8].map((i) => Array.from(pose.subarray(i, i + 4), (v) => formatSignificant(v, 10)).join(' '));
  return `  pose B [M | t]  ${rows.join('; ')}`;
}

function frameTable(frames: FrameOutcome[], r: DistanceResult): string[] {
  const header = ['frame'.padStart(7), 'line'.padStart(6)];
  if (r.which.min) header.push('min distance'.padEnd(16));
  if (r.which.max) header.push('max distance'.padEnd(16));
  header.push('query');
  const lines = [header.join('  ')];
  for (const f of frames) {
    const cells = [String(f.frame).padStart(7), String(f.line).padStart(6)];
    if (f.min) cells.push((formatDistance(f.min.distance) + (f.min.intersecting ? '*' : '')).padEnd(16));
    if (f.max) cells.push(formatDistance(f.max.distance).padEnd(16));
    cells.push(formatMs(f.queryMs));
    lines.push(cells.join('  '));
  }
  if (frames.some((f) => f.min?.intersecting)) lines.push('  * the meshes intersect in this frame');
  return lines;
}

export function renderDistanceText(r: DistanceResult, c: ChalkInstance): string {
  const lines: string[] = [];
  const s = r.summary;
  if (r.frames && s) {
    lines.push(...frameTable(r.frames, r), '');
    const q = s.queryMs;
    lines.push(`${c.bold(`${formatCount(s.frames)} frame${s.frames === 1 ? '' : 's'}`)}   query mean ${formatMs(q.mean)} · p50 ${formatMs(q.p50)} · p95 ${formatMs(q.p95)} · max ${formatMs(q.max)}`);
  }
  if (r.min) lines.push(distanceLine('Minimum distance', r.min, r, c, s?.min?.frame));
  if (r.contacts) lines.push(contactsLine(r.contacts, c));
  if (r.penetration) lines.push(penetrationLine(r.penetration, c));
  if (r.max) lines.push(distanceLine('Maximum distance', r.max, r, c, s?.max?.frame));
  lines.push('', inputLine('A', r.a), inputLine('B', r.b));
  if (r.pose && !isIdentityPose(r.pose)) lines.push(poseLine(r.pose));
  if (r.frames) lines.push(`  poses  ${r.framesPath}, one context for all frames`);
  const t = r.timingsMs;
  const query = `query ${formatMs(t.query)}${r.frames ? ' (all frames)' : ''}`;
  if (r.device) {
    lines.push(`  method ${r.method} · backend ${r.backend} · GPU ${r.device.ordinal} ${r.device.name}`);
    lines.push(`  time   read ${formatMs(t.read)} · build ${formatMs(t.build)} · upload ${formatMs(t.upload)} · ${query} · download ${formatMs(t.download)} · total ${formatMs(t.total)}`);
  } else {
    lines.push(`  method ${r.method} · backend ${r.backend} · ${r.threads} thread${r.threads === 1 ? '' : 's'}`);
    lines.push(`  time   read ${formatMs(t.read)} · build ${formatMs(t.build)} · ${query} · total ${formatMs(t.total)}`);
  }
  return lines.join('\n') + '\n';
}

/** The notes, one line each, for stderr. */
export function renderDistanceNotes(r: DistanceResult, c: ChalkInstance): string {
  return r.notes.map((n) => c.yellow(`xhd: note: ${n}`) + '\n').join('');
}
