// Paths shared by the tests. Compiled tests live in dist/test/, so the repository root is two levels up.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixturesDir = join(repoRoot, 'fixtures');
export const sharedDataDir = join(repoRoot, '..', 'shared', 'data');
export const xhdBin = join(repoRoot, 'bin', 'xhd');

export function fixture(name: string): string {
  return join(fixturesDir, name);
}

/** Path of a file under ../shared/data, or undefined when it is absent (tests then skip). */
export function sharedData(relative: string): string | undefined {
  const path = join(sharedDataDir, relative);
  return existsSync(path) ? path : undefined;
}
