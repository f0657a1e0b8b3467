// `xhd compare --report`: the page's data against the JSON report in points, surface and mask modes,
// thinning, directed runs, empty inputs; a bad report path refused before any work and no partial file.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { describe, it } from 'node:test';

import { hasStackTrace, runXhd, scratchDir, writeXyz } from './cli-run.js';
import { fixture } from './helpers.js';
import { writeNifti } from './nifti-writer.js';
import { rng, uniform } from './random-points.js';
import { batchReportData, embeddedJson, reportData } from './report-page.js';
import { uvSphere, writeOff } from './test-meshes.js';

const dir = scratchDir();
const path = (name: string) => join(dir, name);
const random = rng(28);
const A = uniform(3000, 3, random), B = uniform(2000, 3, random, 0.05);
writeXyz(path('a.xyz'), A);
writeXyz(path('b.xyz'), B);

function compareWithReport(report: string, ...args: string[]) {
  const r = runXhd(['compare', ...args, '--json', '--backend', 'cpu', '--report', report]);
  assert.equal(r.code, 0, r.stderr);
  return { json: JSON.parse(r.stdout), data: reportData(report) };
}

describe('xhd compare --report', () => {
  it('points: the page carries the JSON report, every point, both directions and their witnesses', () => {
    const { json, data } = compareWithReport(path('points.html'), path('a.xyz'), path('b.xyz'), '--percentile', '95');
    assert.deepEqual(data.json.hd, json.hd);
    assert.equal((data.json as Record<string, unknown>).hd95, json.hd95);
    assert.deepEqual(data.sets.map((s) => [s.name, s.total, s.shown, s.hasDistances]), [['A', 3000, 3000, true], ['B', 2000, 2000, true]]);
    assert.deepEqual(data.directions.map((d) => d.key), ['ab', 'ba']);
    assert.equal(data.directions[0].summary.max, json.hd_ab);
    assert.equal(data.directions[1].summary.max, json.hd_ba);
    assert.deepEqual(data.directions[0].witness!.from, json.witness_ab.a_point);
    assert.equal(data.directions[0].regions[0].distance, json.hd_ab, 'the worst region starts at the HD witness');
    assert.deepEqual(data.directions[0].regions[0].point, json.witness_ab.a_point);
    assert.deepEqual(data.range, [0, json.hd]);
    assert.match(json.notes.at(-1) ?? '', /HTML report written/);
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('partial')), [], 'no temporary file left');
  });

  it("marks the JSON's own mean and 95th percentile on the plots: reused with --percentile 95, else computed the same", () => {
    const { json, data } = compareWithReport(path('marks.html'), path('a.xyz'), path('b.xyz'), '--percentile', '95');
    const marks = (k: number) => [data.directions[k].summary.mean, data.directions[k].summary.p95];
    assert.deepEqual([marks(0), marks(1)], [[json.mean_ab, json.hd95_ab], [json.mean_ba, json.hd95_ba]]);
    // Without statistics asked for (and with --stats alone, which has no percentile) the report computes them.
    for (const extra of [[], ['--stats'], ['--percentile', '99']]) {
      const other = compareWithReport(path('marks-computed.html'), path('a.xyz'), path('b.xyz'), ...extra).data;
      assert.deepEqual(other.directions.map((d) => [d.summary.mean, d.summary.p95]), [marks(0), marks(1)], extra.join(' ') || 'no statistics');
    }
  });

  it('thins big inputs to --report-points, keeping the worst, and takes --report-range', () => {
    const { json, data } = compareWithReport(path('thin.html'), path('a.xyz'), path('b.xyz'), '--report-points', '200', '--report-range', '0.01,0.2');
    assert.deepEqual(data.sets.map((s) => [s.total, s.shown, s.worstKept]), [[3000, 200, 10], [2000, 200, 10]]);
    assert.deepEqual(data.range, [0.01, 0.2]);
    assert.equal(data.rangeGiven, true);
    // The statistics still cover every point.
    assert.equal(data.directions[0].summary.count, 3000);
    assert.equal(data.directions[0].summary.max, json.hd_ab);
  });

  it('directed: one direction coloured, B drawn as the overlay without distances', () => {
    const { data } = compareWithReport(path('directed.html'), path('a.xyz'), path('b.xyz'), '--directed');
    assert.deepEqual(data.directions.map((d) => d.key), ['ab']);
    assert.deepEqual(data.sets.map((s) => [s.name, s.shown, s.hasDistances]), [['A', 3000, true], ['B', 2000, false]]);
  });

  it('surface: the samples of both meshes with their distances', () => {
    writeOff(path('s1.off'), uvSphere(1, 12, 24));
    writeOff(path('s2.off'), uvSphere(1.1, 10, 20));
    const { json, data } = compareWithReport(path('surface.html'), path('s1.off'), path('s2.off'), '--samples', '5000');
    assert.equal(data.json.mode, 'surface');
    assert.deepEqual(data.sets.map((s) => s.total), [json.samples.a, json.samples.b]);
    assert.equal(data.directions[1].summary.max, json.hd_ba);
  });

  it('masks: the surface voxels of both, in millimetres', () => {
    const N = 8;
    const block = (x0: number) => {
      const v = new Uint8Array(N * N * N);
      for (let k = 2; k <= 5; k++) for (let j = 2; j <= 5; j++) for (let i = x0; i <= x0 + 3; i++) v[i + N * (j + N * k)] = 1;
      return v;
    };
    writeNifti(path('m1.nii'), { dims: [N, N, N], values: block(1), spacing: [2, 2, 2] });
    writeNifti(path('m2.nii'), { dims: [N, N, N], values: block(2), spacing: [2, 2, 2] });
    const { json, data } = compareWithReport(path('masks.html'), path('m1.nii'), path('m2.nii'));
    assert.equal(json.hd, 2);
    assert.equal(data.json.a.format, 'nifti');
    assert.deepEqual(data.sets.map((s) => s.total), [json.a.points, json.b.points]);
    // The slice view: every surface voxel of each mask, with its distance, on the masks' grid.
    const slices = data.slices!;
    assert.deepEqual(slices.dims, [N, N, N]);
    assert.deepEqual(slices.spacing, [2, 2, 2]);
    assert.deepEqual(slices.sets.map((s) => [s.name, s.count, s.distanceScale]), [['A', json.a.points, json.hd_ab], ['B', json.b.points, json.hd_ba]]);
    const bytes = inflateRawSync(Buffer.from(slices.packed, 'base64'));
    const steps = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + 4 * slices.sets[0].count));
    let voxel = 0;
    const voxelsA = Array.from(steps, (step) => (voxel += step));
    // A's surface voxels are its block's: 4x4x4 at i 1..4 minus the 2x2x2 inside.
    const expected: number[] = [];
    for (let k = 2; k <= 5; k++) for (let j = 2; j <= 5; j++) for (let i = 1; i <= 4; i++) {
      if (!(i > 1 && i < 4 && j > 2 && j < 5 && k > 2 && k < 5)) expected.push(i + N * (j + N * k));
    }
    assert.deepEqual(voxelsA, expected);
    // It opens at the voxel of the largest distance: an A voxel at i = 1, which is 2 mm (one voxel) from B.
    assert.equal(slices.start[0], 1);
  });

  it('masks on different grids: no slice view, and a note says why', () => {
    const v = new Uint8Array(6 * 6 * 6).fill(0);
    v[2 + 6 * (2 + 6 * 2)] = 1;
    writeNifti(path('g1.nii'), { dims: [6, 6, 6], values: v, spacing: [1, 1, 1] });
    writeNifti(path('g2.nii'), { dims: [6, 6, 6], values: v, spacing: [1.5, 1.5, 1.5] });
    const r = runXhd(['compare', path('g1.nii'), path('g2.nii'), '--backend', 'cpu', '-q', '--report', path('grids.html')]);
    assert.equal(r.code, 0, r.stderr);
    const data = reportData(path('grids.html'));
    assert.equal(data.slices, null);
    assert.match(data.notes.join(' '), /different grids: no slice view/);
  });

  it('point sets: no slice view', () => {
    assert.equal(reportData(path('points.html')).slices, null);
  });

  it('an empty input: the page says there is nothing to draw', () => {
    const { data } = compareWithReport(path('empty.html'), fixture('empty.xyz'), path('b.xyz'), '--empty', 'inf');
    assert.deepEqual(data.sets, []);
    assert.match(data.notes.join(' '), /empty/);
  });

  it('a report path in a missing directory: exit 2, one line, before reading any input', () => {
    const report = join(dir, 'missing', 'r.html');
    const r = runXhd(['compare', path('no-such-input.xyz'), path('b.xyz'), '--report', report]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /r\.html: cannot write: no such directory/, 'the report is refused, not the missing input');
    assert.ok(!hasStackTrace(r.stderr));
    assert.ok(!existsSync(report));
  });

  it('a report path under a file or naming a directory: exit 2, nothing written', () => {
    writeFileSync(path('plain-file'), 'x');
    for (const report of [join(path('plain-file'), 'r.html'), dir]) {
      const r = runXhd(['compare', path('a.xyz'), path('b.xyz'), '--report', report]);
      assert.equal(r.code, 2, report);
      assert.match(r.stderr, /cannot write/);
    }
  });

  it('--snapshot where no browser can run: exit 3 before the work, saying why, nothing written', () => {
    const r = runXhd(['compare', path('a.xyz'), path('b.xyz'), '--snapshot', path('none.png')], { XHD_CHROMIUM: path('no-such-chromium') });
    assert.equal(r.code, 3);
    assert.match(r.stderr, /--snapshot renders in headless Chromium, but no Chromium found/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.ok(!existsSync(path('none.png')));
  });

  it('--report-range without --report, or a bad range: exit 2', () => {
    assert.equal(runXhd(['compare', path('a.xyz'), path('b.xyz'), '--report-range', '1']).code, 2);
    const r = runXhd(['compare', path('a.xyz'), path('b.xyz'), '--report', path('x.html'), '--report-range', '2,1']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /MIN < MAX/);
    assert.ok(!existsSync(path('x.html')));
  });
});

