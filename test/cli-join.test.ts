// `xhd join` end to end: the filtered join equals the brute-force reference (every triangle pair of every
// object pair) for every predicate, self-join included, on collections given as directories, manifests and
// multi-object files; the output formats; and every bad input (exit 2, one line naming the file and line).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { hasStackTrace, runXhd, scratchDir } from './cli-run.js';
import { rng } from './random-points.js';
import { cube, uvSphere, writeOff } from './test-meshes.js';

type Mesh = { positions: Float32Array | Float64Array; triangles: Uint32Array };

function shifted(mesh: Mesh, d: [number, number, number], scale = 1): Mesh {
  const p = new Float64Array(mesh.positions.length);
  for (let i = 0; i < p.length; i++) p[i] = mesh.positions[i] * scale + d[i % 3];
  return { positions: p, triangles: mesh.triangles };
}

function merged(meshes: Mesh[]): Mesh {
  const positions: number[] = [];
  const triangles: number[] = [];
  for (const m of meshes) {
    const base = positions.length / 3;
    positions.push(...m.positions);
    for (const t of m.triangles) triangles.push(t + base);
  }
  return { positions: new Float64Array(positions), triangles: new Uint32Array(triangles) };
}

/**
 * A scene of spheres and cubes: random ones that cross, touch or lie apart, a small sphere nested inside a
 * big one (surfaces apart), and a cube repeated 3 apart on both sides of another (equal distances: ties).
 */
function scene(seed: number, count: number): Mesh[] {
  const random = rng(seed);
  const out: Mesh[] = [];
  for (let i = 0; i < count; i++) {
    const at: [number, number, number] = [random() * 10, random() * 10, random() * 10];
    out.push(i % 2 === 0 ? shifted(uvSphere(0.5 + random(), 5, 7), at) : shifted(cube(0.4 + random() * 0.5), at));
  }
  out.push(shifted(uvSphere(2, 6, 8), [20, 20, 20]), shifted(uvSphere(0.5, 4, 6), [20, 20, 20]));
  for (const x of [30, 33, 36]) out.push(shifted(cube(1), [x, 0, 0]));
  return out;
}

function writeDirectory(dir: string, meshes: Mesh[], prefix: string): void {
  mkdirSync(dir, { recursive: true });
  meshes.forEach((m, i) => writeOff(join(dir, `${prefix}${String(i).padStart(3, '0')}.off`), m));
}

function joinOut(args: string[]): string {
  const r = runXhd(['join', ...args, '-q']);
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  assert.equal(r.stderr, '');
  return r.stdout;
}

function jsonRows(text: string) {
  return text.trim() === '' ? [] : text.trim().split('\n').map((l) => JSON.parse(l));
}

const dir = scratchDir();
const dirA = join(dir, 'a'), dirB = join(dir, 'b');
writeDirectory(dirA, scene(1, 24), 'a');
writeDirectory(dirB, scene(2, 20), 'b');

describe('xhd join equals the brute-force reference', () => {
  const predicates = [['--intersects'], ['--within', '0.75'], ['--knn', '3']];
  for (const predicate of predicates) {
    for (const [name, a, b] of [['A × B', dirA, dirB], ['self-join', dirA, dirA]] as const) {
      it(`${predicate.join(' ')}, ${name}`, () => {
        for (const output of ['csv', 'json']) {
          const fast = joinOut([a, b, ...predicate, '--output', output]);
          const slow = joinOut([a, b, ...predicate, '--output', output, '--method', 'brute']);
          assert.equal(fast, slow);
          assert.ok(fast.split('\n').length > 3, 'the case finds pairs: the comparison is not vacuous');
          const small = joinOut([a, b, ...predicate, '--output', output, '--group-size', '3', '--threads', '1']);
          assert.equal(small, slow, 'any facet-group size gives the same answer');
        }
      });
    }
  }
});

