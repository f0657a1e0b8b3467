// Finds the page script that scripts/build-viewer.mjs bundles: beside this module once compiled
// (dist/src/report/html/), which is also where the bundled CLI (dist/src/cli/) finds it, one level up.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { XhdError, EXIT_NATIVE } from '../../core/errors.js';

const RELATIVE = join('report', 'html', 'viewer.bundle.js');

/** The bundle's path, looked for from this module's directory upwards; undefined when it was never built. */
export function viewerBundlePath(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 4; level++) {
    for (const candidate of [join(dir, 'viewer.bundle.js'), join(dir, RELATIVE)]) if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

/** Throws (exit 3, as for a missing native library) unless the bundle is there: checked before the work. */
export function checkViewerBuilt(): string {
  const path = viewerBundlePath();
  if (!path) throw new XhdError('the HTML report viewer is not built (dist/src/report/html/viewer.bundle.js). Fix: run `npm install` or `npm run build` in the xhd directory', EXIT_NATIVE);
  return path;
}

export function readViewerBundle(): string {
  return readFileSync(checkViewerBuilt(), 'utf8');
}
