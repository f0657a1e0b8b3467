// Contacts (`xhd distance --contacts`, MeshDistance's contacts option): when the minimum is 0, every triangle
// pair at distance 0 counted and a box holding every shared point. The fast method equals the every-pair
// reference; a hand-checked crossing; the box holds the crossing points the brute force reports; the JSON and
// text reports; and the refusals (without the minimum, on the CUDA backend).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { MeshDistance, type DistanceMesh, type Pose } from '../src/ops/mesh-distance.js';
import { runXhd, scratchDir } from './cli-run.js';
import { cube, uvSphere, writeOff } from './test-meshes.js';

const pose = (dx: number, dy = 0, dz = 0, turn = 0): Pose => {
  const c = Math.cos(turn), s = Math.sin(turn);
  return Float64Array.from([c, -s, 0, dx, s, c, 0, dy, 0, 0, 1, dz]);
};

async function contactsOf(a: DistanceMesh, b: DistanceMesh, p: Pose, method: 'bvh' | 'brute', threads = 2) {
  const context = await MeshDistance.create(a, b, { min: true, contacts: true, method, threads });
  try {
    return await context.query(p);
  } finally {
    context.close();
  }
}

describe('distance contacts (library)', () => {
  it('counts the one crossing of two triangles and bounds it by the overlap of their boxes', async () => {
    const flat = { positions: Float64Array.from([0, 0, 0, 2, 0, 0, 0, 2, 0]), triangles: Uint32Array.from([0, 1, 2]) };
    const standing = { positions: Float64Array.from([0.5, 0.5, -1, 0.5, 0.5, 1, 1, 0.2, 1]), triangles: Uint32Array.from([0, 1, 2]) };
    for (const method of ['bvh', 'brute'] as const) {
      const q = await contactsOf(flat, standing, pose(0), method);
      assert.equal(q.min!.distance, 0);
      assert.deepEqual(q.contacts, { pairs: 1, bounds: { min: [0.5, 0.2, 0], max: [1, 0.5, 0] } });
      const apart = await contactsOf(flat, standing, pose(0, 0, 3), method);
      assert.ok(apart.min!.distance > 0);
      assert.deepEqual(apart.contacts, { pairs: 0, bounds: null });
    }
  });

  it('equals the every-pair reference on crossing spheres, poses and thread counts, and holds the reported crossing point', async () => {
    const a = uvSphere(1, 16, 24), b = uvSphere(0.6, 12, 18);
    let touching = 0;
    for (const p of [pose(0.7), pose(0.9, 0.2, 0.1, 0.5), pose(0.2, 0.3, 0.6, 1.1), pose(3)]) {
      const reference = await contactsOf(a, b, p, 'brute');
      for (const threads of [1, 3]) {
        const fast = await contactsOf(a, b, p, 'bvh', threads);
        assert.deepEqual(fast.contacts, reference.contacts);
        assert.equal(fast.min!.distance, reference.min!.distance);
      }
      const c = reference.contacts!;
      assert.equal(c.pairs > 0, reference.min!.distance === 0);
      if (c.bounds) {
        touching++;
        const at = reference.min!.pointA;
        // (the crossing point is computed, so within rounding of the box)
        for (let k = 0; k < 3; k++) assert.ok(c.bounds.min[k] - 1e-12 <= at[k] && at[k] <= c.bounds.max[k] + 1e-12, `axis ${k}: ${at[k]} outside the bounds`);
      }
    }
    assert.ok(touching >= 3, 'three of the poses cross');
  });

  it('is refused without the minimum and on the CUDA backend', async () => {
    const a = cube(1);
    await assert.rejects(MeshDistance.create(a, a, { max: true, min: false, contacts: true }), /contacts come with the minimum/);
    await assert.rejects(MeshDistance.create(a, a, { contacts: true, backend: 'cuda' }), /CPU backend only/);
  });
});

describe('xhd distance --contacts', () => {
  const dir = scratchDir();
  const a = join(dir, 'a.off'), b = join(dir, 'b.off');
  writeOff(a, cube(1));
  writeOff(b, cube(0.5));

  it('writes contacts in the JSON: the pairs and the box, null bounds when apart', () => {
    const r = runXhd(['distance', a, b, '--contacts', '--translate', '0.9,0.1,0.2', '--json', '-q']);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.equal(json.min_distance, 0);
    assert.ok(json.contacts.intersecting_pairs > 0);
    const { min, max } = json.contacts.bounds;
    // The small cube pokes out of the big one's x = 1 face: the shared points lie on that face's square.
    assert.deepEqual([min[0], max[0]], [1, 1]);
    for (const k of [1, 2]) assert.ok(min[k] >= -1 && max[k] <= 1 && min[k] < max[k]);
    const apart = JSON.parse(runXhd(['distance', a, b, '--contacts', '--translate', '5,0,0', '--json', '-q']).stdout);
    assert.deepEqual(apart.contacts, { intersecting_pairs: 0, bounds: null });
    const without = JSON.parse(runXhd(['distance', a, b, '--translate', '0.9,0,0', '--json', '-q']).stdout);
    assert.equal(without.contacts, undefined, 'absent unless asked for');
  });

  it('gives each frame its contacts with --frames, and a line in the text report', () => {
    const frames = join(dir, 'poses.txt');
    // 7 numbers a line: tx,ty,tz,qw,qx,qy,qz
    writeFileSync(frames, '0.9,0,0,1,0,0,0\n4,0,0,1,0,0,0\n');
    const json = JSON.parse(runXhd(['distance', a, b, '--contacts', '--frames', frames, '--json', '-q']).stdout);
    assert.ok(json.frames[0].contacts.intersecting_pairs > 0);
    assert.deepEqual(json.frames[1].contacts, { intersecting_pairs: 0, bounds: null });
    const text = runXhd(['distance', a, b, '--contacts', '--translate', '0.9,0,0', '-q']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Contacts +\d+ intersecting triangle pairs?, all within \(1, /);
  });

  it('exits 2 with one line for --contacts without the minimum or on --backend cuda', () => {
    for (const extra of [['--max'], ['--backend', 'cuda']]) {
      const r = runXhd(['distance', a, b, '--contacts', ...extra, '-q']);
      assert.equal(r.code, 2, `${extra.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
});
