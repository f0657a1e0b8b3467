// `xhd distance --frames` now runs its frames in batches through one native call each: its reports must be
// what the one-call-per-frame loop printed. The expected reports in fixtures/ were printed by that loop (main at
// a2fb8e9, one thread, so the work counts are repeatable), with what varies from run to run taken out: the
// times, and the version. Also: Ctrl-C during the frames ends the run with exit 130 and nothing on stdout.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { scratchDir } from './cli-run.js';
import { fixture, fixturesDir, xhdBin } from './helpers.js';

/** Runs xhd in fixtures/, so that the reports name the files as the expected ones do. */
function runInFixtures(args: string[]) {
  const r = spawnSync(process.execPath, [xhdBin, ...args], { cwd: fixturesDir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '', 'no notes for two cubes');
  return r.stdout;
}

// The expected reports were recorded on the CPU backend (its work counts and method line); on a GPU machine
// the default backend would be cuda.
const ARGS = ['distance', 'cube.off', 'cube.off', '--both', '--frames', 'cube-frames.txt', '--threads', '1', '--backend', 'cpu'];

/** Every time in a text report, whatever its unit ("0.09 ms", "1.2 s"), as <time>. */
function withoutTimes(text: string): string {
  return text.replace(/\d[\d,.]*\s(ms|s)\b/g, '<time>');
}

describe('xhd distance --frames in batches prints what the per-frame loop printed', () => {
  it('--json: every frame, pair, flag, summary and work count equal the expected report', () => {
    const report = JSON.parse(runInFixtures([...ARGS, '--json']));
    // The times are the run's own: present and plausible, then left out of the comparison.
    assert.equal(report.frames.length, 25);
    for (const f of report.frames) assert.ok(f.query_ms > 0 && f.query_ms < report.timings_ms.query, `frame ${f.frame}: ${f.query_ms} ms`);
    const summed = report.frames.reduce((s: number, f: { query_ms: number }) => s + f.query_ms, 0);
    assert.ok(Math.abs(summed - report.timings_ms.query) <= 1e-9 * summed, 'the query time is the frames\' times summed');
    delete report.xhd_version;
    delete report.timings_ms;
    delete report.frames_summary.query_ms;
    for (const f of report.frames) delete f.query_ms;
    assert.deepEqual(report, JSON.parse(readFileSync(fixture('cube-frames.expected.json'), 'utf8')));
  });

  it('text: the frame table, the extremes, the inputs and the method line equal the expected report', () => {
    assert.equal(withoutTimes(runInFixtures(ARGS)), readFileSync(fixture('cube-frames.expected.txt'), 'utf8'));
  });

  it('more frames than one call takes (4,096): answers in order, each as its own single-pose run gives it', () => {
    // 9,000 poses (three calls), of which a few are checked against single-pose runs: the batches join up.
    const dir = scratchDir(), poses = join(dir, 'many.txt');
    const lines: string[] = [];
    for (let k = 0; k < 9000; k++) lines.push(`${(1 + k / 3000).toPrecision(17)} ${(k % 7) * 0.125} 0 1 0 0 0`);
    writeFileSync(poses, lines.join('\n') + '\n');
    const cube = fixture('cube.off');
    const r = spawnSync(process.execPath, [xhdBin, 'distance', cube, cube, '--frames', poses, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    assert.equal(r.status, 0, r.stderr);
    const frames = JSON.parse(r.stdout).frames;
    assert.equal(frames.length, 9000);
    assert.deepEqual(frames.map((f: { frame: number }) => f.frame), [...Array(9000).keys()]);
    for (const k of [0, 4095, 4096, 8191, 8192, 8999]) {
      const [tx, ty] = lines[k].split(' ').map(Number);
      const single = spawnSync(process.execPath, [xhdBin, 'distance', cube, cube, '--translate', `${tx},${ty},0`, '--json'], { encoding: 'utf8' });
      assert.equal(single.status, 0, single.stderr);
      const one = JSON.parse(single.stdout);
      assert.deepEqual([frames[k].min_distance, frames[k].min_pair], [one.min_distance, one.min_pair], `frame ${k}`);
      assert.equal(frames[k].line, k + 1);
    }
  });

  it('SIGINT while the frames run: exit 130, "xhd: cancelled", nothing on stdout', async () => {
    // Enough frames of two cubes to run for seconds; interrupted once they are under way (the bar is off
    // without a terminal, so "under way" is some time after the start, long before the end).
    const dir = scratchDir(), poses = join(dir, 'long.txt');
    const lines: string[] = [];
    for (let k = 0; k < 400_000; k++) lines.push(`${(2 + Math.sin(k)).toPrecision(17)} 0 0 1 0 0 0`);
    writeFileSync(poses, lines.join('\n') + '\n');
    const cube = fixture('cube.off');
    const started = performance.now();
    const child = spawn(process.execPath, [xhdBin, 'distance', cube, cube, '--frames', poses, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(child.exitCode, null, 'the run ended before it could be interrupted; give it more frames');
    child.kill('SIGINT');
    const interrupted = performance.now();
    const code = await exited;
    assert.equal(code, 130, stderr);
    assert.equal(stderr, 'xhd: cancelled\n');
    assert.equal(stdout, '');
    // Stopped, not finished: the frames alone take longer than this after the interrupt (400,000 frames).
    assert.ok(performance.now() - interrupted < Math.max(3000, interrupted - started), 'it stopped soon after the interrupt');
  });
});
