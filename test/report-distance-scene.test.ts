// The distance report's 3D view data, computed without a browser: the thinned meshes keep every frame's pair
// triangles, the packed vertices and triangles decode back to the meshes within a packing step, the pair
// triangles travel unrounded, and every frame's pose is there.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { describe, it } from 'node:test';

import { distanceFiles, type DistanceResult } from '../src/jobs/distance.js';
import { distanceSceneData } from '../src/report/html/distance-scene-data.js';
import type { DistanceSceneData } from '../src/report/html/page-data.js';
import { scratchDir, writeXyz } from './cli-run.js';
import { rng, uniform } from './random-points.js';
import { uvSphere, writeOff } from './test-meshes.js';

const dir = scratchDir();
const spherePath = join(dir, 'sphere.off');
writeOff(spherePath, uvSphere(1, 24, 48));
const framesPath = join(dir, 'frames.txt');
writeFileSync(framesPath, ['2.5,0,0,1,0,0,0', '0,3,0.5,0.7071067811865476,0,0.7071067811865476,0', '-2.2,1,0,1,0,0,0'].join('\n') + '\n');

async function measured(a: string, b: string): Promise<DistanceResult> {
  return distanceFiles(a, b, { min: true, max: true, method: 'bvh', backend: 'cpu', frames: framesPath, keepMeshes: true });
}

/** The packed planes of each mesh: vertex coordinates as the page decodes them, and triangle corners. */
function unpack(scene: DistanceSceneData) {
  const bytes = inflateRawSync(Buffer.from(scene.packed, 'base64'));
  let at = 0;
  return scene.meshes.map((m) => {
    const words = new Uint16Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + 6 * m.vertices));
    at += 6 * m.vertices;
    const points = Array.from({ length: m.vertices }, (_, k) => [0, 1, 2].map((c) => m.box.min[c] + words[c * m.vertices + k] * m.box.step[c]));
    let corners: Uint32Array | null = null;
    if (!m.pointCloud) {
      corners = new Uint32Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + at + 12 * m.shown));
      at += 12 * m.shown;
    }
    return { points, corners };
  });
}

describe('distance report: the 3D view data', () => {
  it('every triangle when they fit; decodes to the meshes within a step; one pose a frame', async () => {
    const result = await measured(spherePath, spherePath);
    const scene = distanceSceneData(result)!;
    assert.equal(scene.poses.length, 3);
    assert.deepEqual(scene.poses[0], Array.from(result.meshes!.poses[0]));
    const [a] = unpack(scene);
    const mesh = result.meshes!.a;
    assert.equal(scene.meshes[0].shown, mesh.triangles.length / 3);
    // Triangle k drawn is triangle k of the file (every one fits), its corners the file's within a step.
    for (let k = 0; k < scene.meshes[0].shown; k += 37) {
      for (let c = 0; c < 3; c++) {
        const drawn = a.points[a.corners![3 * k + c]], v = mesh.triangles[3 * k + c];
        for (let axis = 0; axis < 3; axis++) assert.ok(Math.abs(drawn[axis] - mesh.positions[3 * v + axis]) <= scene.meshes[0].box.step[axis], `triangle ${k}`);
      }
    }
  });

  it('thinned: at most the limit plus the pair triangles, which are always drawn and travel exactly', async () => {
    const result = await measured(spherePath, spherePath);
    const limit = 50;
    const scene = distanceSceneData(result, limit)!;
    const pairIdsA = new Set(result.frames!.flatMap((f) => [f.min!.triangleA, f.max!.triangleA]));
    for (const k of [0, 1]) assert.ok(scene.meshes[k].shown <= limit + pairIdsA.size + 2 && scene.meshes[k].shown >= limit, `${scene.meshes[k].shown}`);
    assert.deepEqual(Object.keys(scene.pairTriangles.a).map(Number).sort((x, y) => x - y), [...pairIdsA].sort((x, y) => x - y));
    const mesh = result.meshes!.a;
    for (const [id, corners] of Object.entries(scene.pairTriangles.a)) {
      const t = Number(id);
      assert.deepEqual(corners, [0, 1, 2].flatMap((c) => Array.from(mesh.positions.subarray(3 * mesh.triangles[3 * t + c], 3 * mesh.triangles[3 * t + c] + 3))));
    }
    // The drawn triangles reference only the packed vertices, and those are fewer than the mesh's.
    const [a] = unpack(scene);
    assert.ok(a.corners!.every((v) => v < scene.meshes[0].vertices));
    assert.ok(scene.meshes[0].vertices < mesh.positions.length / 3);
  });

  it('a point cloud: drawn as points, its pair points travel exactly', async () => {
    const cloud = uniform(500, 3, rng(5));
    const cloudPath = join(dir, 'cloud.xyz');
    writeXyz(cloudPath, cloud);
    const result = await measured(spherePath, cloudPath);
    const scene = distanceSceneData(result)!;
    assert.equal(scene.meshes[0].pointCloud, false);
    assert.equal(scene.meshes[1].pointCloud, true);
    assert.equal(scene.meshes[1].shown, 500);
    const [, b] = unpack(scene);
    assert.equal(b.corners, null);
    for (const [id, p] of Object.entries(scene.pairTriangles.b)) assert.deepEqual(p, Array.from(result.meshes!.b.positions.subarray(3 * Number(id), 3 * Number(id) + 3)));
  });

  it('no meshes kept: no view', async () => {
    const result = await distanceFiles(spherePath, spherePath, { min: true, max: false, method: 'bvh', backend: 'cpu' });
    assert.equal(result.meshes, null);
    assert.equal(distanceSceneData(result), null);
  });
});
