// The outcomes of a batch's pairs, reported in manifest order while the lanes run ahead. A lane that finishes a
// pair records its outcome and takes the next pair at once, unless it is a window of pairs ahead of the first one
// not yet reported: then it waits for the reports to catch up, so the outcomes held at once stay bounded. Until
// stop 46 each lane waited for its own pair's report, so a lane that finished while an earlier, larger pair was
// still running (a full-size mask among small ones) stood idle until that pair ended. On the 2-GPU host this
// changed neither the 1,000 small pairs' wall time nor, beyond its noise, that of a batch with every tenth pair
// full size (docs/benchmarks.md, "Where the batch's lanes wait (stop 46)"): there the lanes' time goes elsewhere.
export class InOrderReports<Outcome> {
  readonly #outcomes: Array<Outcome | undefined>;
  readonly #window: number;
  readonly #report: (index: number, outcome: Outcome) => boolean | Promise<boolean>;
  #reported = 0; // pairs [0, reported) are reported
  #handed = 0; // pairs [0, handed) were handed to lanes
  #chain: Promise<void> = Promise.resolve();
  #waiting: Array<() => void> = [];
  #failure: { error: unknown } | undefined;
  #stopped = false;

  /**
   * count: the pairs. window: pairs handed out but not yet reported, at most (at least one). report: called with
   * each outcome in index order, one at a time (a returned promise is awaited before the next); false stops the
   * reports there, that outcome counted as not reported (an interrupted pair).
   */
  constructor(count: number, window: number, report: (index: number, outcome: Outcome) => boolean | Promise<boolean>) {
    this.#outcomes = new Array<Outcome | undefined>(count);
    this.#window = Math.max(1, window);
    this.#report = report;
  }

  /** Outcomes reported so far: those of pairs 0 .. reported - 1. */
  get reported(): number {
    return this.#reported;
  }

  /** The next pair's index, or -1 when none is left, the reports were stopped, or one failed. */
  take(): number {
    if (this.#stopped || this.#failure || this.#handed >= this.#outcomes.length) return -1;
    return this.#handed++;
  }

  /** No more pairs handed out, nor outcomes reported (an interrupt); waiting lanes go on, to find none. */
  stop(): void {
    this.#stopped = true;
    this.#wakeLanes();
  }

  /**
   * Records pair `index`'s outcome and resolves once its lane may take another pair: at once, unless the lane
   * would be a window ahead of the reports. Rejects with the error of a report that failed.
   */
  async finish(index: number, outcome: Outcome): Promise<void> {
    this.#outcomes[index] = outcome;
    this.#chain = this.#chain.then(() => this.#drain()).catch((error: unknown) => {
      this.#failure ??= { error };
      this.#wakeLanes();
    });
    while (!this.#stopped && !this.#failure && this.#handed - this.#reported >= this.#window) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    if (this.#failure) throw this.#failure.error;
  }

  /** Resolves once every outcome recorded so far is reported (or the reports stopped); rejects as finish does. */
  async settled(): Promise<void> {
    await this.#chain;
    if (this.#failure) throw this.#failure.error;
  }

  async #drain(): Promise<void> {
    while (!this.#stopped && this.#reported < this.#outcomes.length && this.#outcomes[this.#reported] !== undefined) {
      const index = this.#reported;
      const outcome = this.#outcomes[index]!;
      this.#outcomes[index] = undefined; // reported: its data (and any distances it kept) can go
      if (!(await this.#report(index, outcome))) {
        this.stop();
        return;
      }
      this.#reported++;
      this.#wakeLanes();
    }
  }

  #wakeLanes(): void {
    for (const wake of this.#waiting.splice(0)) wake();
  }
}
