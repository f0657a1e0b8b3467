// Registers `xhd info FILE`: what a reader makes of a file.
import { Command, Option } from 'commander';

import { FORMATS, optionParser, parseColumns, parseIntegerOption } from '../option-parsers.js';
import { crsJson, crsLabel, crsUnits } from '../../io/crs.js';
import type { FileFormat, Geometry } from '../../io/geometry.js';
import type { LidarSummary } from '../../io/las-summary.js';
import { parseBbox, parseClasses, RETURNS_FILTERS } from '../../io/point-filters.js';
import { readGeometry } from '../../io/read.js';
import { formatCoordinate, formatCount, formatMs } from '../../report/format.js';
import { e57Json, e57Lines } from './info-e57.js';
import { terminalChalk } from '../terminal.js';
import { pointFilters, type FilterFlags } from './filter-options.js';

interface InfoFlags extends FilterFlags {
  json: boolean;
  format?: FileFormat;
  columns?: string[];
}

function lidarJson(l: LidarSummary) {
  return {
    version: l.version,
    point_format: l.pointFormat,
    record_length: l.recordLength,
    compressed: l.compressed,
    points_in_file: l.pointsInFile,
    by_class: l.byClass,
    by_return: l.byReturn,
    scale: l.scale,
    offset: l.offset,
    header_bounds: { min: l.headerMin, max: l.headerMax },
    system_id: l.systemId,
    generating_software: l.software,
    laz: l.laz ? { compressor: l.laz.compressor, chunk_size: l.laz.chunkSize, chunks: l.laz.chunks, decoder: l.laz.decoder } : null,
    copc: l.copc ? { depth: l.copc.depth, nodes: l.copc.nodes, points_by_level: l.copc.pointsByLevel, nodes_read: l.copc.nodesRead, points_read: l.copc.pointsRead } : null,
  };
}

function infoJson(path: string, g: Geometry, readMs: number) {
  const dims = g.dims;
  const empty = g.count === 0;
  return {
    path,
    format: g.format,
    points: g.count,
    triangles: g.triangles ? g.triangles.length / 3 : 0,
    dims,
    bounds: empty ? null : { min: g.bounds.min.slice(0, dims), max: g.bounds.max.slice(0, dims) },
    crs: crsJson(g.crs),
    ...(g.lidar ? { las: lidarJson(g.lidar) } : {}),
    ...(g.e57 ? { e57: e57Json(g.e57) } : {}),
    notes: g.notes,
    timings_ms: { read: readMs },
  };
}

/** "2 ground 276 · 1 unclassified 789": counts by code, with the names LAS gives the standard classes. */
const CLASS_NAMES: Record<string, string> = {
  0: 'never classified', 1: 'unclassified', 2: 'ground', 3: 'low vegetation', 4: 'medium vegetation', 5: 'high vegetation', 6: 'building',
  7: 'low point (noise)', 8: 'model key point', 9: 'water', 10: 'rail', 11: 'road surface', 12: 'overlap', 13: 'wire guard', 14: 'wire conductor',
  15: 'transmission tower', 16: 'wire connector', 17: 'bridge deck', 18: 'high noise',
};

function lidarLines(l: LidarSummary): string[] {
  const triple = (v: number[]) => v.map((x) => String(x)).join('  ');
  const classes = Object.entries(l.byClass).map(([code, n]) => `${code} ${CLASS_NAMES[code] ?? ''}`.trim() + ` ${formatCount(n)}`);
  const returns = Object.entries(l.byReturn).map(([r, n]) => `${r}: ${formatCount(n)}`);
  const lines = [
    `  LAS        version ${l.version} · point format ${l.pointFormat} · ${l.recordLength}-byte records · ${formatCount(l.pointsInFile)} points in the file`,
    `  by class   ${classes.length > 0 ? classes.join(' · ') : '(no points)'}`,
    `  by return  ${returns.length > 0 ? returns.join(' · ') : '(no points)'}`,
    `  scale      ${triple(l.scale)}`,
    `  offset     ${triple(l.offset)}`,
  ];
  if (l.laz) lines.push(`  LAZ        ${l.laz.compressor} · ${l.laz.chunks} chunk${l.laz.chunks === 1 ? '' : 's'}${l.laz.chunkSize === null ? ' of varying size' : ` of ${formatCount(l.laz.chunkSize)} points`} · decoded by ${l.laz.decoder}`);
  if (l.copc) {
    const c = l.copc;
    lines.push(`  COPC       octree of depth ${c.depth} · ${formatCount(c.nodes)} node${c.nodes === 1 ? '' : 's'}${c.nodesRead < c.nodes ? ` (${formatCount(c.nodesRead)} read for --bbox)` : ''}`);
    lines.push(`  by level   ${c.pointsByLevel.map((n, level) => `${level}: ${formatCount(n)}`).join(' · ')}`);
  }
  if (l.software || l.systemId) lines.push(`  software   ${[l.software, l.systemId].filter((s) => s !== '').join(' · ')}`);
  return lines;
}

export function registerInfo(program: Command): void {
  program
    .command('info')
    .description('format, counts, dimensions and bounds of an input file (LAS/LAZ: version, point format, classes, returns, CRS; E57: its scans)')
    .argument('<file>', 'input file')
    .option('--json', 'print one JSON object on stdout', false)
    .addOption(new Option('--format <format>', 'read as this format').choices(FORMATS))
    .option('--columns <names>', 'CSV/XYZ columns for x,y[,z]', parseColumns)
    .option('--classes <codes>', 'LAS/LAZ: count only the points of these classification codes, e.g. 2,6', optionParser(parseClasses))
    .addOption(new Option('--returns <which>', 'LAS/LAZ: first, last or all returns').choices(RETURNS_FILTERS))
    .option('--bbox <box>', 'only the points inside xmin,ymin[,zmin],xmax,ymax[,zmax]', optionParser(parseBbox))
    .option('--every <n>', 'only every Nth point', parseIntegerOption(1))
    .option('--scan <n>', 'E57: read only scan n (numbered from 0)', parseIntegerOption(0))
    .action((file: string, flags: InfoFlags) => {
      const started = performance.now();
      const g = readGeometry(file, { format: flags.format, columns: flags.columns, filters: pointFilters(flags) });
      const info = infoJson(file, g, performance.now() - started);
      if (flags.json) {
        process.stdout.write(JSON.stringify(info, null, 2) + '\n');
        return;
      }
      const c = terminalChalk(process.stdout);
      const lines = [
        c.bold(file),
        `  format     ${info.format.toUpperCase()}`,
        `  points     ${formatCount(info.points)}${info.triangles > 0 ? ' (mesh vertices)' : ''}`,
        `  triangles  ${formatCount(info.triangles)}`,
        `  dims       ${info.dims}D`,
      ];
      if (info.bounds) {
        lines.push(`  min        ${info.bounds.min.map(formatCoordinate).join('  ')}`);
        lines.push(`  max        ${info.bounds.max.map(formatCoordinate).join('  ')}`);
      }
      if (g.lidar) lines.push(...lidarLines(g.lidar));
      if (g.e57) lines.push(...e57Lines(g.e57));
      if (g.crs) {
        const units = crsUnits(g.crs);
        lines.push(`  CRS        ${crsLabel(g.crs)}${units ? ` · units ${units}` : ''} · from ${g.crs.source}`);
      }
      lines.push(`  read       ${formatMs(info.timings_ms.read)}`);
      for (const n of info.notes) lines.push(c.yellow(`  note       ${n}`));
      process.stdout.write(lines.join('\n') + '\n');
    });
}
