// Exact over the input's own coordinates (issue: survey coordinates): every method and thread count gives
// the double-precision brute force's distances and witnesses on UTM-like data, near-ties and exact ties
// included; results do not move with a translation; the CLI reads text as doubles and reports the origin
// it searched from. Surface mode and `distance` at large offsets measure what they measure at the origin.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { hausdorff, type Method } from '../src/ops/hausdorff.js';
import { nearestDistances } from '../src/ops/nearest.js';
import { runXhd, scratchDir } from './cli-run.js';
import {
  assertExact, bruteDirected, bruteNearest, dyadicCloud, translated, UTM_OFFSET, utmExactTies, utmNearTies, utmShiftedTile,
} from './exact-cases.js';
import { writeNifti } from './nifti-writer.js';
import { uvSphere, writeOff } from './test-meshes.js';
import type { TriangleMesh } from '../src/ops/surface-distance.js';

const METHODS: Method[] = ['grid', 'eb', 'brute'];

function writeText(path: string, p: Float64Array, dims: 2 | 3, decimals: number): void {
  const lines: string[] = [];
  for (let i = 0; i < p.length; i += 3) {
    const row = [p[i], p[i + 1], p[i + 2]].slice(0, dims).map((v) => v.toFixed(decimals));
    lines.push(row.join(' '));
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

describe('exact over survey coordinates: every CPU method and thread count equals the double brute force', () => {
  const cases: Array<[string, () => [Float64Array, Float64Array]]> = [
    ['a 100 m tile and its copy moved 12 mm (3D)', () => utmShiftedTile(3000, 1)],
    ['the same in 2D', () => utmShiftedTile(3000, 2, 2)],
    ['near-ties below float32 resolution (3D)', () => utmNearTies(2000, 3)],
    ['near-ties in 2D', () => utmNearTies(2000, 4, 2)],
    ['exact ties: every nearest distance is 1/8', () => utmExactTies(2000, 5)],
  ];
  for (const [name, make] of cases) {
    it(name, async () => {
      const [a, b] = make();
      for (const method of METHODS) {
        for (const threads of [1, 2]) {
          const r = await hausdorff(a, b, { method, threads, backend: 'cpu' });
          assertExact(r, a, b, `${name}, ${method}, ${threads} threads`);
          assert.ok(r.coordinateOrigin.every((v, k) => Math.abs(v - UTM_OFFSET[k]) < 200), `origin ${r.coordinateOrigin}`);
        }
      }
    });
  }

  it('the near-tie case needs the double search: float32 in the same frame names another witness', async () => {
    const [a, b] = utmNearTies(2000, 3);
    const exact = await hausdorff(a, b, { method: 'grid', backend: 'cpu' });
    const o = exact.coordinateOrigin;
    const rounded = (p: Float64Array) => Float32Array.from(translated(p, [-o[0], -o[1], -o[2]]));
    const floatOnly = bruteDirected(rounded(a), rounded(b));
    assert.notEqual(floatOnly.fromIndex, exact.ab.fromIndex, 'float32 alone happened to pick the right witness');
    assert.ok(exact.ab.exactChecks > 1, 'several candidates were settled in double');
  });

  it('ties go to the smallest index on both sides, for every method', async () => {
    const [a, b] = utmExactTies(500, 6);
    for (const method of METHODS) {
      const r = await hausdorff(a, b, { method, backend: 'cpu' });
      assert.equal(r.ab.distance, 0.125);
      assert.deepEqual([r.ab.fromIndex, r.ab.toIndex], [0, 0], method);
    }
  });

  it('per-point nearest distances and indices equal the brute force (grid and brute methods)', async () => {
    for (const [a, b] of [utmNearTies(1500, 7), utmExactTies(1500, 8), utmShiftedTile(1500, 9, 2)]) {
      const reference = bruteNearest(a, b);
      for (const method of ['grid', 'brute'] as const) {
        for (const threads of [1, 2]) {
          const r = await nearestDistances(a, b, { method, threads, indices: true });
          for (let i = 0; i < reference.d2.length; i++) {
            assert.equal(r.distances[i], Math.sqrt(reference.d2[i]), `${method} point ${i}`);
            assert.equal(Number(r.nearest![i]), reference.index[i], `${method} point ${i}'s nearest`);
          }
        }
      }
    }
  });

  it('float32 inputs are their own truth: the answer is the brute force over the floats', async () => {
    const [a64, b64] = utmNearTies(1500, 10);
    const a = Float32Array.from(a64), b = Float32Array.from(b64);
    for (const method of ['grid', 'eb'] as const) {
      const r = await hausdorff(a, b, { method, backend: 'cpu' });
      assertExact(r, a, b, `float32 ${method}`);
      assert.deepEqual(r.coordinateOrigin, [0, 0, 0]);
    }
  });
});

describe('translation invariance', () => {
  it('the same data at the origin and moved by (5e5, 4.2e6, 100) give the same results', async () => {
    const a = dyadicCloud(4000, 11), b = dyadicCloud(3000, 12);
    const [fa, fb] = [translated(a, UTM_OFFSET), translated(b, UTM_OFFSET)];
    for (const method of ['grid', 'eb'] as const) {
      const here = await hausdorff(a, b, { method, backend: 'cpu' });
      const there = await hausdorff(fa, fb, { method, backend: 'cpu' });
      for (const key of ['distance', 'fromIndex', 'toIndex'] as const) {
        assert.equal(there.ab[key], here.ab[key], `${method} A→B ${key}`);
        assert.equal(there.ba![key], here.ba![key], `${method} B→A ${key}`);
      }
    }
    const near = await nearestDistances(a, b, { indices: true });
    const farther = await nearestDistances(fa, fb, { indices: true });
    assert.deepEqual(farther.distances, near.distances);
    assert.deepEqual(farther.nearest, near.nearest);
  });

  it('--stats through the CLI: the same statistics and witnesses from text files at both places', () => {
    // Coordinates on a 2^-10 grid print exactly with 10 decimals and move exactly: the files state the same
    // shapes. (A general 4-decimal file moved by 4.2e6 states other numbers: its doubles are 1e-9 apart.)
    const dir = scratchDir();
    const a = dyadicCloud(3000, 13), b = dyadicCloud(2500, 14);
    writeText(join(dir, 'near-a.xyz'), a, 3, 10);
    writeText(join(dir, 'near-b.xyz'), b, 3, 10);
    writeText(join(dir, 'far-a.xyz'), translated(a, UTM_OFFSET), 3, 10);
    writeText(join(dir, 'far-b.xyz'), translated(b, UTM_OFFSET), 3, 10);
    const run = (x: string, y: string) => {
      const r = runXhd(['compare', join(dir, x), join(dir, y), '--json', '--stats', '--percentile', '95', '--backend', 'cpu']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const far = run('far-a.xyz', 'far-b.xyz'), near = run('near-a.xyz', 'near-b.xyz');
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'hd95', 'assd', 'mean_ab', 'mean_ba']) {
      assert.ok(Math.abs(far[key] - near[key]) <= 1e-9 * near[key], `${key}: ${far[key]} vs ${near[key]}`);
    }
    assert.equal(far.witness_ab.a_index, near.witness_ab.a_index);
    assert.equal(far.witness_ab.b_index, near.witness_ab.b_index);
    assert.equal(far.witness_ba.b_index, near.witness_ba.b_index);
  });
});

describe('xhd compare on survey text files', () => {
  it("gives the double brute force's 0.012000000046 for the issue's tile, and reports the origin it searched from", () => {
    const dir = scratchDir();
    const [a, b] = utmShiftedTile(3000, 14);
    writeText(join(dir, 'utm_a.xyz'), a, 3, 4);
    writeText(join(dir, 'utm_b.xyz'), b, 3, 4);
    const reference = Math.max(bruteDirected(a, b).distance, bruteDirected(b, a).distance);
    assert.ok(Math.abs(reference - 0.012000000046) < 1e-11, `reference ${reference}`);
    for (const method of METHODS) {
      const r = runXhd(['compare', join(dir, 'utm_a.xyz'), join(dir, 'utm_b.xyz'), '--json', '--backend', 'cpu', '--method', method]);
      assert.equal(r.code, 0, r.stderr);
      const json = JSON.parse(r.stdout);
      assert.equal(json.hd, reference, method);
      assert.equal(json.coordinate_origin.length, 3);
      assert.ok(Math.abs(json.coordinate_origin[1] - 4_200_050) < 60, `origin ${json.coordinate_origin}`);
      // Witness points are the file's values, not values relative to the origin.
      const i = json.witness_ab.a_index;
      assert.deepEqual(json.witness_ab.a_point, [a[3 * i], a[3 * i + 1], a[3 * i + 2]]);
    }
    // The text report prints survey coordinates to their tenths of a millimetre, not rounded to metres.
    const text = runXhd(['compare', join(dir, 'utm_a.xyz'), join(dir, 'utm_b.xyz'), '--backend', 'cpu']);
    assert.equal(text.code, 0, text.stderr);
    const witness = JSON.parse(runXhd(['compare', join(dir, 'utm_a.xyz'), join(dir, 'utm_b.xyz'), '--json', '--backend', 'cpu']).stdout).witness_ab;
    assert.ok(text.stdout.includes(`(${witness.a_point.map(String).join(', ')})`), text.stdout);
  });
});

describe('surface mode and distance at large offsets', () => {
  const dir = scratchDir();
  const inner = uvSphere(1, 24, 48), outer = uvSphere(1.01, 24, 48);
  // writeOff prints the doubles as they are: the moved files state the moved values exactly.
  const movedMesh = (m: TriangleMesh) =>
    ({ positions: translated(Float64Array.from(m.positions), UTM_OFFSET), triangles: m.triangles }) as unknown as TriangleMesh;
  writeOff(join(dir, 'inner.off'), inner);
  writeOff(join(dir, 'outer.off'), outer);
  writeOff(join(dir, 'inner-far.off'), movedMesh(inner));
  writeOff(join(dir, 'outer-far.off'), movedMesh(outer));
  const json = (args: string[]) => {
    const r = runXhd([...args, '--json', '--backend', 'cpu']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  it('two concentric UV spheres give the same surface HD at the origin and at (5e5, 4.2e6, 100)', () => {
    const here = json(['compare', join(dir, 'inner.off'), join(dir, 'outer.off'), '--samples', '20000']);
    const there = json(['compare', join(dir, 'inner-far.off'), join(dir, 'outer-far.off'), '--samples', '20000']);
    assert.ok(here.hd > 0.0099 && here.hd < 0.0101, `at the origin: ${here.hd}`);
    // Distances are evaluated over the doubles; what differs is where the samples land: a sample computed at
    // 4.2e6 rounds to a double's step there (2^-30 m), as do the moved vertices the files state.
    assert.ok(Math.abs(there.hd - here.hd) <= 1e-8, `moved: ${there.hd}, at the origin: ${here.hd}`);
    assert.ok(Math.abs(there.coordinate_origin[0] - UTM_OFFSET[0]) < 1, `origin ${there.coordinate_origin}`);
    // The witness is reported where the file puts it, near the moved centre.
    assert.ok(Math.abs(there.witness_ab.a_point[1] - UTM_OFFSET[1]) < 1.1, `witness ${there.witness_ab.a_point}`);
  });

  it('xhd distance: minimum and maximum between the moved meshes equal those at the origin', () => {
    const here = json(['distance', join(dir, 'inner.off'), join(dir, 'outer.off'), '--both']);
    const there = json(['distance', join(dir, 'inner-far.off'), join(dir, 'outer-far.off'), '--both']);
    assert.ok(Math.abs(there.min_distance - here.min_distance) <= 1e-6, `${there.min_distance} vs ${here.min_distance}`);
    assert.ok(Math.abs(there.max_distance - here.max_distance) <= 1e-6, `${there.max_distance} vs ${here.max_distance}`);
    assert.ok(Math.abs(there.min_pair.a_point[0] - UTM_OFFSET[0]) < 1.1, `min pair ${there.min_pair.a_point}`);
  });
});

describe('masks whose affine has a large translation', () => {
  it('give the same HD, HD95 and ASSD as at the origin (NIfTI-2, float64 sform)', () => {
    const dir = scratchDir();
    const dims = [40, 40, 30];
    const ball = (centre: number[], radius: number) => {
      const values = new Uint8Array(dims[0] * dims[1] * dims[2]);
      let n = 0;
      for (let k = 0; k < dims[2]; k++) for (let j = 0; j < dims[1]; j++) for (let i = 0; i < dims[0]; i++, n++) {
        if ((i - centre[0]) ** 2 + (j - centre[1]) ** 2 + ((k - centre[2]) * 1.5) ** 2 <= radius ** 2) values[n] = 1;
      }
      return values;
    };
    const write = (name: string, values: Uint8Array, t: number[]) => {
      const path = join(dir, name);
      // 0.5 × 0.5 × 0.75 mm voxels: every centre, moved or not, is exact in double.
      writeNifti(path, { dims, values, version: 2, spacing: [0.5, 0.5, 0.75], sform: { rows: [0.5, 0, 0, t[0], 0, 0.5, 0, t[1], 0, 0, 0.75, t[2]] } });
      return path;
    };
    const a = ball([19, 20, 14], 11), b = ball([21, 19, 15], 12);
    const far = [500_000.5, 4_200_000.25, 100.125];
    const run = (x: string, y: string) => {
      const r = runXhd(['compare', x, y, '--json', '--stats', '--percentile', '95', '--backend', 'cpu']);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const near = run(write('a.nii', a, [0, 0, 0]), write('b.nii', b, [0, 0, 0]));
    const moved = run(write('a-far.nii', a, far), write('b-far.nii', b, far));
    assert.ok(near.hd > 0.5, `hd ${near.hd}`);
    for (const key of ['hd', 'hd_ab', 'hd_ba', 'hd95', 'assd']) assert.equal(moved[key], near[key], key);
    assert.equal(moved.witness_ab.a_index, near.witness_ab.a_index);
    assert.deepEqual(moved.witness_ab.a_point, near.witness_ab.a_point.map((v: number, k: number) => v + far[k]));
  });
});

