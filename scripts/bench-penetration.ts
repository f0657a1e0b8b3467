// Penetration depth between closed meshes: our bounds (`xhd distance --penetration`, CPU) beside FCL's single
// value for convex shapes (fcl::collide with contacts on fcl::Convex, through libccd's GJK/EPA and FCL's own), on
// generated scenes: boxes, polyhedral balls of three sizes, and a torus with a ball in its tube (not convex: ours
// only). For each frame it checks whether FCL's depth lies within our bounds (to 1e-6 of the scene's size: FCL
// poses B in double, ours rounds B's posed vertices to float as the input is float). Prints a markdown report.
//
//   scripts/bench-penetration [--frames N] [--scenes LIST] [--threads N] [--seed N] [--out FILE]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import { MeshDistance, type DistancePenetration, type Pose } from '../src/ops/mesh-distance.js';
import type { TriangleMesh } from '../src/ops/surface-distance.js';
import { compose, rotation, translation, type Vec3 } from './bench/distance-poses.js';
import { wavyTorus } from './bench/distance-shapes.js';
import { writeMeshFile, writePosesFile } from './bench/fcl.js';
import { harnessEnv, prepareFclHarness, type FclHarness } from './bench/fcl-harness.js';
import { median } from './bench/median.js';
import { formatMs, libraryVersion, publishReport, runLines } from './bench/report.js';
import { ball, box } from './bench/solid-shapes.js';
import { rng } from '../test/random-points.js';

const SCENES = ['boxes', 'balls-512', 'balls-8k', 'balls-131k', 'torus'] as const;
type SceneName = (typeof SCENES)[number];

interface Scene {
  name: SceneName;
  a: TriangleMesh;
  b: TriangleMesh;
  poses: Pose[];
  convex: boolean;
  size: number; // the scene's extent: what the agreement's tolerance is taken of
}

const log = (line: string) => process.stderr.write(`${line}\n`);
/** Milliseconds to two significant digits below 10 (FCL's calls take microseconds). */
const ms = (x: number) => (x >= 10 ? formatMs(x) : x.toPrecision(2));

function randomUnit(random: () => number): Vec3 {
  for (;;) {
    const v: Vec3 = [2 * random() - 1, 2 * random() - 1, 2 * random() - 1];
    const length = Math.hypot(...v);
    if (length > 0.1 && length <= 1) return [v[0] / length, v[1] / length, v[2] / length];
  }
}

/** B turned about a random axis, then moved to `at`. */
function placed(random: () => number, at: Vec3): Pose {
  return compose(translation(at), rotation(randomUnit(random), 2 * Math.PI * random()));
}

function makeScene(name: SceneName, frames: number, random: () => number): Scene {
  const poses = (at: () => Vec3) => Array.from({ length: frames }, () => placed(random, at()));
  switch (name) {
    case 'boxes': // a 2 × 1.5 × 1 box and a 1 × 0.6 × 0.4 one, turned, its centre somewhere inside the first
      return {
        name, convex: true, size: 2, a: box([0, 0, 0], [2, 1.5, 1]), b: box([-0.5, -0.3, -0.2], [0.5, 0.3, 0.2]),
        poses: poses(() => [2 * random(), 1.5 * random(), random()]),
      };
    case 'balls-512':
    case 'balls-8k':
    case 'balls-131k': { // radius 1 and 0.7, centres 0.2 to 1.4 apart
      const levels = name === 'balls-512' ? 3 : name === 'balls-8k' ? 5 : 7;
      return {
        name, convex: true, size: 2, a: ball(levels, 1), b: ball(levels, 0.7),
        poses: poses(() => randomUnit(random).map((x) => x * (0.2 + 1.2 * random())) as Vec3),
      };
    }
    case 'torus': { // a 100k-triangle torus (ring 2, tube 0.6) and a ball of radius 0.4 near the tube's centre line
      const phi = () => 2 * Math.PI * random();
      return {
        name, convex: false, size: 5, a: wavyTorus(100_000, 2, 0.6, 0, 0), b: ball(5, 0.4),
        poses: poses(() => {
          const u = phi(), off = randomUnit(random).map((x) => 0.4 * random() * x);
          return [2 * Math.cos(u) + off[0], 2 * Math.sin(u) + off[1], off[2]];
        }),
      };
    }
  }
}

