// The bundled CLI is one CommonJS file (scripts/bundle-cli.mjs), run here from V8's code cache of it. Node 20
// has no compile cache of its own (module.enableCompileCache came in Node 22), and a one-off mask compare spent
// about a third of its own time loading and compiling the ES modules of the chunked bundle it replaces
// (docs/benchmarks.md, "Start-up from one file and a code cache").
//
// The cache is written beside the bundle when it is made, under a name that carries the bundle's own content
// key (the comment scripts/bundle-cli.mjs ends it with): V8 checks a cache against its own version, its flags
// and the length of the source, not the source's text, so a rebuilt bundle of the same length must never meet
// the old cache. A cache V8 refuses (another Node, other V8 flags) costs nothing but the compile it would have
// saved; a missing one, likewise.
'use strict';
const { isAscii } = require('node:buffer');
const { readFileSync, writeFileSync, renameSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const vm = require('node:vm');

/** What every CommonJS module's code is wrapped in, so the bundle sees the variables a required file sees. */
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAPPER_TAIL = '\n});';

/**
 * The bundle's text. scripts/bundle-cli.mjs writes it in ASCII, which read as Latin-1 is a one-byte string made
 * without decoding: 1-2 ms on an H200 host, against 5 for UTF-8's decoding of the megabyte. Any other text is
 * decoded as UTF-8. The cache is written from the same reading, so both see the same source.
 */
function readSource(bundle) {
  const bytes = readFileSync(bundle);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** The key bundle-cli.mjs writes on the bundle's last line: `//# xhd-bundle-key=<hex>`. */
function bundleKey(source) {
  const match = /\/\/# xhd-bundle-key=([0-9a-f]+)\s*$/.exec(source.slice(-200));
  return match ? match[1] : null;
}

/** The cache's path for this bundle source, or null for a bundle without a key (nothing is cached then). */
function codeCachePath(bundle, source) {
  const key = bundleKey(source);
  return key === null ? null : `${bundle}.${key}.cache`;
}

// The bundle holds no import() (scripts/bundle-cli.mjs refuses one): a script compiled from a cache lost the
// dynamic-import hook given to vm.Script, and the hook for the main loader prints an experimental warning.
function compile(bundle, source, cachedData) {
  return new vm.Script(WRAPPER_HEAD + source + WRAPPER_TAIL, { filename: bundle, cachedData });
}

/**
 * Runs the bundle's top level, as require() would, and gives its exports, with what became of the cache:
 * 'accepted', 'rejected' (by V8) or 'absent'.
 */
function loadCodeCachedBundle(bundle) {
  const source = readSource(bundle);
  const cachePath = codeCachePath(bundle, source);
  let cachedData;
  try {
    if (cachePath !== null) cachedData = readFileSync(cachePath);
  } catch {
    // no cache for this bundle: compiled from its source
  }
  const script = compile(bundle, source, cachedData);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  const cache = cachedData === undefined ? 'absent' : script.cachedDataRejected ? 'rejected' : 'accepted';
  return { exports: module.exports, cache };
}

/** Writes the bundle's code cache (its top level compiled, as V8 compiles a script before running it); its path. */
function writeCodeCache(bundle) {
  const source = readSource(bundle);
  const cachePath = codeCachePath(bundle, source);
  if (cachePath === null) throw new Error(`${bundle} has no xhd-bundle-key line`);
  // Renamed into place, so a CLI starting meanwhile reads the whole cache or none.
  const partial = `${cachePath}.${process.pid}.partial`;
  writeFileSync(partial, compile(bundle, source, undefined).createCachedData());
  renameSync(partial, cachePath);
  return cachePath;
}

module.exports = { loadCodeCachedBundle, writeCodeCache, codeCachePath };
