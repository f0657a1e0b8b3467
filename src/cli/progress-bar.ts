// A one-line progress bar on stderr. Off when stderr is not a terminal or with --quiet, and it only
// appears once work has run for a moment, so quick commands never flicker. Work in several phases (the
// Hausdorff search, then every point's distance) shows one bar: each phase names itself and owns a span
// of it, and the percentage never goes back. Lines are cut to the terminal's width, since a line that
// wraps cannot be redrawn in place.
import type { Progress, ProgressFactory } from '../core/progress.js';

const SHOW_AFTER_MS = 300;
const MAX_BAR_WIDTH = 24;
const MIN_BAR_WIDTH = 8;
/** The ETA waits until this much is done and this long has passed: early rates say little. */
const ETA_AFTER_FRACTION = 0.05;
const ETA_AFTER_MS = 1000;

/** What the bar writes to: stderr, or a stand-in in tests. */
export interface ProgressStream {
  write(text: string): unknown;
  columns?: number;
}

export class ProgressBar implements Progress {
  private readonly started = performance.now();
  private drawn = false;
  private phaseLabel: string;
  private spanFrom = 0;
  private spanTo = 1;
  private shown = 0; // the overall fraction last drawn: never drawn lower

  constructor(
    label: string,
    private readonly enabled: boolean,
    private readonly stream: ProgressStream = process.stderr,
  ) {
    this.phaseLabel = label;
  }

  static forStderr(label: string, quiet: boolean): ProgressBar {
    return new ProgressBar(label, !quiet && process.stderr.isTTY === true);
  }

  /** What the jobs take: a bar on stderr for each piece of work (none with --quiet or off a terminal). */
  static factoryForStderr(quiet: boolean): ProgressFactory {
    return (label) => ProgressBar.forStderr(label, quiet);
  }

  /** Starts a phase called label that fills the bar from `from` to `to` (fractions of the whole). */
  phase(label: string, from: number, to: number): void {
    this.phaseLabel = label;
    this.spanFrom = Math.max(from, this.shown);
    this.spanTo = Math.max(to, this.spanFrom);
  }

  update(done: number, total: number): void {
    if (!this.enabled || total <= 0) return;
    const elapsed = performance.now() - this.started;
    if (elapsed < SHOW_AFTER_MS) return;
    const inPhase = Math.min(1, Math.max(0, done / total));
    const overall = Math.max(this.shown, this.spanFrom + (this.spanTo - this.spanFrom) * inPhase);
    this.shown = overall;
    const eta = overall >= ETA_AFTER_FRACTION && elapsed >= ETA_AFTER_MS && overall < 1
      ? ` ETA ${formatSeconds((elapsed / overall - elapsed) / 1000)}` : '';
    const percent = `${(overall * 100).toFixed(0).padStart(3)}%`;
    const columns = this.columns();
    // The label and the numbers first; the bar takes what is left, within its bounds, or goes.
    const room = columns - 1 - (this.phaseLabel.length + 1) - (percent.length + 1) - eta.length;
    const width = Math.min(MAX_BAR_WIDTH, room);
    const filled = Math.round(overall * Math.max(width, 0));
    const bar = width >= MIN_BAR_WIDTH ? ` ${'█'.repeat(filled)}${'░'.repeat(width - filled)}` : '';
    this.draw(`${this.phaseLabel}${bar} ${percent}${eta}`);
  }

  /** Prints a status line (e.g. "reading big.ply") that the next update or finish replaces. */
  status(text: string): void {
    if (!this.enabled) return;
    this.draw(text);
  }

  finish(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }

  private columns(): number {
    const c = this.stream.columns;
    return c !== undefined && c > 0 ? c : 80;
  }

  /** One line, cut to fit the terminal (ending with … when cut). */
  private draw(line: string): void {
    const max = this.columns() - 1;
    const fitted = line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1))}…`;
    this.stream.write(`\r${fitted}\x1b[K`);
    this.drawn = true;
  }
}

function formatSeconds(s: number): string {
  if (s < 60) return `${Math.ceil(s)}s`;
  return `${Math.floor(s / 60)}m${String(Math.ceil(s % 60)).padStart(2, '0')}s`;
}
