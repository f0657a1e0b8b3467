// bench-robust's streamed rows: the points compare streamed from binary PLY files under --memory-limit (CPU), with
// and without far points, where a far outlier or cluster once sent whole directions query by query.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { formatMs } from './report.js';
import { ROOT } from './root.js';

/** A binary little-endian PLY point cloud of doubles. */
function writeDoublePly(path: string, xyz: Float64Array): void {
  const n = xyz.length / 3;
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${n}\nproperty double x\nproperty double y\nproperty double z\nend_header\n`;
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header, null, 'latin1');
    writeSync(fd, new Uint8Array(xyz.buffer, xyz.byteOffset, xyz.byteLength));
  } finally {
    closeSync(fd);
  }
}

interface StreamedRun {
  ms: number;
  hd: number;
  slabs: number;
  slowSlabs: number;
}

/** `xhd compare a b --backend cpu --memory-limit limit --json`, best of three by wall time. */
function bestStreamed(a: string, b: string, limit: string, threads: number): StreamedRun | { failed: string } {
  let kept: StreamedRun | null = null;
  for (let run = 0; run < 3; run++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'xhd'), 'compare', a, b, '--backend', 'cpu', '--threads', String(threads),
      '--memory-limit', limit, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const ms = performance.now() - t0;
    if (r.status !== 0) return { failed: (r.stderr || 'failed').trim().split('\n').pop()! };
    const j = JSON.parse(r.stdout);
    if (!j.streamed) return { failed: `not streamed within --memory-limit ${limit}` };
    if (!kept || ms < kept.ms) kept = { ms, hd: j.hd, slabs: j.streamed.slabs, slowSlabs: j.streamed.slow_slabs };
  }
  return kept!;
}

/** The section's lines: each of A's variants (the first the plain one) against b, streamed within about 60 bytes a
 *  point of b (some eight slabs, each proven by its halo on the plain pair). */
export function streamedRows(variants: Array<[string, Float64Array]>, b: Float64Array, threads: number,
  log: (line: string) => void): string[] {
  const n = b.length / 3;
  const limit = `${Math.max(1, Math.round((60 * n) / 2 ** 20))}M`;
  const lines = ['', `## Points streamed from binary double PLY files (\`xhd compare --backend cpu --memory-limit ${limit}\`), ` +
    'the same sets as above; wall ms of the process, best of 3', '',
    '| case | HD | wall ms | slabs | slabs searched query by query | vs without |', '| --- | --- | --- | --- | --- | --- |'];
  const dir = mkdtempSync(join(tmpdir(), 'xhd-robust-streamed-'));
  try {
    const bPath = join(dir, 'b.ply');
    writeDoublePly(bPath, b);
    let plainMs = 0;
    variants.forEach(([label, a], i) => {
      const aPath = join(dir, `a${i}.ply`);
      writeDoublePly(aPath, a);
      const r = bestStreamed(aPath, bPath, limit, threads);
      if ('failed' in r) {
        lines.push(`| ${label} | (failed: ${r.failed}) | | | | |`);
        return;
      }
      if (i === 0) plainMs = r.ms;
      lines.push(`| ${label} | ${r.hd.toPrecision(10)} | ${formatMs(r.ms)} | ${r.slabs} | ${r.slowSlabs} | ${i === 0 ? '' : `${(r.ms / plainMs).toFixed(2)}x`} |`);
      log(`streamed ${label}: ${r.ms.toFixed(0)} ms, ${r.slowSlabs} of ${r.slabs} slabs slow`);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}
