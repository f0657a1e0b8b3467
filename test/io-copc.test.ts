// COPC files (copc-writer.ts: an octree of layered LAZ chunks and its hierarchy pages): read whole they give
// the points of the plain LAZ file of the same records; with --bbox they decode only the nodes whose cube
// meets the box and give exactly the whole read's points inside it; xhd info tells the octree; and a
// hierarchy that lies is exit 2 naming the file and the byte.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import type { Geometry, ReadOptions } from '../src/io/geometry.js';
import { nativeReader } from '../src/io/native-reader.js';
import { readGeometry } from '../src/io/read.js';
import { hasStackTrace, runXhd, scratchDir } from './cli-run.js';
import { copcBytes, type CopcFile } from './copc-writer.js';
import { layeredLaz, scanRecords } from './laz-layered-writer.js';
import { errorOf, withEnv } from './reader-test-tools.js';

const dir = scratchDir();
let serial = 0;
const noLibrary = !nativeReader() && 'the native CPU library is not built (it writes the layered chunks)';

/** The points as sorted "x y z" strings: a COPC file holds them in node order. */
function pointSet(g: Geometry): string[] {
  const out: string[] = [];
  for (let i = 0; i < g.count; i++) out.push(`${g.positions[3 * i]} ${g.positions[3 * i + 1]} ${g.positions[3 * i + 2]}`);
  return out.sort();
}

function save(bytes: Uint8Array, name = 'copc'): string {
  const path = join(dir, `${name}${serial++}.copc.laz`);
  writeFileSync(path, bytes);
  return path;
}

