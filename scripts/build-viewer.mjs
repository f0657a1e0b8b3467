#!/usr/bin/env node
// Bundles the HTML reports' page scripts (viewer/*.ts, with three.js for compare's) into one file per report
// kind that the report writer inlines into every report, so a report needs no network when it is opened:
// dist/src/report/html/viewer.bundle.js (compare), viewer-batch.bundle.js and viewer-distance.bundle.js, beside
// the writer (src/report/html/viewer-bundle.ts finds it there, or from the bundled
// CLI). esbuild and three are development dependencies: `npm install` brings them and runs this (prepare).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'src', 'report', 'html');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.log('xhd: esbuild is not installed, so the HTML report viewer is not built; compare --report will say so');
  process.exit(0);
}

// One bundle per report kind; the batch page has no 3D view, so no three.js.
await esbuild.build({
  entryPoints: [
    { in: join(root, 'viewer', 'compare.ts'), out: 'viewer.bundle' },
    { in: join(root, 'viewer', 'batch.ts'), out: 'viewer-batch.bundle' },
    { in: join(root, 'viewer', 'distance.ts'), out: 'viewer-distance.bundle' },
  ],
  outdir,
  bundle: true,
  format: 'iife',
  platform: 'browser',
  // DecompressionStream('deflate-raw') needs Chrome 103, Firefox 113, Safari 16.4; older ones say so.
  target: ['chrome103', 'firefox113', 'safari16.4'],
  minify: true,
  legalComments: 'inline', // three.js's licence notice travels with it
  logLevel: 'warning',
});