interface FclFrame { frame: number; solver: 'libccd' | 'indep'; ms: number; collides: boolean; depth: number }

function runFclPenetration(h: { binary: string; libraryPath: string }, scene: Scene): FclFrame[] | { error: string } {
  const dir = mkdtempSync(join(tmpdir(), 'xhd-fcl-pen-'));
  try {
    const files = { a: join(dir, 'a.mesh'), b: join(dir, 'b.mesh'), poses: join(dir, 'b.poses') };
    writeMeshFile(files.a, scene.a);
    writeMeshFile(files.b, scene.b);
    writePosesFile(files.poses, scene.poses);
    const r = spawnSync(h.binary, [files.a, files.b, files.poses], { encoding: 'utf8', env: harnessEnv(h), timeout: 600_000 });
    if (r.status !== 0) return { error: `exit ${r.status}: ${(r.stderr ?? '').trim().split('\n')[0]}` };
    return r.stdout.trim().split('\n').map((line) => JSON.parse(line)).filter((o) => o.frame !== undefined) as FclFrame[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Row {
  scene: Scene;
  buildMs: number;
  ms: number;
  facts: DistancePenetration[];
  parted: number; // frames whose upper bound, tried, parted the meshes
  fcl: Record<'libccd' | 'indep', FclFrame[]> | { error: string } | null;
}

async function measureOurs(scene: Scene, threads: number) {
  const context = await MeshDistance.create(scene.a, scene.b, { min: true, penetration: true, backend: 'cpu', threads });
  try {
    await context.query(scene.poses[0]); // first touch of the pages and code
    const times: number[] = [], facts: DistancePenetration[] = [];
    for (const pose of scene.poses) {
      const q = await context.query(pose);
      times.push(q.queryMs);
      facts.push(q.penetration!);
    }
    // Each upper bound tried (not timed): B moved that far and 1e-6 of the scene's size more along its direction, the
    // surfaces must be apart (a minimum distance above 0: the distances round a float B's posed vertices to float, by
    // up to a float's step, 1.2e-7 here) and the solids said apart.
    let parted = 0;
    for (let i = 0; i < scene.poses.length; i++) {
      const p = facts[i];
      if (!p.direction || p.upper === null) continue;
      const t = p.upper + 1e-6 * scene.size;
      const moved = compose(translation([t * p.direction[0], t * p.direction[1], t * p.direction[2]]), scene.poses[i]);
      const q = await context.query(moved);
      if (q.min!.distance > 0 && q.penetration!.solids === 'apart') parted++;
    }
    return { buildMs: context.buildMs, ms: median(times), facts, parted };
  } finally {
    context.close();
  }
}

/** How FCL's depths sit against our bounds: frames within them (to the tolerance), the worst distance outside. */
function agreement(frames: FclFrame[], facts: DistancePenetration[], tolerance: number) {
  let within = 0, worst = 0, collisionsDiffer = 0;
  frames.forEach((f, i) => {
    const p = facts[i];
    const overlap = p.solids === 'overlap';
    if (f.collides !== (overlap || p.solids === 'undecided')) collisionsDiffer++;
    const depth = f.collides ? Math.abs(f.depth) : 0; // FCL's own solver reports some depths negated
    const outside = Math.max(0, p.lower! - depth, depth - p.upper!);
    if (outside <= tolerance) within++;
    worst = Math.max(worst, outside);
  });
  return { within, worst, collisionsDiffer };
}

function report(rows: Row[], fcl: FclHarness, argv: string[], threads: number): string {
  const lines = [
    '# Penetration depth between closed meshes: our bounds beside FCL',
    '',
    ...runLines('scripts/bench-penetration', argv),
    `- Native library: build/libxhd_cpu.so from ${libraryVersion()}; ours on ${threads} threads (\`--backend cpu\`)`,
    `- FCL: ${'error' in fcl ? `not available (${fcl.error})` : `${fcl.binary} (fcl::Convex, fcl::collide with contacts; solvers libccd and indep)`}`,
    '- Times: ours = the library\'s query time (the minimum distance, the solids and both bounds), median over the frames;',
    '  FCL = one fcl::collide call with contacts (mean of repeats over 2 ms), median over the frames. Building is not timed.',
    '- "within": frames whose FCL depth lies in [lower, upper] to 1e-6 of the scene\'s size; "worst" how far the worst lies',
    '  outside. "gap": the largest upper − lower over the frames (for convex solids the bounds meet to 1e-12 of the coordinates).',
    '- FCL\'s depth is taken as its magnitude: its own solver (indep) reports some depths negated (FCL 0.7.0). Its libccd',
    '  path answers through MPR (Minkowski portal refinement), whose depth is along the portal\'s direction, not the least one.',
    '- "parted": frames where B, moved by our upper bound (and 1e-6 of the size more) along our direction, no longer touches A: its',
    '  minimum distance above 0 and the solids said apart (the upper bound tried, not timed).',
    '',
    '| scene | triangles A / B | frames | overlapping | ours ms/frame | gap | parted | FCL libccd ms | within | worst | FCL indep ms | within | worst |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    const s = r.scene, n = s.poses.length;
    const gap = Math.max(...r.facts.map((p) => (p.upper ?? NaN) - (p.lower ?? NaN)));
    const overlapping = r.facts.filter((p) => p.solids === 'overlap').length;
    const cells = [s.name, `${s.a.triangles.length / 3} / ${s.b.triangles.length / 3}`, String(n), String(overlapping), ms(r.ms), gap.toExponential(1), `${r.parted} / ${n}`];
    if (r.fcl === null) cells.push('(not convex)', '', '', '', '', '');
    else if ('error' in r.fcl) cells.push(`(${r.fcl.error})`, '', '', '', '', '');
    else {
      for (const solver of ['libccd', 'indep'] as const) {
        const frames = r.fcl[solver], a = agreement(frames, r.facts, 1e-6 * s.size);
        cells.push(ms(median(frames.map((f) => f.ms))), `${a.within} / ${n}`, a.worst.toExponential(1));
      }
    }
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const { values } = parseArgs({
    args: argv,
    options: {
      frames: { type: 'string', default: '10' },
      scenes: { type: 'string', default: SCENES.join(',') },
      threads: { type: 'string' },
      seed: { type: 'string', default: '7' },
      out: { type: 'string' },
    },
  });
  const frames = Number(values.frames), seed = Number(values.seed);
  const threads = values.threads ? Number(values.threads) : availableParallelism();
  const names = values.scenes!.split(',').map((s) => s.trim()) as SceneName[];
  for (const n of names) if (!SCENES.includes(n)) throw new Error(`unknown scene ${n} (${SCENES.join(', ')})`);
  const fcl = prepareFclHarness('fcl_penetration', log);
  if ('error' in fcl) log(`FCL skipped: ${fcl.error}`);
  const rows: Row[] = [];
  for (const name of names) {
    const scene = makeScene(name, frames, rng(seed));
    const ours = await measureOurs(scene, threads);
    const fclFrames = !scene.convex ? null : 'error' in fcl ? fcl : runFclPenetration(fcl, scene);
    const split = fclFrames && !('error' in fclFrames)
      ? { libccd: fclFrames.filter((f) => f.solver === 'libccd'), indep: fclFrames.filter((f) => f.solver === 'indep') }
      : fclFrames;
    rows.push({ scene, ...ours, fcl: split });
    log(`${name}: ours ${formatMs(ours.ms)} ms/frame`);
  }
  publishReport(report(rows, fcl, argv, threads), values.out, log);
}

main().catch((err) => {
  process.stderr.write(`bench-penetration: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