describe('xhd join output', () => {
  it('within: each pair once, a_id < b_id in a self-join, points as far apart as the distance', () => {
    const rows = jsonRows(joinOut([dirA, dirA, '--within', '1', '--output', 'json']));
    assert.ok(rows.length > 0);
    const seen = new Set<string>();
    for (const r of rows) {
      assert.ok(r.a_id < r.b_id, `${r.a_id} ${r.b_id}`);
      assert.ok(r.distance <= 1);
      const d = Math.hypot(r.a_point[0] - r.b_point[0], r.a_point[1] - r.b_point[1], r.a_point[2] - r.b_point[2]);
      assert.ok(Math.abs(d - r.distance) <= 1e-12 * (1 + r.distance));
      assert.ok(!seen.has(`${r.a_id} ${r.b_id}`));
      seen.add(`${r.a_id} ${r.b_id}`);
    }
  });

  it('nested surfaces do not intersect; touching ones do', () => {
    // The nested sphere of scene 1 is object a025 inside a024: apart, at distance 1.5 - sagitta.
    const rows = jsonRows(joinOut([dirA, dirA, '--intersects', '--output', 'json']));
    assert.ok(!rows.some((r) => r.a_id === 'a024' && r.b_id === 'a025'));
    const near = jsonRows(joinOut([dirA, dirA, '--within', '2', '--output', 'json']));
    assert.ok(near.some((r) => r.a_id === 'a024' && r.b_id === 'a025' && r.distance > 1));
    // Cubes of half-size 1 at x = 30 and 33 lie 1 apart; intersects lists crossings with a shared point.
    for (const r of rows) assert.deepEqual(Object.keys(r), ['a_id', 'b_id', 'a_triangle', 'b_triangle', 'point']);
  });

  it('k-NN: k rows per object of A, nearest first, ties to the smaller id', () => {
    const rows = jsonRows(joinOut([dirA, dirA, '--knn', '2', '--output', 'json']));
    const byA = new Map<string, { b_id: string; distance: number }[]>();
    for (const r of rows) {
      assert.notEqual(r.a_id, r.b_id);
      if (!byA.has(r.a_id)) byA.set(r.a_id, []);
      byA.get(r.a_id)!.push(r);
    }
    assert.equal(byA.size, 29);
    for (const list of byA.values()) {
      assert.equal(list.length, 2);
      assert.ok(list[0].distance <= list[1].distance);
    }
    // The middle cube (a027 at x = 33) is 1 from a026 and a028: the tie goes to a026 first.
    assert.deepEqual(byA.get('a027')!.map((r) => [r.b_id, r.distance]), [['a026', 1], ['a028', 1]]);
    assert.deepEqual(byA.get('a026')!.map((r) => r.b_id), ['a027', 'a028']);
  });

  it('CSV has a header and quotes ids that need it; --count prints the number of pairs', () => {
    const csv = joinOut([dirA, dirB, '--within', '0.75']);
    const lines = csv.trim().split('\n');
    assert.equal(lines[0], 'a_id,b_id,distance,a_triangle,b_triangle,a_x,a_y,a_z,b_x,b_y,b_z');
    assert.equal(joinOut([dirA, dirB, '--within', '0.75', '--count']).trim(), String(lines.length - 1));
    const far = join(dir, 'far');
    writeDirectory(far, [shifted(cube(1), [1000, 0, 0])], 'far');
    assert.equal(joinOut([dirA, far, '--within', '1']), 'a_id,b_id,distance,a_triangle,b_triangle,a_x,a_y,a_z,b_x,b_y,b_z\n', 'no pairs: the header alone');
    const quoted = join(dir, 'quoted.csv');
    writeFileSync(quoted, 'path,id\na/a000.off,"one, two"\na/a001.off,plain\n');
    const out = joinOut([quoted, quoted, '--knn', '1']);
    assert.ok(out.includes('"one, two",plain,'), out);
  });

  it('the summary on stderr counts pairs and work', () => {
    const r = runXhd(['join', dirA, dirB, '--within', '0.75', '--count']);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /pairs within 0\.75/);
    assert.match(r.stderr, /object pairs past the box filter/);
  });
});

