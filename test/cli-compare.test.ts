// `xhd compare` end to end: the JSON contract, the human report, and exit codes.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';

import { probeBackend } from '../src/ops/backends.js';
import { hausdorff } from '../src/ops/hausdorff.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz } from './cli-run.js';
import { fixture, sharedData } from './helpers.js';
import { clustered, rng, uniform } from './random-points.js';

function unionDiagonal(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let d = 0; d < 3; d++) {
    let lo = Infinity, hi = -Infinity;
    for (const p of [a, b]) for (let i = d; i < p.length; i += 3) { lo = Math.min(lo, p[i]); hi = Math.max(hi, p[i]); }
    s += (hi - lo) ** 2;
  }
  return Math.sqrt(s);
}

describe('xhd compare', () => {
  const dir = scratchDir();
  const a = clustered(4000, 3, rng(21));
  const b = uniform(3000, 3, rng(22));
  const pathA = join(dir, 'a.xyz');
  const pathB = join(dir, 'b.xyz');
  let reference: Awaited<ReturnType<typeof hausdorff>>;

  before(async () => {
    writeXyz(pathA, a);
    writeXyz(pathB, b);
    reference = await hausdorff(a, b, { method: 'brute' });
  });

  it('--json prints one object with the documented keys and the exact distances', () => {
    const r = runXhd(['compare', pathA, pathB, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const j = JSON.parse(r.stdout);
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'witness_ab', 'witness_ba', 'a', 'b', 'method', 'backend', 'bbox_diagonal', 'timings_ms']) {
      assert.ok(key in j, `missing key ${key}`);
    }
    assert.equal(j.hd_ab, reference.ab.distance);
    assert.equal(j.hd_ba, reference.ba!.distance);
    assert.equal(j.hd, reference.hd);
    assert.equal(j.method, 'grid');
    assert.equal(j.backend, probeBackend('cuda').available ? 'cuda' : 'cpu'); // --backend auto
    assert.deepEqual(j.a, { path: pathA, format: 'xyz', points: 4000, dims: 3, triangles: 0, source: 'points', bbox_diagonal: unionDiagonal(a, a), crs: null });
    assert.equal(j.b.points, 3000);
    assert.equal(j.witness_ab.a_index, reference.ab.fromIndex);
    assert.deepEqual(j.witness_ab.a_point, Array.from(a.subarray(3 * reference.ab.fromIndex, 3 * reference.ab.fromIndex + 3)));
    assert.equal(j.witness_ba.b_index, reference.ba!.fromIndex);
    assert.equal(typeof j.witness_ba.a_index, 'number');
    for (const t of ['read', 'build', 'query', 'total']) assert.ok(j.timings_ms[t] >= 0, `timing ${t}`);
    assert.ok(j.timings_ms.total >= j.timings_ms.read);
    assert.ok(Math.abs(j.bbox_diagonal - unionDiagonal(a, b)) < 1e-12, `bbox diagonal ${j.bbox_diagonal}`);
  });

  it('every method gives the same distances (CPU backend, one thread)', () => {
    for (const method of ['eb', 'brute']) {
      const j = JSON.parse(runXhd(['compare', pathA, pathB, '--json', '--method', method, '--threads', '1', '--backend', 'cpu']).stdout);
      assert.equal(j.hd, reference.hd, method);
      assert.equal(j.method, method);
      assert.equal(j.threads, 1);
    }
  });

  it('--threads 2 is reported as 2 threads in JSON and text, in points and surface mode', () => {
    for (const files of [[pathA, pathB], [fixture('cube.off'), fixture('tetra-ascii.ply')]]) {
      const j = JSON.parse(runXhd(['compare', ...files, '--json', '-t', '2', '--backend', 'cpu']).stdout);
      assert.equal(j.threads, 2, files.join(' '));
      const text = runXhd(['compare', ...files, '-t', '2', '--backend', 'cpu']).stdout;
      assert.match(text, / · 2 threads\n/, files.join(' '));
    }
  });

  it('options that do not apply to these inputs or this backend are named in a note, not silently ignored', () => {
    const j = JSON.parse(runXhd(['compare', pathA, pathB, '--json', '--backend', 'cpu', '--label', '3', '--region', 'all', '--device', '1']).stdout);
    assert.ok(j.notes.includes('--label, --region apply to voxel masks (NIfTI, NRRD, MetaImage, DICOM-SEG); neither input is one, so ignored'), j.notes.join('; '));
    assert.ok(j.notes.includes('--device 1 applies to the CUDA backend; the CPU backend measured, so ignored'), j.notes.join('; '));
    const mesh = JSON.parse(runXhd(['compare', fixture('cube.off'), fixture('tetra-ascii.ply'), '--json', '--columns', '0,1,2']).stdout);
    assert.ok(mesh.notes.includes('--columns applies to CSV and XYZ text files; neither input is one, so ignored'), mesh.notes.join('; '));
    const plain = JSON.parse(runXhd(['compare', pathA, pathB, '--json', '--backend', 'cpu']).stdout);
    assert.ok(!plain.notes.some((n: string) => n.includes('ignored')), 'no such note when nothing was ignored');
  });

  it('--directed reports A → B only', () => {
    const j = JSON.parse(runXhd(['compare', pathA, pathB, '--json', '--directed']).stdout);
    assert.equal(j.hd, reference.ab.distance);
    assert.equal(j.hd_ba, null);
    assert.equal(j.witness_ba, null);
    assert.equal(j.directed, true);
  });

  it('the human report leads with the distance, both directions and timings', () => {
    const r = runXhd(['compare', pathA, pathB]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.match(lines[0], /^Hausdorff distance\s+\S+\s+\(\S+% of bbox diagonal \S+\)$/);
    assert.match(r.stdout, /A → B\s+\S+\s+A\[\d+\] \(.+\) → B\[\d+\]/);
    assert.match(r.stdout, /B → A\s+\S+\s+B\[\d+\] \(.+\) → A\[\d+\]/);
    assert.match(r.stdout, /A {2}.*a\.xyz {2}XYZ {2}4,000 points {2}3D/);
    assert.match(r.stdout, /time {3}read .+ · build .+ · query .+ · total .+/);
    assert.doesNotMatch(r.stdout, /\x1b\[/, 'no colour when not a terminal');
    assert.equal(r.stderr, '', 'no progress bar when stderr is not a terminal');
  });

  it('meshes are compared surface to surface, or by their vertices with --vertices-only', { skip: !sharedData('meshes/elephant.off') && 'no ../shared/data' }, () => {
    const files = [sharedData('meshes/elephant.off')!, sharedData('meshes/refined_elephant.off')!];
    const surface = runXhd(['compare', ...files, '--json', '--samples', '20000']);
    assert.equal(surface.code, 0, surface.stderr);
    const s = JSON.parse(surface.stdout);
    assert.equal(s.mode, 'surface');
    assert.equal(s.a.source, 'surface');
    assert.equal(s.samples.a, 20000);
    const r = runXhd(['compare', ...files, '--json', '--vertices-only']);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.mode, 'points');
    assert.equal(j.a.source, 'vertices');
    assert.equal(j.a.points, 2775);
    assert.equal(j.a.triangles, 5558);
    assert.ok(j.notes.some((n: string) => /vertices are compared as points/.test(n)));
  });

  it('a set compared with itself has distance 0 and a coincident witness pair, for every method', () => {
    for (const method of ['grid', 'eb', 'brute']) {
      const r = runXhd(['compare', pathA, pathA, '--json', '-m', method, '--backend', 'cpu']);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      assert.equal(j.hd, 0);
      for (const w of [j.witness_ab, j.witness_ba]) {
        const [from, to] = w.a_index === undefined ? [w.b_point, w.a_point] : [w.a_point, w.b_point];
        assert.ok(w.a_index >= 0 && w.b_index >= 0, method);
        assert.deepEqual(from, to, method);
      }
      const text = runXhd(['compare', pathA, pathA, '-m', method, '--backend', 'cpu']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^Hausdorff distance\s+0\b/);
    }
  });

  it('- reads one input from standard input, in the --format given; the other file keeps its own', () => {
    const text = readFileSync(pathA, 'utf8');
    const j = JSON.parse(runXhd(['compare', '-', pathB, '--format', 'xyz', '--json'], {}, text).stdout);
    assert.equal(j.hd, reference.hd);
    assert.equal(j.a.path, '-');
    const mesh = JSON.parse(runXhd(['compare', '-', fixture('cube.off'), '--format', 'xyz', '--vertices-only', '--json'], {}, '0 0 0\n1 0 0\n').stdout);
    assert.equal(mesh.hd_ab, 0);
    assert.equal(mesh.hd_ba, Math.SQRT2);
    const noFormat = runXhd(['compare', '-', pathB], {}, text);
    assert.equal(noFormat.code, 2);
    assert.match(noFormat.stderr, /standard input .* needs --format/);
    const both = runXhd(['compare', '-', '-', '--format', 'xyz'], {}, text);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /only one input can be standard input/);
  });

  it('2D inputs report 2D witnesses', () => {
    const dir2 = scratchDir();
    writeFileSync(join(dir2, 'p.csv'), 'x,y\n0,0\n1,0\n0,1\n');
    writeFileSync(join(dir2, 'q.csv'), 'x,y\n0,0\n3,4\n');
    const j = JSON.parse(runXhd(['compare', join(dir2, 'p.csv'), join(dir2, 'q.csv'), '--json']).stdout);
    assert.equal(j.hd_ab, 1);
    assert.equal(j.hd_ba, Math.sqrt(18)); // (3,4) is nearest to (0,1)
    assert.deepEqual(j.witness_ba, { b_index: 1, b_point: [3, 4], a_index: 2, a_point: [0, 1] });
    assert.equal(j.a.dims, 2);
  });
});

