// What xhd info shows of an E57 file: its GUID, then each scan of /data3D with its index (what --scan takes),
// name, GUID, record count, coordinate kind, pose, and for the scans read their points and bounds.
import type { E57Summary } from '../../io/e57.js';
import { formatCoordinate, formatCount } from '../../report/format.js';

export function e57Json(e: E57Summary) {
  return {
    version: e.version,
    guid: e.guid ?? null,
    selected_scan: e.selected,
    scans: e.scans.map((s) => ({
      index: s.index,
      name: s.name ?? null,
      guid: s.guid ?? null,
      records: s.records,
      coordinates: s.coordinates,
      pose: s.pose ? { rotation_wxyz: s.pose.rotation, translation: s.pose.translation } : null,
      points: s.points,
      invalid: s.invalid,
      bounds: s.bounds ? { min: s.bounds.min, max: s.bounds.max } : null,
    })),
  };
}

export function e57Lines(e: E57Summary): string[] {
  const lines = [`  E57        version ${e.version} · ${formatCount(e.scans.length)} scan${e.scans.length === 1 ? '' : 's'}${e.guid ? ` · GUID ${e.guid}` : ''}`];
  for (const s of e.scans) {
    const label = [s.name ? `"${s.name}"` : '', s.guid ? `GUID ${s.guid}` : ''].filter((p) => p !== '').join(' · ');
    lines.push(`  scan ${s.index}     ${label ? `${label} · ` : ''}${formatCount(s.records)} records, ${s.coordinates}${s.pose ? '' : ', no pose'}`);
    if (s.pose) lines.push(`             pose rotation (w x y z) ${s.pose.rotation.join(' ')} · translation ${s.pose.translation.join(' ')}`);
    if (s.points === null) {
      lines.push('             not read (--scan picked another)');
    } else {
      lines.push(`             ${formatCount(s.points)} points read${s.invalid ? `, ${formatCount(s.invalid)} invalid skipped` : ''}`);
      if (s.bounds) lines.push(`             min ${s.bounds.min.map(formatCoordinate).join('  ')} · max ${s.bounds.max.map(formatCoordinate).join('  ')}`);
    }
  }
  return lines;
}