describe('xhd join collections', () => {
  it('a manifest (CSV or JSON Lines) equals the directory it lists; ids from the id column or the path', () => {
    const csv = join(dir, 'm.csv'), jsonl = join(dir, 'm.jsonl');
    const names = Array.from({ length: 29 }, (_, i) => `a${String(i).padStart(3, '0')}`);
    writeFileSync(csv, 'id,path\n# a comment\n' + names.map((n) => `${n},a/${n}.off`).join('\n') + '\n');
    writeFileSync(jsonl, names.map((n) => JSON.stringify({ path: `a/${n}.off`, id: n })).join('\n') + '\n');
    const expected = joinOut([dirA, dirB, '--within', '1']);
    assert.equal(joinOut([csv, dirB, '--within', '1']), expected);
    assert.equal(joinOut([jsonl, dirB, '--within', '1']), expected);
    const noIds = join(dir, 'paths.csv');
    writeFileSync(noIds, 'path\na/a000.off\na/a001.off\n');
    const rows = jsonRows(joinOut([noIds, noIds, '--knn', '1', '--output', 'json']));
    assert.deepEqual(rows.map((r) => r.a_id), ['a/a000.off', 'a/a001.off']);
  });

  it('a multi-object file: connected components as name#k, or OBJ groups as name#group', () => {
    const parts = [shifted(cube(1), [0, 0, 0]), shifted(cube(1), [1.5, 0, 0]), shifted(cube(1), [10, 0, 0])];
    const file = join(dir, 'parts.off');
    writeOff(file, merged(parts));
    const rows = jsonRows(joinOut([file, file, '--intersects', '--output', 'json']));
    assert.deepEqual(rows.map((r) => [r.a_id, r.b_id]), [['parts#0', 'parts#1']]);
    const m = merged(parts);
    const obj = join(dir, 'groups.obj');
    const lines: string[] = [];
    for (let i = 0; i < m.positions.length; i += 3) lines.push(`v ${m.positions[i]} ${m.positions[i + 1]} ${m.positions[i + 2]}`);
    // Groups: the first two cubes together ("left"), the third alone ("right").
    for (let t = 0; t < m.triangles.length / 3; t++) {
      if (t === 0) lines.push('g left');
      if (t === 24) lines.push('o right');
      lines.push(`f ${m.triangles[3 * t] + 1} ${m.triangles[3 * t + 1] + 1} ${m.triangles[3 * t + 2] + 1}`);
    }
    writeFileSync(obj, lines.join('\n') + '\n');
    const grouped = jsonRows(joinOut([obj, obj, '--knn', '1', '--output', 'json', '--objects', 'groups']));
    assert.deepEqual(grouped.map((r) => [r.a_id, r.b_id, r.distance]), [['groups#left', 'groups#right', 6.5], ['groups#right', 'groups#left', 6.5]]);
    const byComponents = jsonRows(joinOut([obj, obj, '--intersects', '--output', 'json']));
    assert.deepEqual(byComponents.map((r) => [r.a_id, r.b_id]), [['groups#0', 'groups#1']]);
  });
});

describe('xhd join refuses bad input (exit 2, one line naming the file and line)', () => {
  const bad = (args: string[], pattern: RegExp) => {
    const r = runXhd(['join', ...args]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, pattern);
    assert.equal(r.stdout, '', 'no partial output');
    assert.ok(!hasStackTrace(r.stderr));
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  };
  const manifest = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('a missing file in a manifest', () => {
    const m = manifest('missing.csv', 'path\na/a000.off\na/nothere.off\n');
    bad([m, dirB, '--intersects'], /missing\.csv:3: a\/nothere\.off: no such file/);
  });
  it('an id repeated in a manifest', () => {
    bad([manifest('repeat.csv', 'path,id\na/a000.off,x\na/a001.off,y\na/a002.off,x\n'), dirB, '--intersects'], /repeat\.csv:4: id 'x' repeats line 2/);
    bad([manifest('repeat.jsonl', '{"path":"a/a000.off","id":"x"}\n\n{"path":"a/a001.off","id":"x"}\n'), dirB, '--intersects'], /repeat\.jsonl:3: id 'x' repeats line 1/);
  });
  it('an object with no faces', () => {
    const points = join(dir, 'points.off');
    writeFileSync(points, 'OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n');
    bad([manifest('nofaces.csv', 'path\na/a000.off\npoints.off\n'), dirB, '--intersects'], /nofaces\.csv:3: points\.off has no faces/);
    const d = join(dir, 'withpoints');
    mkdirSync(d);
    writeFileSync(join(d, 'p.off'), 'OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n');
    bad([d, dirB, '--intersects'], /p\.off: has no faces/);
    bad([points, points, '--intersects'], /points\.off: has no faces/);
  });
  it('bad manifest lines', () => {
    bad([manifest('noheader.csv', 'a/a000.off\n'), dirB, '--intersects'], /noheader\.csv:1: expected a header line naming a `path` column/);
    bad([manifest('badjson.jsonl', '{"path":"a/a000.off"}\n{"path":\n'), dirB, '--intersects'], /badjson\.jsonl:2: not JSON/);
  });
  it('K <= 0, D < 0, no predicate or two, a collection that does not exist', () => {
    bad([dirA, dirB, '--knn', '0'], /--knn.*expected an integer k >= 1/);
    bad([dirA, dirB, '--knn', '-2'], /--knn.*expected an integer k >= 1/);
    bad([dirA, dirB, '--within', '-1'], /--within.*expected a distance >= 0/);
    bad([dirA, dirB], /exactly one of --intersects, --within D or --knn K/);
    bad([dirA, dirB, '--intersects', '--knn', '2'], /exactly one of/);
    bad([join(dir, 'nowhere'), dirB, '--intersects'], /nowhere: no such file or directory/);
  });
  it('--objects groups on a file that is not OBJ', () => {
    bad([join(dirA, 'a000.off'), dirB, '--intersects', '--objects', 'groups'], /--objects groups reads OBJ o\/g groups/);
  });
});
