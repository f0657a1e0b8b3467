#!/usr/bin/env node
// Bundles the compiled CLI (dist/src/cli/main.js and everything it imports, commander, chalk and csv-parse
// included; dicom-parser is required at run time, when a DICOM file is read) into dist/src/bundle/: main.mjs
// with the program, and one chunk per command's code (each command's module is imported only when it runs,
// src/cli/main.ts), shared code in common chunks. bin/xhd runs it when it is at least as new as the compiled
// modules. A handful of files instead of about 120 saves Node's module resolution and loading at every start
// (see docs/benchmarks.md, "Start-up"); the chunks keep `xhd --version` from parsing the code of every command.
// koffi (a native addon), laz-perf (WebAssembly read from its package) and puppeteer-core stay outside, loaded from
// node_modules as before. Without esbuild (a development dependency) this says so in one line and bin/xhd
// runs the modules.
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'src', 'cli', 'main.js');
// At the depth of the modules (dist/src/<layer>/), so every path they derive from import.meta.url
// ('../../../package.json', the native library directory, '../io/laz-worker.js') resolves as it does for them.
const outdir = join(root, 'dist', 'src', 'bundle');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.log('xhd: esbuild is not installed, so the CLI is not bundled; it runs from its modules (a slower start)');
  process.exit(0);
}
try {
  statSync(entry);
} catch {
  console.error(`xhd: ${entry} is missing: compile first (npx tsc -p tsconfig.json)`);
  process.exit(1);
}

// Chunks are named by their content: old ones must not pile up.
rmSync(outdir, { recursive: true, force: true });
const result = await esbuild.build({
  // The batch's lane worker too (src/jobs/batch-lanes-in-workers.ts): each lane's thread then loads one file and
  // the chunks it shares with main.mjs, not about a hundred modules.
  entryPoints: {
    main: entry,
    'batch-lane-worker': join(root, 'dist', 'src', 'jobs', 'batch-lane-worker.js'),
    // The threads reading a join collection's files (src/io/read-geometries.ts), likewise.
    'mesh-read-worker': join(root, 'dist', 'src', 'io', 'mesh-read-worker.js'),
  },
  outdir,
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // puppeteer-core: an optional dependency, loaded only by --snapshot, from node_modules where installed.
  external: ['koffi', 'laz-perf', 'puppeteer-core'],
  // Bundled CommonJS packages call require(); an ES module has none, so give it one.
  banner: { js: "import { createRequire as xhdCreateRequire } from 'node:module'; const require = xhdCreateRequire(import.meta.url);" },
  logLevel: 'warning',
  metafile: true,
});
// Every compiled module the bundle was made from (paths relative to the bundle directory): bin/xhd runs the
// bundle only while none of them is newer than it, so recompiling any one module (tsc -w included) without
// re-bundling falls back to the modules instead of running stale code.
const modules = Object.keys(result.metafile.inputs)
  .map((input) => join(root, input))
  .filter((path) => path.startsWith(join(root, 'dist', 'src')))
  .map((path) => relative(outdir, path));
writeFileSync(join(outdir, 'inputs.json'), JSON.stringify(modules));
