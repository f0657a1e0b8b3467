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

/** Writes points as a binary little-endian PLY of float x, y, z: read as float32, the points' own truth. */
export function writeBinaryPly(path: string, points: Float32Array): void {
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${points.length / 3}\nproperty float x\nproperty float y\nproperty float z\nend_header\n`;
  const body = new Float32Array(points);  // a copy of our own, little-endian on every machine we run on
  writeFileSync(path, Buffer.concat([Buffer.from(header, 'latin1'), Buffer.from(body.buffer, body.byteOffset, body.byteLength)]));
}

/** Control characters other than the line feed: never printed (src/cli/printable.ts). */
export const PRINTED_CONTROLS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

/** Lines of a stack trace ("    at …") must never reach a user. */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+\(.+:\d+:\d+\)$/m.test(text) || /^\s+at .+:\d+:\d+$/m.test(text);
}
