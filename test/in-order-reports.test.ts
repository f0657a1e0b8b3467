// The batch's reports in manifest order while its lanes run ahead (src/jobs/in-order-reports.ts): lanes simulated
// with timers, so that the order of finishing is known and differs from the order of reporting.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';

import { InOrderReports } from '../src/jobs/in-order-reports.js';

interface Run {
  reportedOrder: number[];
  finishedOrder: number[];
  /** The most pairs handed out and not yet reported at once. */
  mostPending: number;
  /** Pairs finished (by any lane) while pair 0 was still running. */
  finishedBeforeFirst: number;
}

/** Lanes that take pairs from `reports` and spend `delay(i)` ms on pair i. */
async function runLanes(count: number, lanes: number, window: number, delay: (i: number) => number,
  report: (i: number) => boolean | Promise<boolean> = () => true): Promise<Run & { reports: InOrderReports<string> }> {
  const run: Run = { reportedOrder: [], finishedOrder: [], mostPending: 0, finishedBeforeFirst: 0 };
  let handed = 0;
  let firstDone = false;
  const reports = new InOrderReports<string>(count, window, async (i, outcome) => {
    assert.equal(outcome, `pair ${i}`);
    run.reportedOrder.push(i);
    return report(i);
  });
  const lane = async () => {
    for (let i = reports.take(); i >= 0; i = reports.take()) {
      handed = Math.max(handed, i + 1);
      run.mostPending = Math.max(run.mostPending, handed - reports.reported);
      await sleep(delay(i));
      run.finishedOrder.push(i);
      if (i === 0) firstDone = true;
      else if (!firstDone) run.finishedBeforeFirst++;
      await reports.finish(i, `pair ${i}`);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  await reports.settled();
  return { ...run, reports };
}

describe('in-order reports', () => {
  it('report every outcome in index order, whatever order the lanes finish in', async () => {
    const run = await runLanes(40, 3, 6, (i) => (i * 7) % 5);
    assert.deepEqual(run.reportedOrder, Array.from({ length: 40 }, (_, i) => i));
    assert.notDeepEqual(run.finishedOrder, run.reportedOrder, 'the delays make the lanes finish out of order');
    assert.equal(run.reports.reported, 40);
  });

  it('let the other lanes run ahead of a slow pair, by the window and no further', async () => {
    // Pair 0 takes 400 ms, the others 1 ms: a lane waiting for its own report would do nothing meanwhile.
    const window = 8;
    const run = await runLanes(30, 2, window, (i) => (i === 0 ? 400 : 1));
    assert.equal(run.finishedBeforeFirst, window - 1, 'the second lane ran the window\'s other pairs while pair 0 ran');
    assert.ok(run.mostPending <= window, `at most a window of pairs pending (${run.mostPending})`);
    assert.deepEqual(run.reportedOrder, Array.from({ length: 30 }, (_, i) => i));
  });

  it('stop at a report that says so: no more pairs handed out, that outcome not counted as reported', async () => {
    const run = await runLanes(20, 3, 6, (i) => i % 3, (i) => i !== 5);
    assert.deepEqual(run.reportedOrder, [0, 1, 2, 3, 4, 5]);
    assert.equal(run.reports.reported, 5);
    assert.equal(run.reports.take(), -1);
    assert.ok(run.finishedOrder.length < 20, 'the lanes stopped taking pairs');
  });

  it('stop(): waiting lanes go on, to find no pair left', async () => {
    const reports = new InOrderReports<number>(10, 2, () => true);
    assert.equal(reports.take(), 0);
    assert.equal(reports.take(), 1);
    let waited = false;
    // Pair 1 finishes first; pair 0 is still running, so the lane waits (two pending, the window).
    const lane = reports.finish(1, 1).then(() => (waited = true));
    await sleep(5);
    assert.equal(waited, false, 'a lane a window ahead waits');
    reports.stop();
    await lane;
    assert.equal(reports.take(), -1);
    await reports.settled();
    assert.equal(reports.reported, 0);
  });

  it('a report that throws fails the lanes and settled(), and hands out nothing more', async () => {
    const failure = new Error('report page not written');
    await assert.rejects(runLanes(20, 2, 4, () => 1, (i) => {
      if (i === 3) throw failure;
      return true;
    }), failure);
  });
});
