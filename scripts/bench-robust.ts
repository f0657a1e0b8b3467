// Robustness benchmark (issues "robust on real-world mess" and "defects a newcomer found"): what far
// outliers and coincident points cost, beside the same data without them. Each row is best of three by
// compute time, with the distance or triangle evaluations the library counted.
//   scripts/bench-robust [--points 200000] [--backends cpu,cuda] [--threads N] [--sections LIST] [--out docs/file.md]
// --sections: any of points, objects, nearest, surfaces, streamed (default: all).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { cudaDevice } from '../src/ops/backends.js';
import { CancelledError, hausdorff, type HausdorffResult } from '../src/ops/hausdorff.js';
import { bestOfThree, computeMs, usableBackends } from './bench/best-of.js';
import { nearestDistances } from '../src/ops/nearest.js';
import { pointSurfaceDistances, type TriangleMesh } from '../src/ops/surface-distance.js';
import { formatMs, libraryVersion, publishReport, runLines } from './bench/report.js';
import { streamedRows } from './bench/robust-streamed.js';
import { parseNames, positiveInteger } from './bench/settings.js';
import { Rng } from './datasets.js';

const log = (line: string) => process.stderr.write(`${line}\n`);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FANDISK = join(ROOT, '..', 'shared', 'data', 'meshes', 'fandisk.off');

const SECTIONS = ['points', 'objects', 'nearest', 'surfaces', 'streamed'] as const;

interface Settings {
  points: number;
  backends: Array<'cpu' | 'cuda'>;
  threads: number;
  sections: Array<(typeof SECTIONS)[number]>;
  out?: string;
}

function parseSettings(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    options: { points: { type: 'string' }, backends: { type: 'string' }, threads: { type: 'string' }, sections: { type: 'string' }, out: { type: 'string' } },
  });
  return {
    points: positiveInteger(values.points ?? '200000', 'points'),
    backends: parseNames(values.backends ?? 'cpu,cuda', ['cpu', 'cuda'] as const, 'backend'),
    threads: positiveInteger(values.threads ?? String(availableParallelism()), 'threads'),
    sections: parseNames(values.sections ?? SECTIONS.join(','), SECTIONS, 'section'),
    out: values.out,
  };
}

/** n points in the unit cube and their copy moved by 0.001 on every axis, as doubles. */
function movedCopy(n: number): [Float64Array, Float64Array] {
  const rng = new Rng(7);
  const a = new Float64Array(3 * n);
  for (let i = 0; i < 3 * n; i++) a[i] = rng.uniform();
  return [a, a.map((v) => v + 0.001)];
}

/** n zero-area triangles, each three points of one segment through the unit cube's centre. */
function collinearSlivers(n: number): TriangleMesh {
  const rng = new Rng(11);
  const positions = new Float64Array(9 * n), triangles = new Uint32Array(3 * n);
  for (let t = 0; t < n; t++) {
    const u = [rng.uniform(), rng.uniform(), rng.uniform()].sort((x, y) => x - y);
    for (let c = 0; c < 3; c++) {
      positions.set([u[c] - 0.5, 0.7 * u[c] - 0.35, 0.3 * u[c] - 0.15], 9 * t + 3 * c);
      triangles[3 * t + c] = 3 * t + c;
    }
  }
  return { positions, triangles };
}

/** n points on the unit sphere. */
function pointsOnSphere(n: number): Float64Array {
  const rng = new Rng(12);
  const p = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const x = rng.uniform() - 0.5, y = rng.uniform() - 0.5, z = rng.uniform() - 0.5, l = Math.hypot(x, y, z) || 1;
    p.set([x / l, y / l, z / l], 3 * i);
  }
  return p;
}

const compute = computeMs;
const evals = (r: HausdorffResult) => r.ab.distanceEvals + (r.ba ? r.ba.distanceEvals : 0);

