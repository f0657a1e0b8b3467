// Penetration facts (`xhd distance --penetration`, MeshDistance's penetration option): for closed meshes, whether
// the solids overlap and bounds on the penetration depth. Random overlapping boxes against the depth computed here
// from its definition (for two boxes, the least overlap along the three axes: no other direction separates two
// axis-aligned boxes with less); the fast method equal to the every-triangle reference; bounds that hold for a
// torus (moved a little less than the lower bound it still overlaps, a little more than the upper bound along the
// direction given it is apart); the JSON and text reports; and the refusals.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { MeshDistance, type DistanceMesh, type Pose } from '../src/ops/mesh-distance.js';
import { runXhd, scratchDir } from './cli-run.js';
import { cube, torus, uvSphere, writeOff } from './test-meshes.js';

const shift = (dx: number, dy = 0, dz = 0): Pose => Float64Array.from([1, 0, 0, dx, 0, 1, 0, dy, 0, 0, 1, dz]);

async function factsOf(a: DistanceMesh, b: DistanceMesh, p: Pose, method: 'bvh' | 'brute' = 'bvh', threads = 2) {
  const context = await MeshDistance.create(a, b, { min: true, penetration: true, method, threads });
  try {
    return await context.query(p);
  } finally {
    context.close();
  }
}

/** A box [lo, hi] as 12 triangles, wound counterclockwise seen from outside (as cube() is). */
function box(lo: number[], hi: number[]): DistanceMesh {
  const positions: number[] = [];
  for (let i = 0; i < 8; i++) positions.push(i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]);
  return { positions: Float64Array.from(positions), triangles: cube(1).triangles };
}

/** Two boxes' penetration depth from its definition: the least move along an axis that parts them (0 when apart). */
function boxDepth(alo: number[], ahi: number[], blo: number[], bhi: number[]): number {
  let depth = Infinity;
  for (let k = 0; k < 3; k++) depth = Math.min(depth, Math.max(0, Math.min(ahi[k] - blo[k], bhi[k] - alo[k])));
  return depth;
}

describe('distance penetration (library)', () => {
  it('finds the depth of random overlapping boxes, both methods alike, bounds meeting', async () => {
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let i = 0; i < 8; i++) {
      const alo = [0, 1, 2].map(() => random() * 2), blo = [0, 1, 2].map(() => random() * 2);
      const ahi = alo.map((x) => x + 1 + random() * 2), bhi = blo.map((x) => x + 1 + random() * 2);
      const expected = boxDepth(alo, ahi, blo, bhi);
      const fast = await factsOf(box(alo, ahi), box(blo, bhi), shift(0));
      const reference = await factsOf(box(alo, ahi), box(blo, bhi), shift(0), 'brute', 1);
      assert.deepEqual(fast.penetration, reference.penetration);
      const p = fast.penetration!;
      assert.equal(p.convex, true);
      assert.equal(p.solids, expected > 0 ? 'overlap' : 'apart', `box pair ${i}`);
      assert.ok(p.lower! <= expected && expected <= p.upper!, `box pair ${i}: ${expected} not in [${p.lower}, ${p.upper}]`);
      assert.ok(p.upper! - p.lower! <= 1e-10, `box pair ${i}: bounds ${p.lower}, ${p.upper} do not meet`);
    }
  });

  it('gives bounds that hold for a torus and a ball through its tube', async () => {
    const ring = torus(2, 0.6, 48, 16), ball = uvSphere(0.5, 10, 16);
    const q = await factsOf(ring, ball, shift(2, 0.3, 0.2));
    assert.deepEqual(q.penetration, (await factsOf(ring, ball, shift(2, 0.3, 0.2), 'brute')).penetration);
    const p = q.penetration!;
    assert.equal(p.solids, 'overlap');
    assert.equal(p.convex, false);
    assert.ok(p.lower! > 0.2 && p.lower! <= p.upper!);
    for (const [x, y, z] of [[1, 0, 0], [0, 1, 0], [0, 0, -1], [0.6, -0.8, 0]]) {
      const t = 0.98 * p.lower!;
      const near = await factsOf(ring, ball, shift(2 + t * x, 0.3 + t * y, 0.2 + t * z));
      assert.notEqual(near.penetration!.solids, 'apart', `moved ${t} along ${[x, y, z]}`);
    }
    const [ux, uy, uz] = p.direction!, t = p.upper! + 1e-6;
    const far = await factsOf(ring, ball, shift(2 + t * ux, 0.3 + t * uy, 0.2 + t * uz));
    assert.equal(far.penetration!.solids, 'apart');
  });

  it('says nothing of open meshes and is refused without the minimum or on the CUDA backend', async () => {
    const a = cube(1), open = { positions: a.positions, triangles: a.triangles.subarray(0, 33) };
    const q = await factsOf(open, a, shift(0.5));
    assert.deepEqual(q.penetration, { solids: 'open', closed: { a: false, b: true }, convex: false, lower: null, upper: null, direction: null });
    await assert.rejects(MeshDistance.create(a, a, { max: true, min: false, penetration: true }), /come with the minimum/);
    await assert.rejects(MeshDistance.create(a, a, { penetration: true, backend: 'cuda' }), /CPU backend only/);
  });
});

