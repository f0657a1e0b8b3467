// What the main thread and a batch lane's worker (batch-lane-worker.ts) say to each other. Generic in the
// batch's own types (src/jobs/batch.ts), which import the lanes' runner: naming them here would be a cycle.

export interface LaneWorkerData<Pair, Compare> {
  pairs: Pair[];
  /** The lane's options: the batch's, on the lane's device. */
  compare: Compare;
}

/** From the lane: ready for its first pair, or done with one (and ready for the next). */
export type LaneRequest<Outcome> = { type: 'next' } | { type: 'done'; index: number; outcome: Outcome };

/** To the lane: the next pair's index (-1: no more), or stop (the batch was interrupted). */
export type LaneReply = { type: 'index'; index: number } | { type: 'abort' };
