// The progress bar: one label per phase, a percentage that never goes back across phases, and lines cut
// to the terminal's width so that redrawing in place never leaves stale wrapped lines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ProgressBar } from '../src/cli/progress-bar.js';

/** A terminal stand-in that keeps every drawn line. */
function terminal(columns: number) {
  const lines: string[] = [];
  return {
    columns,
    lines,
    write(text: string) {
      const drawn = text.replace(/^\r/, '').replace(/\x1b\[K$/, '');
      if (drawn !== '') lines.push(drawn);
    },
  };
}

/** A bar already past its start-up delay. */
async function startedBar(stream: ReturnType<typeof terminal>): Promise<ProgressBar> {
  const bar = new ProgressBar('work', true, stream);
  await new Promise((resolve) => setTimeout(resolve, 320));
  return bar;
}

const percentOf = (line: string) => Number(/(\d+)%/.exec(line)![1]);

describe('ProgressBar', () => {
  it('phases name themselves and fill their own span; the percentage never goes back', async () => {
    const tty = terminal(100);
    const bar = await startedBar(tty);
    bar.phase('hausdorff', 0, 0.5);
    for (const done of [0, 50, 100]) bar.update(done, 100);
    bar.phase('distances A → B', 0.5, 0.75);
    for (const done of [0, 10, 100]) bar.update(done, 100);
    bar.phase('distances B → A', 0.75, 1);
    for (const done of [0, 100]) bar.update(done, 100);
    const percents = tty.lines.map(percentOf);
    assert.deepEqual(percents, [0, 25, 50, 50, 53, 75, 75, 100]);
    assert.ok(tty.lines[0].startsWith('hausdorff '));
    assert.ok(tty.lines[3].startsWith('distances A → B '));
    assert.ok(tty.lines[7].startsWith('distances B → A '));
    // A phase that reports less than was already shown does not pull the bar back.
    bar.update(10, 100);
    assert.equal(percentOf(tty.lines[tty.lines.length - 1]), 100);
  });

  it('on a 30-column terminal every line fits in 29 columns (the bar shrinks or goes, long text is cut)', async () => {
    const tty = terminal(30);
    const bar = await startedBar(tty);
    bar.phase('surface distances', 0, 1);
    for (let done = 0; done <= 100; done += 10) bar.update(done, 100);
    bar.status('reading /a/very/long/path/to/some/file/with/a/long/name.ply');
    for (const line of tty.lines) assert.ok([...line].length <= 29, `${line.length} columns: ${line}`);
    assert.ok(tty.lines[tty.lines.length - 1].endsWith('…'));
    assert.match(tty.lines[5], /^surface distances .*50%/);
  });

  it('draws nothing when disabled (no terminal, or --quiet)', () => {
    const tty = terminal(80);
    const bar = new ProgressBar('work', false, tty);
    bar.update(5, 10);
    bar.status('reading');
    bar.finish();
    assert.deepEqual(tty.lines, []);
  });
});
