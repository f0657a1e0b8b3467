// How long work says how far it has got. The jobs report through this interface and the command line draws
// it as a bar on a terminal (cli/progress-bar.ts), so no job needs to know about terminals or --quiet; a
// library caller passes nothing and sees nothing, or passes its own.

export interface Progress {
  /** Starts a phase called label that fills the whole from `from` to `to` (fractions of the whole). */
  phase(label: string, from: number, to: number): void;
  update(done: number, total: number): void;
  /** A status line (e.g. "reading big.ply") until the next update or finish. */
  status(text: string): void;
  /** Done, or about to print something else: leave the line clean. */
  finish(): void;
}

/** Makes one Progress per piece of work, named by label ('hausdorff', 'building hierarchies', …). */
export type ProgressFactory = (label: string) => Progress;

const SILENT: Progress = { phase() {}, update() {}, status() {}, finish() {} };

export const silentProgress: ProgressFactory = () => SILENT;
