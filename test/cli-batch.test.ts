// xhd batch: every pair of a CSV or JSON Lines manifest in one process, JSON Lines on stdout, a failed pair
// as an error object (the others still measured), and the exit codes a CI pipeline relies on.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

import { fixture, xhdBin } from './helpers.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz, type RunResult } from './cli-run.js';
import { writeNifti } from './nifti-writer.js';

// A = (0,0) (1,0) (0,1) (1,1); B = A shifted 0.5 along x (HD = HD95 = 0.5, union bbox diagonal √3.25);
// C = A shifted 0.25 along x (HD 0.25). Points are exact in float32, so the distances are exact too.
const dir = scratchDir();
const data = join(dir, 'data');
mkdirSync(data);
writeXyz(join(data, 'a.xyz'), Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0));
writeXyz(join(data, 'b.xyz'), Float32Array.of(0.5, 0, 0, 1.5, 0, 0, 0.5, 1, 0, 1.5, 1, 0));
writeXyz(join(data, 'c.xyz'), Float32Array.of(0.25, 0, 0, 1.25, 0, 0, 0.25, 1, 0, 1.25, 1, 0));
const diagonalAB = Math.sqrt(3.25);
/** The broken fixture, as a path relative to the manifests' directory (so resolution is exercised too). */
const broken = relative(data, fixture('bad-token.xyz'));

function manifest(name: string, text: string): string {
  const path = join(data, name);
  writeFileSync(path, text);
  return path;
}

const batch = (...args: string[]) => runXhd(['batch', ...args, '--backend', 'cpu', '--quiet']);

/** stdout parsed as JSON Lines: every line must be one JSON object, the last one the summary. */
function jsonLines(r: RunResult): { pairs: any[]; summary: any } {
  assert.ok(r.stdout.endsWith('\n'), `stdout must end with a newline: ${JSON.stringify(r.stdout.slice(-80))}`);
  const objects = r.stdout.slice(0, -1).split('\n').map((line, i) => {
    assert.match(line, /^\{.*\}$/, `stdout line ${i + 1} is not one JSON object: ${line.slice(0, 120)}`);
    return JSON.parse(line);
  });
  const last = objects.pop();
  assert.ok(last && typeof last.summary === 'object', 'the last line is the summary');
  for (const o of objects) assert.equal(typeof o.line, 'number', 'every other line is a pair');
  return { pairs: objects, summary: last.summary };
}