describe('xhd batch --report', () => {
  it('one row a pair with its status and metrics, errors included, and the summary', () => {
    writeFileSync(path('pairs.csv'), 'a,b,threshold\na.xyz,b.xyz,0.01\na.xyz,a.xyz,0.01\na.xyz,no-such.xyz,\n');
    const report = path('batch.html');
    const r = runXhd(['batch', path('pairs.csv'), '--backend', 'cpu', '--report', report, '-q']);
    assert.equal(r.code, 2, r.stderr); // the missing file is an error
    const records = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const data = batchReportData(report);
    assert.deepEqual(data.rows.map((row) => [row.line, row.status, row.hd]), [[2, 'exceeded', records[0].hd], [3, 'passed', 0], [4, 'error', null]]);
    assert.match(data.rows[2].error ?? '', /no-such\.xyz/);
    assert.deepEqual(data.summary, records[3].summary);
  });

  it("--report-dir: each measured pair's own compare page, named by its line, linked from the batch page", () => {
    writeFileSync(path('pairs.csv'), 'a,b,threshold\na.xyz,b.xyz,0.01\na.xyz,a.xyz,0.01\na.xyz,no-such.xyz,\n');
    const pages = join(dir, 'pages', 'nested');
    const report = path('batch-linked.html');
    const r = runXhd(['batch', path('pairs.csv'), '--backend', 'cpu', '--report', report, '--report-dir', pages, '-q']);
    assert.equal(r.code, 2, r.stderr);
    const records = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(records.slice(0, 3).map((x) => x.report), [join(pages, 'pair-2.html'), join(pages, 'pair-3.html'), undefined]);
    assert.deepEqual(readdirSync(pages).sort(), ['pair-2.html', 'pair-3.html'], 'no page for the failed pair, no partial file');
    // Each page is the pair's compare report: the same HD as its JSON Lines record, both inputs drawn.
    for (const record of records.slice(0, 2)) {
      const page = reportData(record.report);
      assert.equal(page.json.hd, record.hd);
      assert.deepEqual(page.sets.map((s) => s.total), [3000, record.pair.b === 'a.xyz' ? 3000 : 2000]);
    }
    const rows = batchReportData(report).rows;
    assert.deepEqual(rows.map((row) => row.report), ['pages/nested/pair-2.html', 'pages/nested/pair-3.html', null]);
  });

  it('--report-dir naming a file: exit 2 before any pair runs', () => {
    const r = runXhd(['batch', path('pairs.csv'), '--report-dir', path('a.xyz')]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '', 'no pair ran');
    assert.match(r.stderr, /a\.xyz: cannot write: is not a directory/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('a report path in a missing directory: exit 2 before any pair runs', () => {
    const r = runXhd(['batch', path('pairs.csv'), '--report', join(dir, 'missing', 'b.html')]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '', 'no pair ran');
    assert.match(r.stderr, /b\.html: cannot write: no such directory/);
  });
});

describe('xhd distance --report', () => {
  it('--frames: the page carries the JSON report with every frame', () => {
    const report = path('distance.html');
    const r = runXhd(['distance', fixture('cube.off'), fixture('cube.off'), '--frames', fixture('cube-frames.txt'), '--both', '--backend', 'cpu', '--json', '--report', report]);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    const data = embeddedJson(report) as { kind: string; json: typeof json };
    assert.equal(data.kind, 'distance');
    assert.deepEqual(data.json.frames.map((f: { min_distance: number }) => f.min_distance), json.frames.map((f: { min_distance: number }) => f.min_distance));
    assert.deepEqual(data.json.frames_summary, json.frames_summary);
  });

  it('a report path in a missing directory: exit 2 before reading the inputs', () => {
    const r = runXhd(['distance', path('no-such.off'), fixture('cube.off'), '--report', join(dir, 'missing', 'd.html')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /d\.html: cannot write: no such directory/);
  });
});
