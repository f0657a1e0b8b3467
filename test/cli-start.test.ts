// Start-up: the CLI loads only the command it runs (issue: fast start), and still lists and suggests every
// command where help or a mistyped name needs them.
import assert from 'node:assert/strict';
import { isAscii } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { commandsFor } from '../src/cli/main.js';
import { runXhd, scratchDir } from './cli-run.js';
import { fixture, repoRoot, sharedData, xhdBin } from './helpers.js';

const ALL = ['compare', 'batch', 'merge', 'distance', 'join', 'info', 'doctor'];

describe('which command modules the CLI loads', () => {
  it('the command named, even after options or before its own', () => {
    assert.deepEqual(commandsFor(['node', 'xhd', 'compare', 'a.ply', 'b.ply', '--json']), ['compare']);
    assert.deepEqual(commandsFor(['node', 'xhd', 'doctor']), ['doctor']);
    assert.deepEqual(commandsFor(['node', 'xhd', '--help', 'distance']), ['distance']);
  });

  it('none for the version alone; every one for help, no arguments or an unknown command', () => {
    assert.deepEqual(commandsFor(['node', 'xhd', '--version']), []);
    assert.deepEqual(commandsFor(['node', 'xhd', '-v']), []);
    for (const argv of [['--help'], [], ['comapre', 'a', 'b'], ['help', 'compare'], ['constructor']])
      assert.deepEqual(commandsFor(['node', 'xhd', ...argv]), ALL, argv.join(' '));
  });

  it('end to end: the version, the full help, and the suggestion for a mistyped command', () => {
    const version = runXhd(['--version']);
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
    const help = runXhd(['--help']);
    assert.equal(help.code, 0);
    for (const name of ALL) assert.match(help.stdout, new RegExp(`^  ${name} `, 'm'));
    const typo = runXhd(['comapre', 'a', 'b']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Did you mean compare\?/);
  });
});

describe('what a start loads', () => {
  it("koffi through its native module, without koffi's downloader and so without https, tls and crypto", () => {
    const script = `import(${JSON.stringify(join(repoRoot, 'dist', 'src', 'native', 'koffi.js'))}).then(({ default: k }) => {
      const loaded = process.moduleLoadList.filter((m) => /^NativeModule (https|tls|_tls_wrap)$/.test(m));
      console.log(JSON.stringify({ load: typeof k.load, struct: typeof k.struct, loaded }));
    });`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { load: 'function', struct: 'function', loaded: [] });
  });

  it('a mask compare imports no other reader: read-async.ts and the mask path reach neither read.ts nor a point-cloud reader', () => {
    // Static imports only (a type import, or a dynamic import(), loads nothing at start), followed through src/.
    const reach = (file: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(file) || !existsSync(file)) return seen;
      seen.add(file);
      for (const m of readFileSync(file, 'utf8').matchAll(/^import (?!type )[^;]*?from '(\.{1,2}\/[^']+)\.js';/gm)) {
        reach(join(file, '..', `${m[1]}.ts`), seen);
      }
      return seen;
    };
    const reached = [...reach(join(repoRoot, 'src', 'io', 'read-async.ts')), ...reach(join(repoRoot, 'src', 'io', 'read-volume-file.ts'))]
      .map((f) => f.slice(join(repoRoot, 'src').length + 1));
    assert.ok(reached.includes('io/voxel-geometry.ts') || reached.includes('io/format-names.ts'), `the walk follows imports: ${reached.join(', ')}`);
    const readers = reached.filter((f) => /^io\/(read|las|laz|copc|e57|ply|obj|off|stl|pcd|delimited)[-.]/.test(f) && f !== 'io/read-async.ts' && f !== 'io/read-filter.ts' && f !== 'io/read-volume-file.ts');
    assert.deepEqual(readers, [], 'point-cloud and mesh readers reached at start');
  });
});

