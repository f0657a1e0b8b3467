// Two LiDAR epochs compared end to end (issue 21: `xhd compare` of two 20M-point LAZ epochs, a target on the H100
// host): two LAZ files of an airborne-like 1 km tile (ground on a smooth terrain, at UTM coordinates, millimetre
// scale), the second epoch an independent sampling of the same ground with a 40 m building added, written by
// xhd's LAZ writer; then `xhd compare a.laz b.laz --json` as a user runs it, wall time from the process start,
// with the report's own timings beside it. Generated data only, deleted afterwards.
//   scripts/bench-epochs [--points 20000000] [--backends cuda,cpu] [--runs 2] [--dir DIR]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import { writeLaz } from '../src/io/laz-write.js';
import { probeBackend } from '../src/ops/backends.js';
import { random } from '../test/laz-points.js';
import { repoRoot } from '../test/helpers.js';

const SCALE: [number, number, number] = [0.001, 0.001, 0.001];
const OFFSET: [number, number, number] = [500000, 4200000, 0];

function option(argv: string[], name: string, fallback: string): string {
  const at = argv.indexOf(name);
  return at >= 0 && at + 1 < argv.length ? argv[at + 1] : fallback;
}

/** The ground's height at (x, y) metres into the tile. */
function terrain(x: number, y: number): number {
  return 120 + 8 * Math.sin(x / 90) * Math.cos(y / 140) + 0.002 * x;
}

/** One epoch: `count` points of the tile, on the millimetre grid; with `building`, a 40 m block 6 m high (class 6). */
function writeEpoch(path: string, count: number, seed: number, building: boolean): void {
  const r = random(seed);
  const xyz = new Float64Array(3 * count);
  const classification = new Uint8Array(count).fill(2);
  const snap = (v: number, k: number) => Math.round((v - OFFSET[k]) / SCALE[k]) * SCALE[k] + OFFSET[k];
  for (let i = 0; i < count; i++) {
    const x = r() * 1000, y = r() * 1000;
    let z = terrain(x, y) + (r() - 0.5) * 0.06;
    if (building && x > 480 && x < 520 && y > 480 && y < 520) {
      z += 6;
      classification[i] = 6;
    }
    xyz[3 * i] = snap(OFFSET[0] + x, 0);
    xyz[3 * i + 1] = snap(OFFSET[1] + y, 1);
    xyz[3 * i + 2] = snap(z, 2);
  }
  writeLaz(path, { xyz, classification }, { scale: SCALE, offset: OFFSET, pointFormat: 0, minor: 4 });
}

function main(): void {
  const argv = process.argv.slice(2);
  const points = Number(option(argv, '--points', '20000000'));
  const runs = Number(option(argv, '--runs', '2'));
  const wanted = option(argv, '--backends', 'cuda,cpu').split(',');
  const backends = wanted.filter((b) => b === 'cpu' || probeBackend(b as 'cuda').available);
  const dir = mkdtempSync(join(option(argv, '--dir', tmpdir()), 'xhd-epochs-'));
  try {
    const a = join(dir, 'epoch1.laz'), b = join(dir, 'epoch2.laz');
    let t = performance.now();
    writeEpoch(a, points, 1, false);
    writeEpoch(b, points, 2, true);
    console.log(`${cpus()[0]?.model ?? 'CPU'}, ${availableParallelism()} hardware threads; Node ${process.version}`);
    console.log(`two epochs of ${points.toLocaleString('en-US')} points written in ${((performance.now() - t) / 1000).toFixed(1)} s: ` +
      `${(statSync(a).size / 1e6).toFixed(1)} MB and ${(statSync(b).size / 1e6).toFixed(1)} MB`);
    console.log('| backend | wall s (best) | read ms | build ms | query ms | HD (m) | HD witness in B |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
    for (const backend of backends) {
      let best = Infinity, report: Record<string, any> | undefined;
      for (let run = 0; run < runs; run++) {
        t = performance.now();
        const r = spawnSync('node', [join(repoRoot, 'bin', 'xhd'), 'compare', a, b, '--json', '--quiet', '--backend', backend], { encoding: 'utf8', maxBuffer: 1 << 26 });
        const wall = (performance.now() - t) / 1000;
        if (r.status !== 0) throw new Error(`xhd compare --backend ${backend} failed (${r.status}): ${r.stderr}`);
        if (wall < best) {
          best = wall;
          report = JSON.parse(r.stdout);
        }
      }
      const tm = report!.timings_ms;
      console.log(`| ${backend} | ${best.toFixed(2)} | ${tm.read.toFixed(0)} | ${tm.build.toFixed(0)} | ${tm.query.toFixed(0)} | ` +
        `${report!.hd} | ${JSON.stringify(report!.witness_ba?.b_point ?? report!.witness_ab?.b_point ?? null)} |`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
