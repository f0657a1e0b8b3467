// `xhd compare --heatmap`: the PLY it writes, read back, against the JSON report; refusals and write errors.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { readGeometry } from '../src/io/read.js';
import { parsePlyHeader, PLY_TYPE_SIZE, PlyType } from '../src/io/ply-header.js';
import { heatColour } from '../src/report/colour-map.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz } from './cli-run.js';
import { fixture } from './helpers.js';
import { rng, uniform } from './random-points.js';
import { cube, uvSphere, writeOff } from './test-meshes.js';

interface Heatmap {
  count: number;
  positions: Float32Array | Float64Array;
  colours: [number, number, number][];
  quality: Float32Array;
}

/**
 * Reads a heatmap back: positions through xhd's own PLY reader, the header through its header parser, and
 * the colour and quality columns (which the reader skips) straight from the binary body.
 */
function readHeatmap(path: string): Heatmap {
  const g = readGeometry(path);
  const bytes = readFileSync(path);
  const header = parsePlyHeader(bytes, path);
  assert.equal(header.encoding, 'binary_little_endian');
  assert.equal(header.elements.length, 1);
  const vertex = header.elements[0];
  assert.equal(vertex.name, 'vertex');
  assert.deepEqual(vertex.properties.map((p) => p.name), ['x', 'y', 'z', 'red', 'green', 'blue', 'quality']);
  // Positions keep the inputs' precision: doubles for text and double files, floats for float32 ones.
  const F = PlyType.Float32, U = PlyType.Uint8, X = vertex.properties[0].type;
  assert.ok(X === PlyType.Float32 || X === PlyType.Float64, `position type ${X}`);
  assert.deepEqual(vertex.properties.map((p) => p.type), [X, X, X, U, U, U, F]);
  const colourAt = 3 * PLY_TYPE_SIZE[X];
  const recordBytes = vertex.properties.reduce((s, p) => s + PLY_TYPE_SIZE[p.type], 0);
  assert.equal(bytes.length, header.dataStart + vertex.count * recordBytes, 'no bytes missing or left over');

  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const colours: [number, number, number][] = [];
  const quality = new Float32Array(vertex.count);
  for (let i = 0; i < vertex.count; i++) {
    const at = header.dataStart + i * recordBytes;
    colours.push([bytes[at + colourAt], bytes[at + colourAt + 1], bytes[at + colourAt + 2]]);
    quality[i] = view.getFloat32(at + colourAt + 3, true);
  }
  assert.equal(g.count, vertex.count);
  return { count: g.count, positions: g.positions, colours, quality };
}

function argMax(values: Float32Array): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

describe('xhd compare --heatmap', () => {
  const dir = scratchDir();
  const a = join(dir, 'cube.off'), b = join(dir, 'sphere.off');
  writeOff(a, cube(1));
  writeOff(b, uvSphere(1.3, 12, 24));

  it("writes A's samples with their A → B distance as quality and a heat colour", () => {
    const out = join(dir, 'heat.ply');
    const r = runXhd(['compare', a, b, '--heatmap', out, '--samples', '1000', '--seed', '3', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const j = JSON.parse(r.stdout);
    assert.ok(j.notes.some((n: string) => n.includes(out)), 'a note says where the heatmap went');

    const h = readHeatmap(out);
    assert.equal(h.count, 1000);
    assert.equal(h.count, j.samples.a);
    const top = argMax(h.quality);
    assert.ok(Math.abs(h.quality[top] - j.hd_ab) <= 1e-6 * j.hd_ab, `max quality ${h.quality[top]} vs hd_ab ${j.hd_ab}`);
    assert.equal(top, j.witness_ab.a_index, 'the hottest point is the witness sample');
    assert.deepEqual(Array.from(h.positions.subarray(3 * top, 3 * top + 3)), j.witness_ab.a_point);
    assert.deepEqual(h.colours[top], [255, 0, 0]);
    // Every colour is the map's colour of distance / max (within one step: quality is the float of the distance).
    for (let i = 0; i < h.count; i++) {
      const expected = heatColour(h.quality[i] / j.hd_ab);
      for (let c = 0; c < 3; c++) assert.ok(Math.abs(h.colours[i][c] - expected[c]) <= 1, `point ${i}: ${h.colours[i]} vs ${expected}`);
      assert.ok(h.quality[i] >= 0);
    }
    const cold = argMax(h.quality.map((q) => -q));
    assert.ok(h.colours[cold][2] === 255 && h.colours[cold][0] === 0, `the nearest point is blue-ish: ${h.colours[cold]}`);

    // --directed measures the same A → B distances, so the heatmap is the same file byte for byte.
    const directed = join(dir, 'heat-directed.ply');
    assert.equal(runXhd(['compare', a, b, '--heatmap', directed, '--samples', '1000', '--seed', '3', '--directed']).code, 0);
    assert.deepEqual(readFileSync(directed), readFileSync(out));
  });

  it("with --sampling vertices the points are A's vertices; 2D inputs get z = 0", () => {
    const out = join(dir, 'vertices.ply');
    const r = runXhd(['compare', a, b, '--heatmap', out, '--sampling', 'vertices', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const h = readHeatmap(out);
    assert.deepEqual(Array.from(h.positions), Array.from(cube(1).positions));
    const hdAb = JSON.parse(r.stdout).hd_ab;
    assert.ok(Math.abs(Math.max(...h.quality) - hdAb) <= 1e-6 * hdAb);

    const cloud = join(dir, 'points-2d.csv');
    writeFileSync(cloud, 'x,y\n0,0\n3,0\n1,2\n');
    const flat = join(dir, 'flat.ply');
    const r2 = runXhd(['compare', fixture('noff-2d.off'), cloud, '--heatmap', flat, '--samples', '200', '--json']);
    assert.equal(r2.code, 0, r2.stderr);
    const h2 = readHeatmap(flat);
    assert.equal(h2.count, 200);
    for (let i = 0; i < h2.count; i++) assert.equal(h2.positions[3 * i + 2], 0);
    const hdAb2 = JSON.parse(r2.stdout).hd_ab;
    assert.ok(Math.abs(Math.max(...h2.quality) - hdAb2) <= 1e-6 * hdAb2);
  });

  it('is refused in points mode (exit 2) without writing anything', () => {
    const cloud = join(dir, 'cloud.xyz');
    writeXyz(cloud, uniform(50, 3, rng(8)));
    const out = join(dir, 'never.ply');
    for (const args of [[cloud, cloud], [a, b, '--vertices-only']]) {
      const r = runXhd(['compare', ...args, '--heatmap', out]);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr, 'xhd: --heatmap needs surface mode: per-point distances are measured when an input is a mesh (without --vertices-only)\n');
      assert.equal(r.stdout, '');
    }
    assert.throws(() => readFileSync(out), { code: 'ENOENT' });
  });

  it('an unwritable path is one line naming the file, exit 2, before any work', () => {
    const missing = join(dir, 'no-such-dir', 'heat.ply');
    const r = runXhd(['compare', a, b, '--heatmap', missing, '--json']);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^xhd: .*no-such-dir\/heat\.ply: cannot write: no such directory/);
    assert.ok(!hasStackTrace(r.stderr), r.stderr);

    const intoDirectory = runXhd(['compare', a, b, '--heatmap', dir]);
    assert.equal(intoDirectory.code, 2);
    assert.match(intoDirectory.stderr, /cannot write: is a directory\n$/);
  });
});
