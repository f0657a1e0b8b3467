// Finds the page scripts that scripts/build-viewer.mjs bundles (one per report kind): beside this module once
// compiled (dist/src/report/html/), which is also where the bundled CLI (dist/src/cli/) finds them, one level up.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { XhdError, EXIT_NATIVE } from '../../core/errors.js';

export type ReportKind = 'compare' | 'batch' | 'distance';

/** The file scripts/build-viewer.mjs writes for a kind. */
export function bundleName(kind: ReportKind): string {
  return kind === 'compare' ? 'viewer.bundle.js' : `viewer-${kind}.bundle.js`;
}

/** The bundle's path, looked for from this module's directory upwards; undefined when it was never built. */
export function viewerBundlePath(kind: ReportKind): string | undefined {
  const name = bundleName(kind);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level < 4; level++) {
    for (const candidate of [join(dir, name), join(dir, 'report', 'html', name)]) if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

/** Throws (exit 3, as for a missing native library) unless the bundle is there: checked before the work. */
export function checkViewerBuilt(kind: ReportKind): string {
  const path = viewerBundlePath(kind);
  if (!path) throw new XhdError(`the HTML report viewer is not built (dist/src/report/html/${bundleName(kind)}). Fix: run \`npm install\` or \`npm run build\` in the xhd directory`, EXIT_NATIVE);
  return path;
}

export function readViewerBundle(kind: ReportKind): string {
  return readFileSync(checkViewerBuilt(kind), 'utf8');
}
