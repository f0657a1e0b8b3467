// The cost of `xhd distance A B --frames poses` beyond the distances themselves: the CLI run as a user runs
// it (a child process), on two unit cubes and N poses of B, timed from outside; the run's own JSON gives the
// read, build and summed native query times. Overhead per frame = (wall − read − build − query) / frames,
// where wall is the child's whole life (Node starting, the poses parsed, the report rendered and printed).
// A run of one frame is timed beside it, so the fixed part of that overhead can be told from the per-frame part.
// `--xhd DIR` times another build of xhd (e.g. an older commit built elsewhere) with the same poses.
// See `scripts/bench-frames --help`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { positiveInteger } from './bench/settings.js';
import { ROOT } from './bench/root.js';

const HELP = `Usage: scripts/bench-frames [options]
  --frames N     poses of B (default 20000)
  --runs N       runs of each size; the fastest wall time is reported (default 3)
  --threads N    passed to xhd as --threads (default: xhd's own, every core)
  --text         time the text report instead of --json (its timings read off its "time" line)
  --xhd DIR      the xhd to time: a built checkout (default: this one)`;

interface Timings {
  read: number;
  build: number;
  query: number;
  total: number;
}

interface Run {
  wallMs: number;
  timings: Timings;
}

/** N poses of B circling A (7 numbers a line): turning about z as it goes, some frames near, none the same. */
function posesText(frames: number): string {
  const lines = ['tx ty tz qw qx qy qz'];
  for (let k = 0; k < frames; k++) {
    const theta = (2 * Math.PI * k) / frames;
    const t = [1.5 + 1.2 * Math.cos(theta), 1.2 * Math.sin(theta), 0.3 * Math.sin(3 * theta)];
    lines.push([...t, Math.cos(theta / 2), 0, 0, Math.sin(theta / 2)].map((v) => v.toPrecision(17)).join(' '));
  }
  return lines.join('\n') + '\n';
}

/** "read 1.23 ms · build …": the text report's time line, in ms. */
function textTimings(stdout: string): Timings {
  const line = stdout.split('\n').find((l) => l.trimStart().startsWith('time '));
  const value = (name: string) => {
    const m = new RegExp(`${name} ([\\d,.]+) (ms|s)`).exec(line ?? '');
    if (!m) throw new Error(`no ${name} time in the report:\n${stdout.slice(-2000)}`);
    const v = Number(m[1].replace(/,/g, ''));
    return m[2] === 's' ? v * 1000 : v;
  };
  return { read: value('read'), build: value('build'), query: value('query'), total: value('total') };
}

function runOnce(xhd: string, args: string[], text: boolean): Run {
  const started = performance.now();
  const r = spawnSync(process.execPath, [join(xhd, 'bin', 'xhd'), 'distance', ...args, '--quiet', ...(text ? [] : ['--json'])], {
    encoding: 'utf8', maxBuffer: 1 << 30, env: { ...process.env, NO_COLOR: '1' },
  });
  const wallMs = performance.now() - started;
  if (r.status !== 0) throw new Error(`xhd exited with ${r.status}: ${r.stderr}`);
  const timings = text ? textTimings(r.stdout) : (JSON.parse(r.stdout).timings_ms as Timings);
  return { wallMs, timings };
}

function fastest(xhd: string, args: string[], text: boolean, runs: number): Run {
  let best: Run | null = null;
  for (let i = 0; i < runs; i++) {
    const run = runOnce(xhd, args, text);
    if (best === null || run.wallMs < best.wallMs) best = run;
  }
  return best!;
}

const ms = (v: number) => v.toFixed(1);

function main(): void {
  const { values } = parseArgs({
    options: {
      frames: { type: 'string', default: '20000' },
      runs: { type: 'string', default: '3' },
      threads: { type: 'string' },
      text: { type: 'boolean', default: false },
      xhd: { type: 'string', default: ROOT },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const frames = positiveInteger(values.frames!, 'frames');
  const runs = positiveInteger(values.runs!, 'runs');
  const xhd = values.xhd!;
  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-frames-'));
  try {
    const cube = join(ROOT, 'fixtures', 'cube.off');
    const many = join(dir, 'poses.txt'), one = join(dir, 'one.txt');
    writeFileSync(many, posesText(frames));
    writeFileSync(one, posesText(1));
    const threads = values.threads !== undefined ? ['--threads', values.threads] : [];
    const rows: string[] = [];
    const overhead: number[] = [];
    for (const [n, poses] of [[1, one], [frames, many]] as const) {
      const { wallMs, timings: t } = fastest(xhd, [cube, cube, '--frames', poses, ...threads], values.text!, runs);
      const outside = wallMs - t.read - t.build - t.query, inside = t.total - t.read - t.build - t.query;
      overhead.push(outside);
      rows.push(`| ${n} | ${ms(wallMs)} | ${ms(t.total)} | ${ms(t.read)} | ${ms(t.build)} | ${ms(t.query)} | ` +
        `${((t.query / n) * 1000).toFixed(1)} | ${ms(outside)} | ${((outside / n) * 1000).toFixed(1)} | ${((inside / n) * 1000).toFixed(1)} |`);
    }
    const marginalUs = ((overhead[1] - overhead[0]) / (frames - 1)) * 1000;
    console.log([
      `xhd: ${xhd}; ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; ${values.text ? 'text' : '--json'} report, fastest of ${runs} runs; ${new Date().toISOString()}`,
      '',
      'overhead = wall − read − build − query (summed over the frames); inside: the same with xhd\'s own total (Node\'s start and the printing left out)',
      '',
      '| frames | wall ms | xhd total ms | read ms | build ms | query ms | query µs/frame | overhead ms | overhead µs/frame | inside µs/frame |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...rows,
      '',
      `overhead per added frame (the ${frames}-frame run's less the 1-frame run's, over ${frames - 1} frames): ${marginalUs.toFixed(1)} µs`,
    ].join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
