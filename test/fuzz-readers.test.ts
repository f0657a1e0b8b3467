// A mutation fuzzer over every fixture, run in CI: byte flips, truncation, spliced garbage, non-finite and
// huge numbers, lying counts and the wrong format. Each case must end as a geometry or as an input (or
// usage) error of one line that names the file, quickly: never another exception, a hang, a quadratic
// blow-up, or coordinates that are not finite. A few cases also go through the whole CLI.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import type { FileFormat } from '../src/io/geometry.js';
import { parseGeometry } from '../src/io/read.js';
import { hasStackTrace, PRINTED_CONTROLS, runXhd, scratchDir } from './cli-run.js';
import { fixturesDir } from './helpers.js';
import { rng } from './random-points.js';
import { expectBenignRead } from './reader-test-tools.js';
import { flipBytes, pick, splice, spliceGarbage, truncate } from './byte-mutations.js';

/** 40 cases a fixture (about 3,300 in all, ten seconds): the same ones every CI run unless XHD_FUZZ_SEED varies them. */
const MUTATIONS_PER_FILE = Number(process.env.XHD_FUZZ_CASES ?? 40);
const SEED = Number(process.env.XHD_FUZZ_SEED ?? 0);
/** No reader may take this long on a fixture-sized input, whatever the bytes (quadratic cases take seconds). */
const SLOW_MS = 1000;
const FORMATS: FileFormat[] = ['off', 'ply', 'csv', 'xyz', 'stl', 'obj', 'nifti', 'pcd'];
const TOKENS = ['nan', 'NaN', 'inf', '-inf', '1e999', '-1e400', '1e16', '999999999999', '-1', '0x1f', '', ' ', '\r', '\n', '"', ',,', '#'];


type Mutation = (bytes: Uint8Array, random: () => number) => Uint8Array;

const MUTATIONS: Record<string, Mutation> = {
  'flip bytes': flipBytes,
  truncate,
  'splice garbage': spliceGarbage,
  'replace a number': (b, r) => {
    const text = new TextDecoder('latin1').decode(b);
    const numbers = [...text.matchAll(/-?\d+(\.\d+)?(e-?\d+)?/gi)];
    if (numbers.length === 0) return b;
    const m = pick(numbers, r);
    return splice(b, m.index!, m[0].length, new TextEncoder().encode(pick(TOKENS, r)));
  },
  'lying count': (b, r) => {
    const text = new TextDecoder('latin1').decode(b);
    const m = /(element \w+ |^)(\d+)/m.exec(text);
    return m ? splice(b, m.index! + m[1].length, m[2].length, new TextEncoder().encode(pick(['0', '4294967295', '99999999999999', '7'], r))) : b;
  },
  'binary counts': (b, r) => {
    // STL's triangle count and NIfTI's dims live at fixed offsets: set one to something huge.
    const out = Uint8Array.from(b);
    const offset = pick([80, 42, 44, 46, 108], r);
    if (offset + 4 <= out.length) new DataView(out.buffer).setUint32(offset, pick([0xffffffff, 0x7fffffff, 0x10000], r), true);
    return out;
  },
  'repeat a line': (b, r) => {
    const text = new TextDecoder('latin1').decode(b);
    const lines = text.split('\n');
    const k = Math.floor(r() * lines.length);
    lines.splice(k, 0, ...Array(1 + Math.floor(r() * 50)).fill(lines[k]));
    return new TextEncoder().encode(lines.join('\n'));
  },
};

const fixtures = readdirSync(fixturesDir).filter((f) => !f.endsWith('.mjs')).sort();

describe('mutation fuzzing of the readers', () => {
  for (const file of fixtures) {
    it(file, async () => {
      const original = readFileSync(join(fixturesDir, file));
      const random = rng(SEED * 1000 + fixtures.indexOf(file) + 1);
      const names = Object.keys(MUTATIONS);
      for (let k = 0; k < MUTATIONS_PER_FILE; k++) {
        const mutation = names[k % names.length];
        const bytes = MUTATIONS[mutation](original, random);
        // Mostly as named; some read as another format, as a wrong --format would.
        const format = random() < 0.2 ? pick(FORMATS, random) : undefined;
        await expectBenignRead(() => parseGeometry(bytes, file, format ? { format } : {}), `${file}, case ${k} (${mutation}${format ? `, as ${format}` : ''})`,
          (message) => message.startsWith(file), SLOW_MS);
      }
    });
  }
});

