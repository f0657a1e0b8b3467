// Runs bin/xhd as a user would and captures what it prints.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { xhdBin } from './helpers.js';

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs xhd with these arguments; `input` is written to its standard input. */
export function runXhd(args: string[], env: Record<string, string> = {}, input?: string): RunResult {
  const r = spawnSync(process.execPath, [xhdBin, ...args], {
    encoding: 'utf8',
    input,
    env: { ...process.env, NO_COLOR: '1', ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh temporary directory for files a test writes. */
export function scratchDir(): string {
  return mkdtempSync(join(tmpdir(), 'xhd-test-'));
}

/** Writes points as a space-separated .xyz file (full float32 precision survives the round trip). */
export function writeXyz(path: string, points: Float32Array): void {
  const lines: string[] = [];
  for (let i = 0; i < points.length; i += 3) lines.push(`${points[i]} ${points[i + 1]} ${points[i + 2]}`);
  writeFileSync(path, lines.join('\n') + '\n');
}

/** Lines of a stack trace ("    at …") must never reach a user. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+\(.+:\d+:\d+\)$/m.test(text) || /^\s+at .+:\d+:\d+$/m.test(text);
}
