// The incremental native build (scripts/native-build/): an object is compiled again exactly when its source,
// a header it includes, or its command changes; the target is linked again only when an object changed
// or the target is gone; a failed compile names its file and is retried on the next build. Run on a tiny
// project of its own in a scratch directory, so it costs a few small compiles.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { pathToFileURL } from 'node:url';

import { scratchDir } from './cli-run.js';
import { repoRoot } from './helpers.js';
import { suiteUnless } from './skippable-suite.js';

const hasCompiler = spawnSync('g++', ['--version']).status === 0;

interface Outcome { compiled: number; total: number; linked: boolean }

async function load(): Promise<{
  buildTarget: (spec: object) => Promise<Outcome>;
  parseDepfile: (text: string) => string[] | null;
}> {
  const incremental = await import(pathToFileURL(join(repoRoot, 'scripts/native-build/incremental.mjs')).href);
  const depfile = await import(pathToFileURL(join(repoRoot, 'scripts/native-build/depfile.mjs')).href);
  return { buildTarget: incremental.buildTarget, parseDepfile: depfile.parseDepfile };
}

it('depfiles: continuation lines joined, escaped spaces kept, -MP phony rules ignored', async () => {
  const { parseDepfile } = await load();
  const text = 'obj/a.cpp.o: /src/a.cpp /src/my\\ dir/h.h \\\n  /src/b.h\n/src/my\\ dir/h.h:\n/src/b.h:\n';
  assert.deepEqual(parseDepfile(text), ['/src/a.cpp', '/src/my dir/h.h', '/src/b.h']);
  assert.equal(parseDepfile(''), null);
});

suiteUnless(!hasCompiler && 'no g++ to compile with', 'incremental native build', () => {
  const root = scratchDir();
  const kernels = join(root, 'kernels');
  mkdirSync(join(kernels, 'x'), { recursive: true });
  const header = join(kernels, 'x', 'shared.h');
  const a = join(kernels, 'x', 'a.cpp');
  const b = join(kernels, 'x', 'b.cpp');
  const out = join(root, 'build', 'libtiny.so');
  writeFileSync(header, 'inline int shared() { return 1; }\n');
  writeFileSync(a, '#include "shared.h"\nint a() { return shared(); }\n');
  writeFileSync(b, 'int b() { return 2; }\n');

  // An edit is dated a little after the last build's outputs: file times advance in clock ticks of a few
  // milliseconds, and a file written in the same tick as an object would not count as newer.
  async function edit(path: string, text?: string) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    if (text !== undefined) writeFileSync(path, text);
    const now = Date.now() / 1000;
    utimesSync(path, now, now);
  }

  async function build(defines: string[] = []): Promise<Outcome> {
    const { buildTarget } = await load();
    const units = [a, b].map((source) => ({
      source, object: join(root, 'build', 'obj', `${source.slice(kernels.length + 1)}.o`), compiler: 'g++',
      args: ['-O0', '-fPIC', ...defines], identity: 'test',
    }));
    return buildTarget({
      root, label: 'tiny', out, jobs: 2, units, log: () => undefined, output: () => undefined,
      link: { compiler: 'g++', args: (objects: string[]) => ['-shared', ...objects], identity: 'test' },
    });
  }

  it('builds everything the first time, nothing the second', async () => {
    assert.deepEqual(await build(), { compiled: 2, total: 2, linked: true });
    assert.deepEqual(await build(), { compiled: 0, total: 2, linked: false });
  });

  it('an edited header recompiles only the sources that include it', async () => {
    await edit(header);
    assert.deepEqual(await build(), { compiled: 1, total: 2, linked: true });
    await edit(b);
    assert.deepEqual(await build(), { compiled: 1, total: 2, linked: true });
  });

  it('changed flags recompile every object', async () => {
    assert.deepEqual(await build(['-DEXTRA=1']), { compiled: 2, total: 2, linked: true });
    assert.deepEqual(await build(['-DEXTRA=1']), { compiled: 0, total: 2, linked: false });
  });

  it('a missing target is linked again from the objects it has', async () => {
    rmSync(out);
    assert.deepEqual(await build(['-DEXTRA=1']), { compiled: 0, total: 2, linked: true });
  });

  it('a failed compile names its source, and is compiled again once fixed', async () => {
    await edit(b, 'int b() { return }\n');
    await assert.rejects(build(['-DEXTRA=1']), /g\+\+ failed on kernels\/x\/b\.cpp/);
    await edit(b, 'int b() { return 3; }\n');
    assert.deepEqual(await build(['-DEXTRA=1']), { compiled: 1, total: 2, linked: true });
  });
});