describe('mutated files through the CLI', () => {
  it('exit 0 or 2, one line on stderr naming the file, never a stack trace', () => {
    const dir = scratchDir();
    const random = rng(99);
    for (const file of ['cube.off', 'tetra-ascii.ply', 'points.xyz', 'named-columns.csv', 'tetra-ascii.stl']) {
      const original = readFileSync(join(fixturesDir, file));
      for (const mutation of Object.keys(MUTATIONS)) {
        const path = join(dir, `${mutation.replace(/ /g, '-')}-${file}`);
        writeFileSync(path, MUTATIONS[mutation](original, random));
        const r = runXhd(['compare', path, join(fixturesDir, 'cube.off'), '--backend', 'cpu', '--samples', '200']);
        assert.ok(r.code === 0 || r.code === 2, `${path}: exit ${r.code}: ${r.stderr}`);
        assert.ok(!hasStackTrace(r.stderr), `${path}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, PRINTED_CONTROLS, `${path}: a control character printed`);
        if (r.code === 2) {
          assert.match(r.stderr, /^xhd: [^\n]*\n$/, `${path}: one line`);
          assert.ok(r.stderr.includes(path), `${path}: names the file: ${r.stderr}`);
        }
      }
    }
  });
});

describe('mutated manifests and pose files through the CLI', () => {
  // The other files xhd reads: a batch's manifest (CSV and JSON Lines), `distance --frames` poses and a join's
  // manifest. A batch goes on past a bad pair and reports each on its own line; the others stop at the first.
  it('exit 0, 1 or 2, never a stack trace; one line naming the file where a frames file or a join manifest is refused', () => {
    const dir = scratchDir();
    const cube = join(fixturesDir, 'cube.off'), tetra = join(fixturesDir, 'tetra-ascii.ply'), points = join(fixturesDir, 'points.xyz');
    const bases: Array<[string, string, (path: string) => string[], boolean]> = [
      ['manifest.csv', `a,b,threshold,metric\n${cube},${tetra},5,hd\n"${points}","${cube}",,\n${cube},${cube},0.1,hd95\n`, (p) => ['batch', p, '--backend', 'cpu'], false],
      ['manifest.jsonl', `${JSON.stringify({ a: cube, b: tetra, threshold: 5 })}\n${JSON.stringify({ a: points, b: cube, metric: 'hd' })}\n`, (p) => ['batch', p, '--backend', 'cpu'], false],
      ['poses.txt', readFileSync(join(fixturesDir, 'cube-frames.txt'), 'latin1'), (p) => ['distance', cube, cube, '--frames', p, '--backend', 'cpu'], true],
      ['objects.csv', `id,path\n1,${cube}\n2,${tetra}\n`, (p) => ['join', p, p, '--intersects'], true],
    ];
    const random = rng(SEED * 1000 + 555);
    const names = Object.keys(MUTATIONS);
    for (const [name, text, args, oneLine] of bases) {
      for (let k = 0; k < 8; k++) {
        const mutation = names[(k + names.indexOf('replace a number')) % names.length];
        const path = join(dir, `${k}-${name}`);
        writeFileSync(path, MUTATIONS[mutation](Buffer.from(text, 'latin1'), random));
        const r = runXhd(args(path));
        const label = `${name}, case ${k} (${mutation})`;
        assert.ok(r.code === 0 || r.code === 1 || r.code === 2, `${label}: exit ${r.code}: ${r.stderr}`);
        assert.ok(!hasStackTrace(r.stderr), `${label}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, PRINTED_CONTROLS, `${label}: a control character printed`);
        if (oneLine && r.code === 2) {
          assert.match(r.stderr, /^xhd: [^\n]*\n$/, `${label}: one line`);
          assert.ok(r.stderr.includes(path), `${label}: names the file: ${r.stderr}`);
        }
      }
    }
  });
});
