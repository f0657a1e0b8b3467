#!/usr/bin/env node
// Bundles the compiled CLI (dist/src/cli/main.js and everything it imports, commander, chalk and csv-parse
// included; dicom-parser is required at run time, when a DICOM file is read) into dist/src/bundle/xhd.cjs: one
// CommonJS file, whose commands' code is still run only when the command runs (esbuild turns each command's
// import() into a lazy initialiser), with V8's code cache of it beside it (bin/code-cached-bundle.cjs). bin/xhd
// runs it when it is at least as new as the compiled modules. One file and a code cache instead of about 120
// modules (or 40 ES module chunks) save Node's module resolution, loading and compiling at every start (see
// docs/benchmarks.md, "Start-up" and "Start-up from one file and a code cache").
// The worker threads' entries (the batch's lanes, a join's file readers) are bundled as ES modules with shared
// chunks, as before: a worker starts from a file URL.
// koffi (a native addon), laz-perf (WebAssembly read from its package) and puppeteer-core stay outside, loaded from
// node_modules as before. Without esbuild (a development dependency) this says so in one line and bin/xhd
// runs the modules.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
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
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  // puppeteer-core: an optional dependency, loaded only by --snapshot, from node_modules where installed.
  external: ['koffi', 'laz-perf', 'puppeteer-core'],
  logLevel: 'warning',
  metafile: true,
};
const cli = await esbuild.build({
  ...common,
  entryPoints: { xhd: entry },
  outdir,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // The modules derive paths from import.meta.url ('../../../package.json', the native library directory,
  // '../io/laz-worker.js', the workers' bundles); a CommonJS file has __filename, at the same depth.
  define: { 'import.meta.url': 'xhdImportMetaUrl' },
  banner: { js: "var xhdImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  write: false,
});
const workers = await esbuild.build({
  ...common,
  entryPoints: {
    // The batch's lane worker (src/jobs/batch-lanes-in-workers.ts): each lane's thread then loads one file and
    // the chunks it shares, not about a hundred modules.
    'batch-lane-worker': join(root, 'dist', 'src', 'jobs', 'batch-lane-worker.js'),
    // The threads reading a join collection's files (src/io/read-geometries.ts), likewise.
    'mesh-read-worker': join(root, 'dist', 'src', 'io', 'mesh-read-worker.js'),
  },
  outdir,
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  // Bundled CommonJS packages call require(); an ES module has none, so give it one.
  banner: { js: "import { createRequire as xhdCreateRequire } from 'node:module'; const require = xhdCreateRequire(import.meta.url);" },
});

// No import() may stay in the CLI's file: esbuild inlines the modules' own, but one of a package outside the
// bundle would stay, and bin/code-cached-bundle.cjs runs the file as a script without a dynamic-import hook (one
// given was lost once the code cache was taken: --snapshot's import of puppeteer-core failed in CI).
const [cliFile] = cli.outputFiles;
const dynamicImport = /(^|[^\w$.])import\(/m.exec(cliFile.text);
if (dynamicImport) {
  const line = cliFile.text.slice(0, dynamicImport.index).split('\n').length;
  console.error(`xhd: the bundled CLI holds an import() (line ${line} of xhd.cjs): load that package with require (createRequire) instead`);
  process.exit(1);
}

// The CLI's file ends with its content's key, which names its code cache (bin/code-cached-bundle.cjs).
const key = createHash('sha256').update(cliFile.contents).digest('hex').slice(0, 20);
const bundle = join(outdir, 'xhd.cjs');
// esbuild writes strings and identifiers in ASCII; the few comments it keeps may hold other characters, escaped
// here so that the CLI reads its bundle without decoding it (bin/code-cached-bundle.cjs).
const ascii = cliFile.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
writeFileSync(bundle, `${ascii}//# xhd-bundle-key=${key}\n`);
const { writeCodeCache } = createRequire(import.meta.url)('../bin/code-cached-bundle.cjs');
writeCodeCache(bundle);

// Every compiled module the bundles were made from (paths relative to the bundle directory): bin/xhd runs the
// bundle only while none of them is newer than it, so recompiling any one module (tsc -w included) without
// re-bundling falls back to the modules instead of running stale code.
const modules = [...new Set([...Object.keys(cli.metafile.inputs), ...Object.keys(workers.metafile.inputs)])]
  .map((input) => join(root, input))
  .filter((path) => path.startsWith(join(root, 'dist', 'src')))
  .map((path) => relative(outdir, path));
writeFileSync(join(outdir, 'inputs.json'), JSON.stringify(modules));