async function bestNearest(a: Float64Array, b: Float64Array, threads: number) {
  let kept: { ms: number; evals: number } | null = null;
  for (let run = 0; run < 3; run++) {
    const r = await nearestDistances(a, b, { threads });
    const ms = r.buildMs + r.queryMs;
    if (!kept || ms < kept.ms) kept = { ms, evals: r.distanceEvals };
  }
  return kept!;
}

/** `xhd compare --json` on two meshes, best of `runs` by sample + build + query time. */
function bestSurface(a: string, b: string, threads: number, runs = 3): { ms: number; hd: number } | { skipped: string } {
  let kept: { ms: number; hd: number } | null = null;
  for (let run = 0; run < runs; run++) {
    const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'xhd'), 'compare', a, b, '--backend', 'cpu', '--threads', String(threads), '--json'],
      { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) return { skipped: (r.stderr || 'failed').trim().split('\n').pop()! };
    const j = JSON.parse(r.stdout);
    const ms = j.timings_ms.sample + j.timings_ms.build + j.timings_ms.query;
    if (!kept || ms < kept.ms) kept = { ms, hd: j.hd };
  }
  return kept!;
}

/** An OFF mesh's text as fandisk moved 0.001 along x, fandisk with a copy of itself at (1e7, 1e7, 0), and that pair
 *  moved 0.001 along x: three OFF files written into dir. */