describe('xhd exit codes and errors', () => {
  const dir = scratchDir();
  const good = join(dir, 'good.xyz');
  writeXyz(good, uniform(10, 3, rng(5)));

  function assertUsageError(args: string[], pattern: RegExp) {
    const r = runXhd(args);
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stdout, '');
    assert.ok(!hasStackTrace(r.stderr), r.stderr);
  }

  it('usage errors exit 2', () => {
    assertUsageError(['compare', good], /missing required argument 'b'/);
    assertUsageError(['compare', good, good, '--method', 'fast'], /Allowed choices are grid, eb, brute/);
    assertUsageError(['compare', good, good, '--threads', 'many'], /expected an integer/);
    assertUsageError(['compare', good, good, '--threads', '0'], /from 1 to 4096/);
    assertUsageError(['compare', good, good, '--frobnicate'], /unknown option/);
    assertUsageError(['compare', good, good, '--backend', 'quantum'], /Allowed choices are auto, cpu/);
    assertUsageError(['frobnicate'], /unknown command/);
    assertUsageError([], /Usage: xhd/);
  });

  it('input errors exit 2 with one line naming the file', () => {
    const missing = join(dir, 'missing.ply');
    const r = runXhd(['compare', missing, good]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`^xhd: .*missing\\.ply`));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);

    const bad = join(dir, 'bad.xyz');
    writeFileSync(bad, '0 0 0\n1 nan 1\n');
    const r2 = runXhd(['compare', good, bad]);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /bad\.xyz:2/);
    assert.equal(r2.stderr.trim().split('\n').length, 1, r2.stderr);
  });

  it('coordinates too large for exact distances exit 2, naming the file and line', () => {
    const huge = join(dir, 'huge.xyz');
    writeFileSync(huge, '0 0 0\n3e18 0 0\n');
    const r = runXhd(['compare', good, huge]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /huge\.xyz:2: .*beyond ±1e15/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('an empty input exits 2', () => {
    const empty = join(dir, 'empty.xyz');
    writeFileSync(empty, '# no points here\n');
    const r = runXhd(['compare', good, empty]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /empty\.xyz.*has no points/);
  });

  it('classic Mac (CR-only) line ends read every point, natively and in TypeScript (issue 30)', () => {
    const mac = join(dir, 'mac.xyz');
    const origin = join(dir, 'origin.xyz');
    writeFileSync(mac, '0 0 0\r10 0 0\r');
    writeFileSync(origin, '0 0 0\n');
    for (const env of [{}, { XHD_NATIVE_READ: '0' }] as Record<string, string>[]) {
      const r = runXhd(['compare', mac, origin, '--json'], env);
      assert.equal(r.code, 0, r.stderr);
      const j = JSON.parse(r.stdout);
      assert.equal(j.hd, 10, `${JSON.stringify(env)}: both points read, the second at distance 10`);
      assert.equal(j.a.points, 2, JSON.stringify(j.a));
    }
    const bad = join(dir, 'mac-bad.csv');
    writeFileSync(bad, '0,0,0\r1,2,3\r4,x,6\r');
    const r = runXhd(['compare', bad, origin]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^xhd: .*mac-bad\.csv:3: expected a number, found 'x'$/m);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('a single line of thousands of values (no line breaks) exits 2 naming the file and line', () => {
    const flat = join(dir, 'one-line.xyz');
    writeFileSync(flat, Array.from({ length: 3000 }, (_, i) => i % 97).join(' ') + '\n');
    for (const env of [{}, { XHD_NATIVE_READ: '0' }] as Record<string, string>[]) {
      const r = runXhd(['compare', flat, good], env);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /one-line\.xyz:1: line holds 3,000 values and no row follows it: the file seems to have no line breaks/);
      assert.equal(r.stdout, '');
    }
  });

  it('2D against 3D exits 2', () => {
    const flat = join(dir, 'flat.csv');
    writeFileSync(flat, '0,0\n1,1\n');
    const r = runXhd(['compare', flat, good]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is 2D but .* is 3D/);
  });

  it('--version and --help exit 0', () => {
    const v = runXhd(['--version']);
    assert.equal(v.code, 0);
    assert.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
    const h = runXhd(['compare', '--help']);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /Examples:/);
    assert.match(h.stdout, /--method <method>/);
  });
});