describe("libuv's thread pool", () => {
  // bin/xhd sizes the pool before anything starts it (koffi's asynchronous calls, zlib's and fs.promises run
  // there; `xhd batch --devices` keeps one call in flight a lane): 16 threads, unless the user set a size.
  it('bin/xhd starts it with 16 threads, or with the size the user set', { skip: process.platform !== 'linux' && 'counts threads in /proc' }, () => {
    const probe = join(scratchDir(), 'threads.cjs');
    // --version alone may never start the pool (the bundled CLI is read synchronously), so the probe starts it
    // once the CLI is done, with an asynchronous stat, and counts the threads at exit.
    writeFileSync(probe, [
      "let started = false;",
      "process.on('beforeExit', () => { if (!started) { started = true; require('fs').stat(__filename, () => {}); } });",
      "process.on('exit', () => process.stderr.write(`threads ${require('fs').readdirSync('/proc/self/task').length}\\n`));",
      '',
    ].join('\n'));
    const threads = (size: string | undefined) => {
      const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${probe}`, UV_THREADPOOL_SIZE: size };
      const r = spawnSync(process.execPath, [xhdBin, '--version'], { encoding: 'utf8', env, timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      return Number(/threads (\d+)/.exec(r.stderr)![1]);
    };
    // The same process but for the pool: the difference is the pool's threads.
    assert.equal(threads(undefined) - threads('4'), 12);
    assert.equal(threads('6') - threads('4'), 2);
  });
});

describe('the bundled CLI (scripts/bundle-cli.mjs)', () => {
  const cliDir = join(repoRoot, 'dist', 'src', 'cli');
  const bundleDir = join(repoRoot, 'dist', 'src', 'bundle');
  const bundle = join(bundleDir, 'xhd.cjs');
  const fresh = () => existsSync(bundle) && existsSync(join(bundleDir, 'inputs.json')) &&
    statSync(bundle).mtimeMs >= statSync(join(cliDir, 'main.js')).mtimeMs;
  const skip = fresh() ? false : 'no bundle as new as the compiled modules (npm test bundles; a bare tsc does not)';

  it('answers as the modules do: a surface compare, a usage error, a LAZ input', { skip }, () => {
    const a = fixture('points.xyz'), b = fixture('cube.off');
    const laz = sharedData('lidar/point-time.las.laz');
    const cases = [['compare', a, b], ['compare', a], ['compare', a, b, '--threads', 'x'], ...(laz ? [['compare', laz, a, '--threads', '2']] : [])];
    for (const args of cases) {
      const bundled = runXhd(args);
      const modules = runXhd(args, { XHD_NO_BUNDLE: '1' });
      // Everything but the timings, which differ from run to run.
      const untimed = (text: string) => text.replace(/^ +time .*\n/gm, '');
      assert.deepEqual({ code: bundled.code, stdout: untimed(bundled.stdout), stderr: bundled.stderr },
        { code: modules.code, stdout: untimed(modules.stdout), stderr: modules.stderr }, args.join(' '));
    }
  });

  it('finds the LAZ worker, which stays a module of its own, from where the bundle lies', { skip }, () => {
    // A worker that fails to start leaves its chunks to the others, so a wrong path would only be slower:
    // check the path itself.
    const code = readdirSync(bundleDir).map((f) => readFileSync(join(bundleDir, f), 'utf8')).join('\n');
    // import.meta.url in the worker bundles' ES modules; the CLI's CommonJS file defines it from __filename.
    const workers = [...code.matchAll(/new URL\("([^"]*laz-worker\.js)", (?:import\.meta\.url|xhdImportMetaUrl)\)/g)].map((m) => m[1]);
    assert.ok(workers.length > 0, 'the bundle starts LAZ workers');
    for (const w of workers) assert.ok(existsSync(join(bundleDir, w)), `${w} from ${bundleDir}`);
  });

  // The next two break a bundle on purpose: a copy of the launcher and the bundle (and of the reader modules,
  // whose times the second one changes) beside links to the other compiled folders, so that the other test
  // files, which run the real bundle at the same time, never meet the broken one.
  function isolatedInstall(): { root: string; bundle: string; cliMain: string; version(): ReturnType<typeof spawnSync> } {
    const root = mkdtempSync(join(tmpdir(), 'xhd-bundle-'));
    cpSync(join(repoRoot, 'bin'), join(root, 'bin'), { recursive: true });
    const src = join(root, 'dist', 'src');
    mkdirSync(src, { recursive: true });
    for (const entry of readdirSync(join(repoRoot, 'dist', 'src'))) {
      const from = join(repoRoot, 'dist', 'src', entry);
      if (entry === 'bundle' || entry === 'io') cpSync(from, join(src, entry), { recursive: true, preserveTimestamps: true });
      else symlinkSync(from, join(src, entry));
    }
    return {
      root,
      bundle: join(src, 'bundle', 'xhd.cjs'),
      cliMain: join(src, 'cli', 'main.js'),
      version: () => spawnSync(process.execPath, [join(root, 'bin', 'xhd'), '--version'], { encoding: 'utf8' }),
    };
  }

  it('bin/xhd passes over a bundle older than the compiled modules', { skip }, () => {
    const copy = isolatedInstall();
    try {
      // A stale bundle that is also broken: if bin/xhd ran it, the version would not come out.
      writeFileSync(copy.bundle, 'throw new Error("stale bundle ran");\n');
      const older = new Date(statSync(copy.cliMain).mtimeMs - 60_000);
      utimesSync(copy.bundle, older, older);
      const version = copy.version();
      assert.equal(version.status, 0, String(version.stderr));
      assert.match(String(version.stdout), /^\d+\.\d+\.\d+\n$/);
      // And the check can fail: the same broken bundle, fresh, is run.
      const newer = new Date(statSync(copy.cliMain).mtimeMs + 60_000);
      utimesSync(copy.bundle, newer, newer);
      assert.match(String(copy.version().stderr), /stale bundle ran/);
    } finally {
      rmSync(copy.root, { recursive: true, force: true });
    }
  });

  it('bin/xhd passes over a bundle older than any one module it was made from, not only main.js', { skip }, () => {
    const copy = isolatedInstall();
    try {
      const bundleDirCopy = join(copy.bundle, '..');
      const inputs = JSON.parse(readFileSync(join(bundleDirCopy, 'inputs.json'), 'utf8')) as string[];
      const module = inputs.map((input) => join(bundleDirCopy, input)).find((path) => path.endsWith(join('io', 'read.js')));
      assert.ok(module, 'the bundle lists the reader module among its inputs');
      // A bundle that would fail if it ran, and one module recompiled after it (as tsc -w does).
      writeFileSync(copy.bundle, 'throw new Error("stale bundle ran");\n');
      const later = new Date(statSync(copy.bundle).mtimeMs + 60_000);
      utimesSync(module, later, later);
      const version = copy.version();
      assert.equal(version.status, 0, String(version.stderr));
      assert.match(String(version.stdout), /^\d+\.\d+\.\d+\n$/);
    } finally {
      rmSync(copy.root, { recursive: true, force: true });
    }
  });
});

describe("the bundled CLI's code cache (bin/code-cached-bundle.cjs)", () => {
  type Loaded = { exports: Record<string, unknown>; cache: 'accepted' | 'rejected' | 'absent' };
  const loader = createRequire(import.meta.url)(join(repoRoot, 'bin', 'code-cached-bundle.cjs')) as {
    writeCodeCache(bundle: string): string;
    codeCachePath(bundle: string, source: string): string | null;
  };
  const bundleDir = join(repoRoot, 'dist', 'src', 'bundle');
  const realBundle = join(bundleDir, 'xhd.cjs');

  // Each load in a process of its own: V8 keeps what a process has compiled, and a second load of the same source
  // in one process would not read the cache at all. Exports that are functions come back as 'function'.
  const loadInChild = (bundle: string): Loaded => {
    const script = `const r = require(${JSON.stringify(join(repoRoot, 'bin', 'code-cached-bundle.cjs'))}).loadCodeCachedBundle(${JSON.stringify(bundle)});
      const exports = Object.fromEntries(Object.entries(r.exports).map(([k, v]) => [k, typeof v === 'function' ? 'function' : v]));
      console.log(JSON.stringify({ exports, cache: r.cache }));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as Loaded;
  };

  it('the built bundle starts from its cache, and V8 accepts it', { skip: !existsSync(realBundle) && 'no bundle (npm test bundles)' }, () => {
    const loaded = loadInChild(realBundle);
    assert.deepEqual([loaded.cache, loaded.exports.main], ['accepted', 'function']);
    assert.ok(existsSync(loader.codeCachePath(realBundle, readFileSync(realBundle, 'utf8'))!));
    // Written in ASCII, so that it is read without decoding (and is the same text either way).
    assert.ok(isAscii(readFileSync(realBundle)), 'the bundle is ASCII');
    // No import(): the script runs without a dynamic-import hook (--snapshot's import of puppeteer-core failed so).
    assert.doesNotMatch(readFileSync(realBundle, 'latin1'), /(^|[^\w$.])import\(/m);
  });

  // Small stand-in bundles, run as the built one is (loadInChild).
  const writeBundle = (dir: string, value: string, key: string | null) => {
    const bundle = join(dir, 'xhd.cjs');
    const keyLine = key === null ? '' : `//# xhd-bundle-key=${key}\n`;
    writeFileSync(bundle, `module.exports = { value: ${JSON.stringify(value)}, sep: require('node:path').sep, file: __filename };\n${keyLine}`);
    return bundle;
  };

  it('runs a bundle as require() would, from its cache once written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'xhd-code-cache-'));
    try {
      const bundle = writeBundle(dir, 'first', 'a1');
      const before = loadInChild(bundle);
      assert.deepEqual(before, { exports: { value: 'first', sep: '/', file: bundle }, cache: 'absent' });
      assert.equal(loader.writeCodeCache(bundle), join(dir, 'xhd.cjs.a1.cache'));
      const after = loadInChild(bundle);
      assert.deepEqual(after, { exports: { value: 'first', sep: '/', file: bundle }, cache: 'accepted' });
      assert.deepEqual(readdirSync(dir).sort(), ['xhd.cjs', 'xhd.cjs.a1.cache'], 'no partial file left');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a rebuilt bundle of the same length never meets the cache of the one before (a new key, no cache)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'xhd-code-cache-'));
    try {
      loader.writeCodeCache(writeBundle(dir, 'first', 'a1'));
      const rebuilt = writeBundle(dir, 'other', 'b2');
      const loaded = loadInChild(rebuilt);
      assert.equal(loaded.exports.value, 'other');
      assert.equal(loaded.cache, 'absent');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a damaged cache is refused by V8 and the bundle still runs; a bundle without its key line runs uncached', () => {
    const dir = mkdtempSync(join(tmpdir(), 'xhd-code-cache-'));
    try {
      const bundle = writeBundle(dir, 'first', 'a1');
      const cache = loader.writeCodeCache(bundle);
      const bytes = readFileSync(cache);
      for (let i = 0; i < bytes.length; i += 7) bytes[i] ^= 0x5a;
      writeFileSync(cache, bytes);
      const damaged = loadInChild(bundle);
      assert.equal(damaged.exports.value, 'first');
      assert.equal(damaged.cache, 'rejected');

      const keyless = writeBundle(dir, 'plain', null);
      assert.deepEqual([loadInChild(keyless).exports.value, loadInChild(keyless).cache], ['plain', 'absent']);
      assert.throws(() => loader.writeCodeCache(keyless), /has no xhd-bundle-key line/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
