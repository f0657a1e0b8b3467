// Registers `xhd info FILE`: what a reader makes of a file.
import { Command, Option } from 'commander';

import { FORMATS, parseColumns } from '../cli-options.js';
import type { FileFormat, Geometry } from '../io/geometry.js';
import { readGeometry } from '../io/read.js';
import { formatCoordinate, formatCount, formatMs } from '../report/format.js';
import { terminalChalk } from '../terminal.js';

interface InfoFlags {
  json: boolean;
  format?: FileFormat;
  columns?: string[];
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
    notes: g.notes,
    timings_ms: { read: readMs },
  };
}

export function registerInfo(program: Command): void {
  program
    .command('info')
    .description('format, counts, dimensions and bounds of an input file')
    .argument('<file>', 'input file')
    .option('--json', 'print one JSON object on stdout', false)
    .addOption(new Option('--format <format>', 'read as this format').choices(FORMATS))
    .option('--columns <names>', 'CSV/XYZ columns for x,y[,z]', parseColumns)
    .action((file: string, flags: InfoFlags) => {
      const started = performance.now();
      const g = readGeometry(file, { format: flags.format, columns: flags.columns });
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
      lines.push(`  read       ${formatMs(info.timings_ms.read)}`);
      for (const n of info.notes) lines.push(c.yellow(`  note       ${n}`));
      process.stdout.write(lines.join('\n') + '\n');
    });
}
