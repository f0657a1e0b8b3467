// The exit code a command chose after finishing its report (1: a --fail-above threshold was exceeded).
// Errors carry their own codes (src/errors.ts); this is for a run that succeeded but must fail a pipeline.
let chosen = 0;

export function setExitStatus(code: number): void {
  chosen = Math.max(chosen, code);
}

export function exitStatus(): number {
  return chosen;
}
