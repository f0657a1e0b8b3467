// Running a peer's process under a wall-clock limit, for every benchmark: its output, how it ended, and
// whether the limit killed it. Output can also be followed as it comes (onStdout), for harnesses that
// report frame by frame.
import { spawn } from 'node:child_process';

export interface ChildResult {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Killed by the wall-clock limit. */
  timedOut: boolean;
  /** Could not be started (the spawn error's message). */
  failedToStart?: string;
  wallMs: number;
}

export function runChild(command: string, args: string[], timeoutS: number, onStdout?: (chunk: string) => void): Promise<ChildResult> {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '', timedOut = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (onStdout ? onStdout(d) : (stdout += d)));
    child.stderr.on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutS * 1000);
    const end = (code: number | null, signal: NodeJS.Signals | null, failedToStart?: string) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code, signal, timedOut, failedToStart, wallMs: performance.now() - start });
    };
    child.on('error', (err) => end(null, null, err.message));
    child.on('close', (code, signal) => end(code, signal));
  });
}

/** The last line a failed child wrote on stderr, or how it ended. */
export function failureReason(r: ChildResult): string {
  return r.failedToStart ?? (r.stderr.trim().split('\n').pop() || (r.signal ? `killed by ${r.signal} (out of memory?)` : `exit ${r.code}`));
}
