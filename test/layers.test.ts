// The layers of src/ (README "Development"): imports point one way, from the command line down to the
// shared basics, never back up; no file imports itself around a cycle; commander stays in cli/.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

import { repoRoot } from './helpers.js';
import { importCycles, layerOf, SRC_LAYERS, upwardImports, type ImportEdge } from './layer-rules.js';

const srcDir = join(repoRoot, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Every import in src/: relative ones resolved to src-relative paths; packages by name. */
function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  // Static imports, re-exports and dynamic import() alike; `import type` counts too, since a type can
  // tie layers together as tightly as a value.
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)'([^']+)'/gm;
  for (const file of sourceFiles(srcDir)) {
    const from = relative(srcDir, file).split('\\').join('/');
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
      const spec = match[1];
      const to = spec.startsWith('.')
        ? relative(srcDir, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))).split('\\').join('/')
        : spec;
      edges.push({ from, to, relative: spec.startsWith('.') });
    }
  }
  return edges;
}

test('every file in src/ belongs to a known layer', () => {
  const unplaced = sourceFiles(srcDir).map((f) => relative(srcDir, f).split('\\').join('/')).filter((f) => layerOf(f) === undefined);
  assert.deepEqual(unplaced, [], `files outside the layers ${SRC_LAYERS.map((l) => l.name).join(', ')}`);
});

test('no import runs from a lower layer back up', () => {
  assert.deepEqual(upwardImports(importEdges()), []);
});

test('no import cycles in src/', () => {
  assert.deepEqual(importCycles(importEdges()), []);
});

test('commander is imported only by the command line layer', () => {
  const outside = importEdges().filter((e) => e.to === 'commander' && layerOf(e.from)?.name !== 'cli').map((e) => e.from);
  assert.deepEqual(outside, []);
});

test('the rules catch what they are meant to catch', () => {
  // A check that cannot fail proves nothing: feed the rules a made-up graph with one of each fault.
  const edges: ImportEdge[] = [
    { from: 'core/errors.ts', to: 'jobs/compare.ts', relative: true },
    { from: 'io/a.ts', to: 'io/b.ts', relative: true },
    { from: 'io/b.ts', to: 'io/a.ts', relative: true },
    { from: 'jobs/compare.ts', to: 'core/errors.ts', relative: true },
  ];
  assert.deepEqual(upwardImports(edges), ['core/errors.ts (core) imports jobs/compare.ts (jobs)']);
  // The upward import above closes a cycle too (jobs/compare.ts imports core/errors.ts back).
  assert.deepEqual(importCycles(edges), ['core/errors.ts → jobs/compare.ts → core/errors.ts', 'io/a.ts → io/b.ts → io/a.ts']);
});