describe('xhd distance --penetration', () => {
  const dir = scratchDir();
  const a = join(dir, 'a.off'), b = join(dir, 'b.off'), sheet = join(dir, 'sheet.off');
  writeOff(a, cube(1));
  writeOff(b, cube(0.5));
  writeOff(sheet, { positions: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), triangles: new Uint32Array([0, 1, 2]) });

  it('writes the facts in the JSON: a cube poking 0.4 out of another must move 0.6', () => {
    const r = runXhd(['distance', a, b, '--penetration', '--translate', '0.9,0.1,0.2', '--json', '-q']);
    assert.equal(r.code, 0, r.stderr);
    const p = JSON.parse(r.stdout).penetration;
    assert.equal(p.solids, 'overlap');
    assert.equal(p.convex, true);
    assert.ok(p.depth_lower <= 0.6 && 0.6 <= p.depth_upper && p.depth_upper - p.depth_lower < 1e-10, JSON.stringify(p));
    assert.deepEqual(p.direction.map((x: number) => Math.round(x * 1e9) / 1e9), [1, 0, 0]);
    const apart = JSON.parse(runXhd(['distance', a, b, '--penetration', '--translate', '5,0,0', '--json', '-q']).stdout);
    // Apart by 3.5: no move needed (convexity is certified only where the hulls overlap).
    assert.deepEqual(apart.penetration, { solids: 'apart', a_closed: true, b_closed: true, convex: false, depth_lower: 0, depth_upper: 0, direction: null });
    const open = JSON.parse(runXhd(['distance', sheet, b, '--penetration', '--json', '-q']).stdout);
    assert.equal(open.penetration.solids, 'open');
    assert.equal(open.penetration.a_closed, false);
    const without = JSON.parse(runXhd(['distance', a, b, '--json', '-q']).stdout);
    assert.equal(without.penetration, undefined, 'absent unless asked for');
  });

  it('gives each frame its facts with --frames, and a line in the text report', () => {
    const frames = join(dir, 'poses.txt');
    writeFileSync(frames, '0.9,0,0,1,0,0,0\n4,0,0,1,0,0,0\n');
    const json = JSON.parse(runXhd(['distance', a, b, '--penetration', '--frames', frames, '--json', '-q']).stdout);
    assert.equal(json.frames[0].penetration.solids, 'overlap');
    assert.equal(json.frames[1].penetration.solids, 'apart');
    const text = runXhd(['distance', a, b, '--penetration', '--translate', '0.9,0,0', '-q']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Penetration +depth 0\.6 \(convex solids: between 0\.6 and 0\.6\); B moved 0\.6 along \(1, 0, 0\) parts them/);
    const open = runXhd(['distance', sheet, b, '--penetration', '-q']);
    assert.match(open.stdout, /Penetration +not measured: A is not a closed solid/);
  });

  it('exits 2 with one line for --penetration without the minimum or on --backend cuda', () => {
    for (const extra of [['--max'], ['--backend', 'cuda']]) {
      const r = runXhd(['distance', a, b, '--penetration', ...extra, '-q']);
      assert.equal(r.code, 2, `${extra.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
});