describe('xhd batch', () => {
  it('measures every pair of a CSV manifest; a broken file is an error object, the others still run; exit 2', () => {
    const csv = manifest('pairs.csv', [
      'id,a,b,threshold,metric',
      'ab,a.xyz,b.xyz,0.4,', // hd 0.5 > 0.4: exceeded
      '',
      `broken,a.xyz,${broken},1,`,
      'ac,a.xyz,c.xyz,0.4,hd', // hd 0.25: passed
      'missing,a.xyz,nowhere.xyz,,', // no such file
      'dims,a.xyz,' + relative(data, fixture('points-2d.txt')) + ',,', // 3D against 2D: a usage error for the pair
    ].join('\n') + '\n');
    const r = batch(csv);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(!hasStackTrace(r.stdout + r.stderr), r.stderr);
    const { pairs, summary } = jsonLines(r);
    assert.deepEqual(pairs.map((p) => p.line), [2, 4, 5, 6, 7]);
    assert.deepEqual(pairs.map((p) => p.status), ['exceeded', 'error', 'passed', 'error', 'error']);
    assert.deepEqual(pairs.map((p) => p.fields.id), ['ab', 'broken', 'ac', 'missing', 'dims']);
    assert.deepEqual(pairs[0].pair, { a: 'a.xyz', b: 'b.xyz' });

    assert.equal(pairs[0].hd, 0.5);
    assert.equal(pairs[0].threshold.exceeded, true);
    assert.equal(pairs[2].hd, 0.25);
    assert.equal(pairs[2].threshold.exceeded, false);

    const [bad, missing, dims] = [pairs[1], pairs[3], pairs[4]];
    assert.equal(bad.pair.b, broken, 'the path as written in the manifest');
    assert.equal(bad.error.exit_code, 2);
    assert.match(bad.error.message, /bad-token\.xyz:2: expected a number/);
    assert.equal(bad.hd, undefined, 'an error object carries no measurement');
    assert.equal(missing.error.exit_code, 2);
    assert.match(missing.error.message, /nowhere\.xyz: no such file/);
    assert.match(dims.error.message, /3D but .* is 2D/);
    for (const e of [bad, missing, dims]) assert.doesNotMatch(e.error.message, /\n/);

    assert.equal(summary.pairs, 5);
    assert.equal(summary.passed, 1);
    assert.equal(summary.exceeded, 1);
    assert.equal(summary.errors, 3);
    assert.equal(summary.unchecked, 0);
    assert.equal(summary.exit_code, 2);
    assert.equal(summary.interrupted, false);
    assert.ok(summary.total_ms > 0);
    assert.equal(r.stderr, '', '--quiet leaves stderr empty');
  });

  it('prints a line per failed pair and a summary on stderr without --quiet, stdout unchanged', () => {
    const csv = manifest('stderr.csv', `a,b,threshold\na.xyz,b.xyz,0.4\na.xyz,${broken},\na.xyz,c.xyz,1\n`);
    const r = runXhd(['batch', csv, '--backend', 'cpu']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(jsonLines(r).pairs.length, 3);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 3, r.stderr);
    assert.match(lines[0], /stderr\.csv:2: FAIL hd 0\.5 > 0\.4/);
    assert.match(lines[1], /stderr\.csv:3: error: .*bad-token\.xyz:2:/);
    assert.match(lines[2], /^xhd batch: 3 pairs: 1 passed, 1 exceeded, 1 error in /);
  });

  it('JSON Lines manifest: per-row thresholds and metrics, the command\'s --fail-above for the rest, exit 1 or 0', () => {
    const jsonl = manifest('pairs.jsonl', [
      JSON.stringify({ a: 'a.xyz', b: 'b.xyz', threshold: 0.6, case: 7 }), // own limit: 0.5 <= 0.6
      '',
      JSON.stringify({ a: 'a.xyz', b: 'c.xyz' }), // the default limit
      JSON.stringify({ a: 'a.xyz', b: 'b.xyz', threshold: '30%', metric: 'hd95' }), // 0.5 <= 0.3·√3.25 ≈ 0.54
    ].join('\n') + '\n');

    const pass = batch(jsonl, '--fail-above', '0.3');
    assert.equal(pass.code, 0, pass.stderr);
    const ok = jsonLines(pass);
    assert.deepEqual(ok.pairs.map((p) => p.line), [1, 3, 4]);
    assert.deepEqual(ok.pairs.map((p) => p.status), ['passed', 'passed', 'passed']);
    assert.deepEqual(ok.pairs[0].fields, { case: 7 });
    assert.equal(ok.pairs[0].threshold.limit, 0.6);
    assert.equal(ok.pairs[1].threshold.limit, 0.3);
    const hd95 = ok.pairs[2].threshold;
    assert.equal(hd95.metric, 'hd95');
    assert.ok(Math.abs(hd95.value - 0.5) < 1e-7, `${hd95.value}`);
    assert.ok(Math.abs(hd95.limit - 0.3 * diagonalAB) < 1e-12, `${hd95.limit}`);
    assert.deepEqual(ok.summary.passed, 3);

    // A stricter default fails the row without a limit of its own; the rows with one keep theirs.
    const fail = batch(jsonl, '--fail-above', '0.2');
    assert.equal(fail.code, 1, fail.stderr);
    const failed = jsonLines(fail);
    assert.deepEqual(failed.pairs.map((p) => p.status), ['passed', 'exceeded', 'passed']);
    assert.equal(failed.summary.exceeded, 1);
    assert.equal(failed.summary.exit_code, 1);

    // No default: that row is measured but not checked, and does not fail the run.
    const none = batch(jsonl);
    assert.equal(none.code, 0, none.stderr);
    const unchecked = jsonLines(none);
    assert.equal(unchecked.pairs[1].status, 'unchecked');
    assert.equal(unchecked.pairs[1].threshold, null);
    assert.equal(unchecked.summary.unchecked, 1);
  });

  it('resolves relative paths against the manifest, whatever the working directory; absolute paths stay', () => {
    const elsewhere = scratchDir();
    manifest('rel.csv', `a,b\na.xyz,c.xyz\n${join(data, 'a.xyz')},b.xyz\n`);
    const r = spawnSync(process.execPath, [xhdBin, 'batch', join(relative(elsewhere, data), 'rel.csv'), '--backend', 'cpu', '--quiet'], {
      cwd: elsewhere,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 60_000,
    });
    assert.equal(r.status, 0, r.stderr);
    const { pairs } = jsonLines({ code: r.status, stdout: r.stdout, stderr: r.stderr });
    assert.equal(pairs[0].a.path, join(data, 'a.xyz'));
    assert.equal(pairs[0].b.path, join(data, 'c.xyz'));
    assert.equal(pairs[0].hd, 0.25);
    assert.equal(pairs[1].pair.a, join(data, 'a.xyz'));
    assert.equal(pairs[1].b.path, join(data, 'b.xyz'));
    assert.equal(pairs[1].hd, 0.5);
  });

  it('gives each pair the hd that xhd compare --json gives, with the same measuring options', () => {
    const cube = relative(data, fixture('cube.off')), tetra = relative(data, fixture('tetra-ascii.ply'));
    const jsonl = manifest('same.jsonl', `{"a": "a.xyz", "b": "b.xyz"}\n{"a": "${cube}", "b": "${tetra}"}\n`);
    const options = ['--samples', '2000', '--seed', '7'];
    const r = batch(jsonl, ...options);
    assert.equal(r.code, 0, r.stderr);
    const { pairs } = jsonLines(r);
    assert.equal(pairs[1].mode, 'surface');
    assert.equal(pairs[1].samples.a, 2000, 'the measuring options reach every pair');
    for (const [p, [a, b]] of pairs.map((p, i) => [p, [['a.xyz', 'b.xyz'], [cube, tetra]][i]] as const)) {
      const c = runXhd(['compare', join(data, a), join(data, b), '--json', '--backend', 'cpu', '--quiet', ...options]);
      assert.equal(c.code, 0, c.stderr);
      const expected = JSON.parse(c.stdout);
      assert.equal(p.hd, expected.hd, `${a} ${b}`);
      assert.equal(p.hd_ab, expected.hd_ab);
      assert.equal(p.hd_ba, expected.hd_ba);
      assert.deepEqual(p.witness_ab, expected.witness_ab);
    }
  });

  it('a --label in neither mask is an answer in a batch (the empty policy), counted in the summary', () => {
    const mask = (name: string, label: number) => {
      const values = new Array(27).fill(0);
      values[13] = label;
      writeNifti(join(data, name), { dims: [3, 3, 3], values });
    };
    mask('one.nii', 1);
    mask('two.nii', 2);
    const csv = manifest('labels.csv', 'a,b\none.nii,two.nii\none.nii,one.nii\n');
    const r = batch(csv, '--label', '2');
    assert.equal(r.code, 0, r.stderr);
    const { pairs, summary } = jsonLines(r);
    assert.equal(pairs.length, 2);
    // one.nii lacks label 2 but two.nii has it: one empty side, the volume's diagonal (2√3 voxels of 1 mm).
    assert.equal(pairs[0].hd, 2 * Math.sqrt(3));
    assert.equal(pairs[1].hd, 0); // neither has label 2: a match under the segmentation convention
    assert.equal(summary.label_in_neither, 1);
  });

  it('refuses a bad manifest with one line naming it and the line, exit 2, nothing run', () => {
    const cases: [string, string, RegExp][] = [
      ['no-b.csv', 'a,c\na.xyz,b.xyz\n', /no-b\.csv:1: the header has no 'b' column/],
      ['bad-threshold.csv', 'a,b,threshold\na.xyz,b.xyz,0.4\na.xyz,c.xyz,abc\n', /bad-threshold\.csv:3: threshold: expected a distance/],
      ['negative.jsonl', '{"a": "a.xyz", "b": "b.xyz", "threshold": -1}\n', /negative\.jsonl:1: threshold: expected a distance >= 0/],
      ['bad-metric.csv', 'a,b,threshold,metric\na.xyz,b.xyz,1,median\n', /bad-metric\.csv:2: metric: expected one of hd, hd95/],
      ['bad-json.jsonl', '{"a": "a.xyz", "b": "b.xyz"}\n{"a": "a.xyz", b}\n', /bad-json\.jsonl:2: not valid JSON/],
      ['no-path.jsonl', '\n{"a": "a.xyz"}\n', /no-path\.jsonl:2: no path in 'b'/],
      ['ragged.csv', 'a,b\na.xyz,b.xyz,c.xyz\n', /ragged\.csv:2: 3 fields, but the header has 2 columns/],
      ['metric-alone.jsonl', '{"a": "a.xyz", "b": "b.xyz", "metric": "rms"}\n', /metric-alone\.jsonl:1: metric rms needs a threshold/],
      ['chamfer-percent.jsonl', '{"a": "a.xyz", "b": "b.xyz", "threshold": "1%", "metric": "chamfer"}\n', /chamfer-percent\.jsonl:1: .*squared distance/],
      ['empty.csv', 'a,b\n\n', /empty\.csv: lists no pairs/],
      ['pairs.txt', 'a,b\na.xyz,b.xyz\n', /pairs\.txt: a batch manifest is a \.csv file .* or a \.jsonl file/],
    ];
    for (const [name, text, message] of cases) {
      const r = batch(manifest(name, text));
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.equal(r.stdout, '', `${name}: nothing runs, nothing is printed on stdout`);
      assert.match(r.stderr, /^xhd: [^\n]*\n$/, `${name}: one line: ${r.stderr}`);
      assert.match(r.stderr, message, name);
    }
    const missing = batch(join(data, 'absent.csv'));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^xhd: .*absent\.csv: no such file\n$/);
  });
});
