// A one-line progress bar on stderr. Off when stderr is not a terminal or with --quiet, and it only
// appears once work has run for a moment, so quick commands never flicker.
const SHOW_AFTER_MS = 300;
const BAR_WIDTH = 24;

export class ProgressBar {
  private readonly started = performance.now();
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly enabled: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  static forStderr(label: string, quiet: boolean): ProgressBar {
    return new ProgressBar(label, !quiet && process.stderr.isTTY === true);
  }

  update(done: number, total: number): void {
    if (!this.enabled || total <= 0) return;
    const elapsed = performance.now() - this.started;
    if (elapsed < SHOW_AFTER_MS) return;
    const fraction = Math.min(1, done / total);
    const filled = Math.round(fraction * BAR_WIDTH);
    const eta = fraction > 0.02 ? ` ETA ${formatSeconds((elapsed / fraction - elapsed) / 1000)}` : '';
    const bar = '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
    this.stream.write(`\r${this.label} ${bar} ${(fraction * 100).toFixed(0).padStart(3)}%${eta}\x1b[K`);
    this.drawn = true;
  }

  /** Prints a status line (e.g. "reading big.ply") that the next update or finish replaces. */
  status(text: string): void {
    if (!this.enabled) return;
    this.stream.write(`\r${text}\x1b[K`);
    this.drawn = true;
  }

  finish(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)}s`;
  return `${Math.floor(s / 60)}m${String(Math.ceil(s % 60)).padStart(2, '0')}s`;
}