describe('COPC', { skip: noLibrary }, () => {
  const records = scanRecords(20_000, 6, { seed: 21, start: [50_000_000, 480_000_000] });
  const copc = copcBytes(records, { format: 6, capacity: 800, maxLevel: 4 });
  const path = save(copc.bytes);
  const plain = join(dir, 'plain.laz');
  writeFileSync(plain, layeredLaz(records, { format: 6, chunks: [10_000, 10_000] }).bytes);

  it('read whole: every node once, the same points as the plain LAZ file, natively and through laz-perf', () => {
    assert.ok(copc.nodes.length > 10 && copc.pagePointers.length > 1, `${copc.nodes.length} nodes, ${copc.pagePointers.length} child pages`);
    const lazRead = readGeometry(plain);
    for (const env of [{}, { XHD_LAZ_DECODER: 'laz-perf', XHD_LAZ_THREADS: '2' }] as Record<string, string>[]) {
      const g = withEnv(env, () => readGeometry(path));
      assert.equal(g.count, 20_000);
      assert.deepEqual(pointSet(g), pointSet(lazRead));
      assert.deepEqual(g.bounds, lazRead.bounds);
      assert.deepEqual(g.lidar?.byClass, lazRead.lidar?.byClass);
      assert.deepEqual(g.lidar?.byReturn, lazRead.lidar?.byReturn);
      const c = g.lidar?.copc;
      assert.ok(c);
      assert.equal(c.nodes, copc.nodes.length);
      assert.equal(c.nodesRead, c.nodes);
      assert.equal(c.pointsRead, 20_000);
      assert.equal(c.depth, Math.max(...copc.nodes.map((n) => n.key[0])));
      assert.equal(c.pointsByLevel.reduce((a, b) => a + b, 0), 20_000);
      assert.equal(c.pointsByLevel[0], 800);
    }
  });

  it('--bbox decodes only the nodes whose cube meets the box, and keeps exactly the whole read\'s points inside it', () => {
    const whole = readGeometry(path);
    const [x0, y0] = [whole.bounds.min[0], whole.bounds.min[1]];
    const boxes: NonNullable<NonNullable<ReadOptions['filters']>['bbox']>[] = [
      { min: [x0 + 100, y0 - 1, -Infinity], max: [x0 + 900, y0 + 3, Infinity] },
      { min: [x0 + 2000, y0, 100], max: [x0 + 2600, y0 + 60, 200] },
      { min: [x0 - 1e6, y0 - 1e6, -1e6], max: [x0 - 1e5, y0 - 1e5, 1e6] }, // outside everything
    ];
    for (const bbox of boxes) {
      for (const env of [{}, { XHD_LAZ_DECODER: 'laz-perf' }] as Record<string, string>[]) {
        const g = withEnv(env, () => readGeometry(path, { filters: { bbox } }));
        const expected = pointSet(whole).filter((p) => {
          const v = p.split(' ').map(Number);
          return v.every((c, k) => c >= bbox.min[k] && c <= bbox.max[k]);
        });
        assert.deepEqual(pointSet(g), expected);
        const c = g.lidar!.copc!;
        assert.ok(c.nodesRead < c.nodes, `read ${c.nodesRead} of ${c.nodes} nodes`);
        assert.ok(c.pointsRead >= g.count);
        assert.ok(g.notes.some((n) => n.startsWith(`COPC: --bbox decoded ${c.nodesRead} node`)));
      }
    }
  });

  it('a format 7 file with extra bytes and one hierarchy page', () => {
    const rgb = scanRecords(6000, 7, { extra: 4, seed: 5 });
    const file = copcBytes(rgb, { format: 7, extra: 4, capacity: 500, maxLevel: 3, pages: false });
    assert.equal(file.pagePointers.length, 0);
    const g = readGeometry(save(file.bytes));
    const laz = join(dir, 'plain7.laz');
    writeFileSync(laz, layeredLaz(rgb, { format: 7, extra: 4, chunks: [6000] }).bytes);
    assert.deepEqual(pointSet(g), pointSet(readGeometry(laz)));
    assert.equal(g.lidar?.copc?.nodes, file.nodes.length);
  });

  it('xhd info names the octree: depth, nodes, points by level (and the nodes a --bbox read)', () => {
    const r = runXhd(['info', path]);
    assert.equal(r.code, 0, r.stderr);
    const c = readGeometry(path).lidar!.copc!;
    assert.match(r.stdout, new RegExp(`COPC +octree of depth ${c.depth} · ${c.nodes} nodes\\n`));
    assert.match(r.stdout, /by level +0: 800 · 1: [\d,]+ · 2: /);
    const json = JSON.parse(runXhd(['info', path, '--json', '--bbox', `${copc.center[0] - 5},${copc.center[1] - 5},${copc.center[0] + 5},${copc.center[1] + 5}`]).stdout);
    assert.equal(json.las.copc.nodes, c.nodes);
    assert.ok(json.las.copc.nodes_read < c.nodes);
    assert.equal(json.las.copc.points_by_level.length, c.depth + 1);
  });

  describe('a hierarchy that lies: exit 2 naming the file and the byte', () => {
    const lie = (name: string, change: (view: DataView, file: CopcFile) => number, message: RegExp) => {
      it(name, () => {
        const bytes = Uint8Array.from(copc.bytes);
        const byte = change(new DataView(bytes.buffer), copc);
        const bad = save(bytes, 'bad');
        const error = errorOf(() => readGeometry(bad));
        assert.ok(error.startsWith(`${bad} (byte ${byte}): `), error);
        assert.match(error, message);
      });
    };
    const node = copc.nodes[7];
    lie('a node pointing outside the file', (v, f) => {
      v.setBigUint64(node.entryAt + 16, BigInt(f.bytes.length - 10), true);
      return node.entryAt;
    }, /node \d+-\d+-\d+-\d+ points to \d+ bytes at byte \d+, outside the file's point data/);
    lie('a negative point count', (v) => {
      v.setInt32(node.entryAt + 28, -7, true);
      return node.entryAt;
    }, /has a negative point count \(-7\)/);
    lie('a huge point count', (v) => {
      v.setInt32(node.entryAt + 28, 2 ** 31 - 1, true);
      return node.entryAt;
    }, /claims 2147483647 points: with the nodes before it, more than the file's 20000/);
    lie('a child page pointing back to the root page (a cycle)', (v, f) => {
      v.setBigUint64(f.pagePointers[1] + 16, BigInt(f.rootPage.offset), true);
      v.setInt32(f.pagePointers[1] + 24, f.rootPage.bytes, true);
      return f.pagePointers[1];
    }, /is reached twice: the hierarchy has a cycle/);
    lie('a child page outside the file', (v, f) => {
      v.setBigUint64(f.pagePointers[0] + 16, BigInt(f.bytes.length + 4096), true);
      return f.pagePointers[0];
    }, /hierarchy page of \d+ bytes at byte \d+ lies outside the file/);
    lie('no root page', (v, f) => {
      v.setBigUint64(f.rootFieldAt + 8, 0n, true);
      return f.rootFieldAt;
    }, /the COPC hierarchy has no root page/);
    lie('a node key outside its level', (v) => {
      v.setInt32(node.entryAt + 4, 2 ** node.key[0], true);
      return node.entryAt;
    }, /is not a node of the octree/);
    lie('two nodes sharing a chunk', (v) => {
      const other = copc.nodes[8];
      v.setBigUint64(other.entryAt + 16, BigInt(node.offset), true);
      v.setInt32(other.entryAt + 24, node.bytes, true);
      return [node, other].sort((a, b) => a.entryAt - b.entryAt)[1].entryAt;
    }, /overlaps node/);

    it('through the CLI: one line, exit 2, no stack trace', () => {
      const bytes = Uint8Array.from(copc.bytes);
      new DataView(bytes.buffer).setInt32(node.entryAt + 28, -2, true);
      const bad = save(bytes, 'cli');
      const r = runXhd(['info', bad]);
      assert.equal(r.code, 2);
      assert.equal(r.stderr.trim().split('\n').length, 1);
      assert.match(r.stderr, new RegExp(`cli\\d+\\.copc\\.laz \\(byte ${node.entryAt}\\): COPC hierarchy node`));
      assert.ok(!hasStackTrace(r.stderr));
    });
  });
});