function twoFandisks(off: string, dir: string): { moved: string; two: string; twoMoved: string } {
  const tokens = off.split(/\s+/).filter((t) => t.length > 0);
  const [nv, nf] = [Number(tokens[1]), Number(tokens[2])];
  const xyz = tokens.slice(4, 4 + 3 * nv).map(Number);
  const faces: number[][] = [];
  for (let at = 4 + 3 * nv, f = 0; f < nf; f++) {
    const k = Number(tokens[at]);
    faces.push(tokens.slice(at + 1, at + 1 + k).map(Number));
    at += 1 + k;
  }
  const write = (name: string, copies: number[][]) => {
    const out = [`OFF`, `${nv * copies.length} ${nf * copies.length} 0`];
    for (const by of copies) for (let i = 0; i < nv; i++) out.push(`${xyz[3 * i] + by[0]} ${xyz[3 * i + 1] + by[1]} ${xyz[3 * i + 2] + by[2]}`);
    copies.forEach((_, c) => { for (const f of faces) out.push(`${f.length} ${f.map((v) => v + c * nv).join(' ')}`); });
    const path = join(dir, name);
    writeFileSync(path, out.join('\n') + '\n');
    return path;
  };
  return {
    moved: write('fandisk-moved.off', [[0.001, 0, 0]]),
    two: write('two-fandisks.off', [[0, 0, 0], [1e7, 1e7, 0]]),
    twoMoved: write('two-fandisks-moved.off', [[0.001, 0, 0], [1e7 + 0.001, 1e7, 0]]),
  };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const s = parseSettings(argv);
  const backends = usableBackends(s.backends, log);
  const n = s.points;
  const lines = [
    '# Robustness benchmark: far outliers and coincident points', '',
    ...runLines('scripts/bench-robust', argv),
    `- GPU: ${backends.includes('cuda') ? `${cudaDevice(0).name} (driver ${cudaDevice(0).driverVersion})` : 'none used'}`,
    `- Native libraries from ${libraryVersion()}; CPU threads: ${s.threads}`,
    '- compute = index builds + queries (both directions) as the library reports them; evaluations = distances it counted. Best of 3.',
    '',
  ];
  const [a, b] = movedCopy(n);
  const far = a.slice();
  far.set([1e9, 0, 0], 0);
  // A far cluster: 0.5% of A's points moved into a cube of side 0.001 at (1e9, 1e9, 1e9) (a second object, a burst
  // of stray returns), more than the bulk box's 0.1% tails leave out (the frame's 1% core does).
  // 5% is more than the frame's loose points may hold (1/64): an island of A alone, its queries searched against B's
  // targets in double (kernels/geometry/island_orphans.h).
  const clusterOf = (every: number) => {
    const clustered = a.slice();
    for (let i = 0; i < n; i += every) clustered.set([1e9 + (i % 7) * 1e-4, 1e9 + (i % 11) * 1e-4, 1e9 + (i % 13) * 1e-4], 3 * i);
    return { points: clustered, count: Math.ceil(n / every) };
  };
  const clusters = [clusterOf(200), clusterOf(20)];
  if (s.sections.includes('points')) {
    lines.push(`## Points: ${n.toLocaleString('en-US')} in the unit cube against their copy moved 0.001, with and without one point of A at (1e9, 0, 0), and with ${Math.ceil(n / 200).toLocaleString('en-US')} points of A (0.5%), or ${Math.ceil(n / 20).toLocaleString('en-US')} (5%), in a cluster at 1e9`, '',
      '| case | backend | HD | compute ms | evaluations | vs without |', '| --- | --- | --- | --- | --- | --- |');
    for (const backend of backends) {
      const plain = await bestOfThree(a, b, backend, s.threads);
      const outlier = await bestOfThree(far, b, backend, s.threads);
      lines.push(`| no outlier | ${backend} | ${plain.hd.toPrecision(10)} | ${formatMs(compute(plain))} | ${evals(plain).toLocaleString('en-US')} | |`);
      lines.push(`| one at 1e9 | ${backend} | ${outlier.hd.toPrecision(10)} | ${formatMs(compute(outlier))} | ${evals(outlier).toLocaleString('en-US')} | ${(compute(outlier) / compute(plain)).toFixed(2)}x |`);
      for (const c of clusters) {
        const cluster = await bestOfThree(c.points, b, backend, s.threads);
        lines.push(`| ${c.count.toLocaleString('en-US')} in a cluster at 1e9 | ${backend} | ${cluster.hd.toPrecision(10)} | ${formatMs(compute(cluster))} | ${evals(cluster).toLocaleString('en-US')} | ${(compute(cluster) / compute(plain)).toFixed(2)}x |`);
        log(`cluster of ${c.count} ${backend}: ${compute(cluster).toFixed(1)} ms`);
      }
      log(`outlier ${backend}: ${compute(plain).toFixed(1)} -> ${compute(outlier).toFixed(1)} ms`);
    }
  }

  if (s.sections.includes('objects')) {
    // Two objects far apart: every second point of A and of B moved by (1e7, 1e7, 0). One frame over both sized its grid
    // and float copies by the whole span (87 s for 200,000 points on the 2-core VM); islands search each object in a
    // frame of its own (kernels/geometry/island_compare.h). Wall time of the call, which holds the islands' planning and
    // copies; the whole search (XHD_ISLANDS=0) is run once, it being minutes long on the CPU.
    lines.push('', `## Points: two objects 1e7 apart (every second point of A and of B moved by (1e7, 1e7, 0)), A's two objects against B's one, and objects in a row and on a lattice, beside one object of as many points; wall ms of the call`, '',
      '| case | backend | HD | wall ms | evaluations | vs one object |', '| --- | --- | --- | --- | --- | --- |');
    const apart = (p: Float64Array) => {
      const q = p.slice();
      for (let i = 1; i < n; i += 2) (q[3 * i] += 1e7), (q[3 * i + 1] += 1e7);
      return q;
    };
    const [twoA, twoB] = [apart(a), apart(b)];
    // And A's second object with no B there: an island of A alone (kernels/geometry/island_orphans.h). And objects laid
    // out evenly, in a row of five 1e4 apart and on a 4 x 4 x 4 lattice 1e3 apart (point i in object i % count), which
    // no one cut parts (row_cuts in kernels/geometry/point_islands.cpp).
    const laidOut = (p: Float64Array, offset: (g: number) => number[], count: number) => {
      const q = p.slice();
      for (let i = 0; i < n; i++) {
        const at = offset(i % count);
        for (let k = 0; k < 3; k++) q[3 * i + k] += at[k];
      }
      return q;
    };
    const row = (g: number) => [g * 1e4, 0, 0];
    const lattice = (g: number) => [(g % 4) * 1e3, (Math.floor(g / 4) % 4) * 1e3, Math.floor(g / 16) * 1e3];
    const pairs: Array<[string, Float64Array, Float64Array]> = [
      ['two objects', twoA, twoB], ['A two objects, B one', twoA, b],
      ['a row of five objects', laidOut(a, row, 5), laidOut(b, row, 5)],
      ['a 4 x 4 x 4 lattice of objects', laidOut(a, lattice, 64), laidOut(b, lattice, 64)],
    ];
    const timed = async (x: Float64Array, y: Float64Array, backend: 'cpu' | 'cuda', runs: number) => {
      let best: { ms: number; r: HausdorffResult } | null = null;
      for (let run = 0; run < runs; run++) {
        const t0 = performance.now();
        const r = await hausdorff(x, y, { backend, threads: s.threads });
        const ms = performance.now() - t0;
        if (!best || ms < best.ms) best = { ms, r };
      }
      return best!;
    };
    // The one-frame search, which takes minutes on the CPU, stopped after WHOLE_LIMIT_MS.
    const WHOLE_LIMIT_MS = 300_000;
    const wholeOnce = async (x: Float64Array, y: Float64Array, backend: 'cpu' | 'cuda') => {
      process.env.XHD_ISLANDS = '0';
      const t0 = performance.now();
      try {
        const r = await hausdorff(x, y, { backend, threads: s.threads, signal: AbortSignal.timeout(WHOLE_LIMIT_MS) });
        return { ms: performance.now() - t0, r };
      } catch (err) {
        if (err instanceof CancelledError) return null;
        throw err;
      } finally {
        delete process.env.XHD_ISLANDS;
      }
    };
    for (const backend of backends) {
      const one = await timed(a, b, backend, 3);
      const row = (label: string, t: { ms: number; r: HausdorffResult }) =>
        `| ${label} | ${backend} | ${t.r.hd.toPrecision(10)} | ${formatMs(t.ms)} | ${evals(t.r).toLocaleString('en-US')} | ${(t.ms / one.ms).toFixed(2)}x |`;
      lines.push(row('one object', one));
      for (const [label, x, y] of pairs) {
        const split = await timed(x, y, backend, 3);
        const whole = await wholeOnce(x, y, backend);
        const wholeLabel = `${label}, one frame (XHD_ISLANDS=0, one run)`;
        lines.push(row(`${label}, islands`, split),
          whole ? row(wholeLabel, whole) : `| ${wholeLabel} | ${backend} | | > ${formatMs(WHOLE_LIMIT_MS)} (cancelled) | | > ${(WHOLE_LIMIT_MS / one.ms).toFixed(0)}x |`);
        log(`${label} ${backend}: one ${one.ms.toFixed(1)} ms, islands ${split.ms.toFixed(1)} ms, whole ${whole ? whole.ms.toFixed(1) : '> limit'} ms`);
      }
    }
  }

  if (s.sections.includes('nearest')) {
    lines.push('', `## Per-point distances (\`--stats\`): ${n.toLocaleString('en-US')} random queries against ${n.toLocaleString('en-US')} copies of one point, and against as many distinct points (CPU)`, '',
      '| targets | compute ms | evaluations |', '| --- | --- | --- |');
    const copies = new Float64Array(3 * n);
    for (let i = 0; i < 3 * n; i += 3) copies.set([0.25, 0.5, 0.75], i);
    const distinct = await bestNearest(a, b, s.threads);
    const copied = await bestNearest(a, copies, s.threads);
    lines.push(`| distinct | ${formatMs(distinct.ms)} | ${distinct.evals.toLocaleString('en-US')} |`);
    lines.push(`| copies of one point | ${formatMs(copied.ms)} | ${copied.evals.toLocaleString('en-US')} |`);
    log(`copies: distinct ${distinct.ms.toFixed(1)} ms, copies ${copied.ms.toFixed(1)} ms`);
  }

  if (s.sections.includes('surfaces')) {
    lines.push('', '## Surface: 30,000 collinear slivers (each a random stretch of one segment, so a query ties on most of them) from 20,000 points (CPU)', '',
      '| method | compute ms | triangle tests |', '| --- | --- | --- |');
    const slivers = collinearSlivers(30_000), around = pointsOnSphere(20_000);
    for (const method of ['grid', 'brute'] as const) {
      let kept: { ms: number; tests: number } | null = null;
      for (let run = 0; run < 3; run++) {
        const r = await pointSurfaceDistances(around, slivers, { method, backend: 'cpu', threads: s.threads });
        if (!kept || r.buildMs + r.queryMs < kept.ms) kept = { ms: r.buildMs + r.queryMs, tests: r.triangleTests };
      }
      lines.push(`| ${method} | ${formatMs(kept!.ms)} | ${kept!.tests.toLocaleString('en-US')} |`);
      log(`slivers ${method}: ${kept!.ms.toFixed(0)} ms`);
    }

    lines.push('', '## Surface: fandisk (12,946 triangles) against itself, and with one vertex moved to x = 6.5e10 (CPU, both directions, 100,000 samples each)', '');
    if (!existsSync(FANDISK)) {
      lines.push(`(skipped: ${FANDISK} not found)`);
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'xhd-robust-'));
      try {
        const text = readFileSync(FANDISK, 'utf8').split('\n');
        const first = text.findIndex((line, i) => i > 1 && line.trim().split(/\s+/).length === 3);
        const [, y, z] = text[first].trim().split(/\s+/);
        text[first] = `6.5e10 ${y} ${z}`;
        const moved = join(dir, 'fandisk-far.off');
        writeFileSync(moved, text.join('\n'));
        lines.push('| A | B | HD | sample + build + query ms |', '| --- | --- | --- | --- |');
        for (const [x, y2, label] of [[FANDISK, FANDISK, 'fandisk'], [moved, FANDISK, 'fandisk, one vertex at 6.5e10']] as const) {
          const r = bestSurface(x, y2, s.threads);
          lines.push('skipped' in r ? `| ${label} | fandisk | (skipped: ${r.skipped}) | |` : `| ${label} | fandisk | ${r.hd.toPrecision(10)} | ${formatMs(r.ms)} |`);
        }
        // Two objects far apart in each mesh: fandisk and a copy of it at (1e7, 1e7, 0), against the same pair moved
        // 0.001 along x; beside fandisk against fandisk moved so. Islands (surface_islands.h), and one grid over both
        // (XHD_ISLANDS=0, one run).
        const pair = twoFandisks(readFileSync(FANDISK, 'utf8'), dir);
        lines.push('', '| A | B | HD | sample + build + query ms |', '| --- | --- | --- | --- |');
        const rows: Array<[string, string, string, number]> = [
          [FANDISK, pair.moved, 'fandisk | fandisk moved 0.001', 3],
          [pair.two, pair.twoMoved, 'fandisk and its copy 1e7 away | the same moved 0.001', 3],
          [pair.two, pair.twoMoved, 'the same, one grid over both (XHD_ISLANDS=0, one run) |', 1],
        ];
        for (const [x, y2, label, runs] of rows) {
          if (runs === 1) process.env.XHD_ISLANDS = '0';
          const r = bestSurface(x, y2, s.threads, runs);
          delete process.env.XHD_ISLANDS;
          lines.push('skipped' in r ? `| ${label} | (skipped: ${r.skipped}) | |` : `| ${label} | ${r.hd.toPrecision(10)} | ${formatMs(r.ms)} |`);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  if (s.sections.includes('streamed')) {
    const variants: Array<[string, Float64Array]> = [['no outlier', a], ['one at 1e9', far],
      ...clusters.map((c): [string, Float64Array] => [`${c.count.toLocaleString('en-US')} in a cluster at 1e9`, c.points])];
    lines.push(...streamedRows(variants, b, s.threads, log));
  }
  publishReport(lines.join('\n') + '\n', s.out, log);
}

main().catch((err) => {
  log(err instanceof Error ? err.stack ?? err.message : String(err));
  process.exit(1);
});
