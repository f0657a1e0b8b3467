// Join benchmark: `xhd join`'s CPU and GPU backends on 3DPipe's NV workload rebuilt from its two published shapes
// (scripts/bench/join-datasets.ts), scaled by flags, and on a CAD-like assembly; FCL's broad phase + exact
// distance as the CPU peer where libfcl-dev is installed. Prints a markdown report on stdout.
//
//   scripts/bench-join [--vessels N] [--nuclei M] [--within D] [--knn K] [--cad N] [--sides cpu,cuda]
//                      [--threads T] [--runs R] [--meshes DIR] [--group-size G] [--files F]
//
// Defaults are sized for a small VM (10 vessels × 2,000 nuclei: the paper's 200 nuclei per vessel); the
// paper's NV is --vessels 1000 --nuclei 200000. Each measurement is the median of --runs runs of one join
// call (the first also reads its pairs out, to compare the CPU's and the GPU's; the others only count them).
// --files F also writes F of the nuclei as OFF files into a temporary directory and times reading them as a
// collection (`xhd join DIR …` does) on one thread and on every core.
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { readJoinCollection, readJoinCollectionAsync, type JoinCollection } from '../src/io/join-collection.js';
import { cudaDevice, probeBackend } from '../src/ops/backends.js';
import { spatialJoin, type JoinObjects, type JoinPredicate, type JoinStats } from '../src/ops/join.js';
import { cadParts, nuclei, objectCount, readShape, triangleCount, vessels } from './bench/join-datasets.js';
import { prepareFclJoin, runFclJoin } from './bench/fcl-join.js';
import { ROOT } from './bench/root.js';

interface Settings {
  vessels: number;
  nuclei: number;
  within: number;
  knn: number;
  cad: number;
  sides: string[];
  threads: number;
  runs: number;
  meshes: string;
  groupSize?: number;
  files: number;
}

function parseSettings(argv: string[]): Settings {
  const s: Settings = {
    vessels: 10, nuclei: 2000, within: 50, knn: 10, cad: 300, sides: ['cpu', 'cuda', 'fcl'], threads: availableParallelism(), runs: 3,
    meshes: join(ROOT, '..', 'shared', 'data', 'meshes'), files: 0,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i], value = argv[i + 1];
    const number = () => {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0) throw new Error(`${flag}: expected a number, got '${value}'`);
      i++;
      return n;
    };
    switch (flag) {
      case '--vessels': s.vessels = number(); break;
      case '--nuclei': s.nuclei = number(); break;
      case '--within': s.within = number(); break;
      case '--knn': s.knn = number(); break;
      case '--cad': s.cad = number(); break;
      case '--threads': s.threads = number(); break;
      case '--runs': s.runs = Math.max(1, number()); break;
      case '--sides': s.sides = value.split(','); i++; break;
      case '--meshes': s.meshes = value; i++; break;
      case '--group-size': s.groupSize = number(); break;
      case '--files': s.files = number(); break;
      case '--help':
        process.stdout.write('scripts/bench-join [--vessels N] [--nuclei M] [--within D] [--knn K] [--cad N] [--sides cpu,cuda,fcl] [--threads T] [--runs R] [--meshes DIR] [--group-size G] [--files F]\n');
        process.exit(0);
      default: throw new Error(`unknown flag ${flag}`);
    }
  }
  return s;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Measured {
  ms: number;
  stats: JoinStats;
  pairs: string;
}

/** One join, its pairs kept as text to compare backends; then runs - 1 more counting only, timed. */
async function measure(a: JoinObjects, b: JoinObjects | null, predicate: JoinPredicate, backend: 'cpu' | 'cuda', s: Settings): Promise<Measured> {
  const lines: string[] = [];
  const runs: { ms: number; stats: JoinStats }[] = [];
  for (let run = 0; run < s.runs; run++) {
    const start = performance.now();
    // The pairs' text, for comparing the backends, is the bench's own work: its time is left out (reading the
    // pairs from the native result stays in). At 3.58M pairs it was about 4 s.
    let textMs = 0;
    const stats = await spatialJoin(a, b, { predicate, backend, threads: s.threads, groupSize: s.groupSize, readPairs: run === 0 }, (batch) => {
      const textStart = performance.now();
      for (let i = 0; i < batch.count; i++) lines.push(`${batch.objects[2 * i]} ${batch.objects[2 * i + 1]} ${batch.distance[i]} ${batch.triangles[2 * i]} ${batch.triangles[2 * i + 1]}`);
      textMs += performance.now() - textStart;
    });
    runs.push({ ms: performance.now() - start - textMs, stats });
  }
  // The median run, with its own phase times (the lower middle one for an even count).
  runs.sort((x, y) => x.ms - y.ms);
  const middle = runs[Math.floor((runs.length - 1) / 2)];
  return { ms: middle.ms, stats: middle.stats, pairs: lines.join('\n') };
}

/** Objects [0, count) of a collection as OFF files, one each, named so that they sort in object order. */
function writeObjects(c: JoinObjects, count: number, dir: string): void {
  const digits = String(count).length;
  for (let o = 0; o < count; o++) {
    const f0 = Number(c.objectFaces[o]), f1 = Number(c.objectFaces[o + 1]);
    const used = new Map<number, number>();
    const lines: string[] = [];
    const faces: string[] = [];
    for (let t = f0; t < f1; t++) {
      const corner = [0, 1, 2].map((k) => {
        const v = c.triangles[3 * t + k];
        if (!used.has(v)) {
          used.set(v, used.size);
          lines.push(`${c.positions[3 * v]} ${c.positions[3 * v + 1]} ${c.positions[3 * v + 2]}`);
        }
        return used.get(v);
      });
      faces.push(`3 ${corner.join(' ')}`);
    }
    writeFileSync(join(dir, `n${String(o).padStart(digits, '0')}.off`), `OFF\n${used.size} ${f1 - f0} 0\n${lines.join('\n')}\n${faces.join('\n')}\n`);
  }
}

function sameCollection(x: JoinCollection, y: JoinCollection): boolean {
  const equal = (p: ArrayLike<number | bigint>, q: ArrayLike<number | bigint>) => p.length === q.length && Array.prototype.every.call(p, (v: number | bigint, i: number) => Object.is(v, q[i]));
  return x.objects.length === y.objects.length && x.objects.every((o, i) => o.id === y.objects[i].id) &&
    equal(x.positions, y.positions) && equal(x.triangles, y.triangles) && equal(x.objectFaces, y.objectFaces);
}

/** Reading `count` nuclei as a directory of OFF files: one thread, then s.threads. */
async function readingRow(N: JoinObjects, s: Settings): Promise<string> {
  const count = Math.min(s.files, objectCount(N));
  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-join-'));
  try {
    writeObjects(N, count, dir);
    let start = performance.now();
    const serial = readJoinCollection(dir);
    const serialMs = performance.now() - start;
    start = performance.now();
    const parallel = await readJoinCollectionAsync(dir, 'components', s.threads);
    const parallelMs = performance.now() - start;
    if (!sameCollection(serial, parallel)) throw new Error('the collection read on threads differs from the one read on one thread');
    return `Reading ${count.toLocaleString('en-US')} nuclei as OFF files (\`xhd join DIR\`'s reader): one thread ${fmt(serialMs)}, ` +
      `${s.threads} threads ${fmt(parallelMs)} (${(serialMs / parallelMs).toFixed(1)}×); the same collection.`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function fmt(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms >= 100 ? 0 : 1)} ms`;
}

async function main(): Promise<void> {
  const s = parseSettings(process.argv.slice(2));
  const vessel = readShape(join(s.meshes, '3dpipe-vessel.off'));
  const nucleus = readShape(join(s.meshes, '3dpipe-nucleus.off'));
  const V = vessels(vessel, Math.max(1, s.vessels));
  const N = nuclei(nucleus, Math.max(1, s.nuclei), V.min, V.max, 1);
  const cad = cadParts(Math.max(1, s.cad), 2);
  const gpu = s.sides.includes('cuda') ? probeBackend('cuda') : { available: false, reason: 'not asked for' };
  const fcl = s.sides.includes('fcl') ? prepareFclJoin(log) : { error: 'not asked for' };

  const workloads: { name: string; a: JoinObjects; b: JoinObjects | null; predicate: JoinPredicate; fcl: boolean }[] = [];
  if (s.vessels > 0 && s.nuclei > 0) {
    workloads.push(
      { name: `NV within ${s.within}`, a: V.objects, b: N, predicate: { kind: 'within', distance: s.within }, fcl: true },
      { name: 'NV intersects', a: V.objects, b: N, predicate: { kind: 'intersects' }, fcl: false },
      { name: `NV ${s.knn}-NN (nuclei of each vessel)`, a: V.objects, b: N, predicate: { kind: 'knn', k: s.knn }, fcl: false });
  }
  if (s.cad > 0) {
    workloads.push(
      { name: 'CAD self-join within 0.5', a: cad, b: null, predicate: { kind: 'within', distance: 0.5 }, fcl: true },
      { name: 'CAD self-join intersects', a: cad, b: null, predicate: { kind: 'intersects' }, fcl: false });
  }

  const rows: string[] = [];
  for (const w of workloads) {
    log(`${w.name}: ${objectCount(w.a)} × ${w.b ? objectCount(w.b) : 'self'} objects`);
    const cpu = s.sides.includes('cpu') ? await measure(w.a, w.b, w.predicate, 'cpu', s) : null;
    const cuda = gpu.available ? await measure(w.a, w.b, w.predicate, 'cuda', s) : null;
    if (cpu && cuda && cpu.pairs !== cuda.pairs) throw new Error(`${w.name}: the GPU's pairs differ from the CPU's`);
    let fclCell = '—';
    if (w.fcl && 'error' in fcl) fclCell = `skipped: ${fcl.error}`;
    else if (w.fcl && !('error' in fcl) && w.predicate.kind === 'within') {
      const r = runFclJoin(fcl, w.a, w.b, w.predicate.distance, log);
      if ('error' in r) fclCell = `failed: ${r.error}`;
      else {
        // Ours is timed over the whole call (its grouping included); FCL's model building is left out.
        fclCell = `${fmt(r.ms)} + build ${fmt(r.buildMs)} (${r.pairs.toLocaleString('en-US')} pairs${cpu && r.pairs !== cpu.stats.pairs ? ' ✗ differs' : ''})`;
        if (cpu) fclCell += `: ours CPU ${(r.ms / cpu.ms).toFixed(1)}× faster`;
      }
    }
    const c = cpu?.stats;
    rows.push(`| ${w.name} | ${c ? c.pairs.toLocaleString('en-US') : '—'} | ${c ? `${c.objectPairs.toLocaleString('en-US')} / ${c.groupPairs.toLocaleString('en-US')} / ${c.trianglePairs.toLocaleString('en-US')}` : '—'} | ` +
      `${cpu ? `${fmt(cpu.ms)} (build ${fmt(c!.buildMs)}, filter ${fmt(c!.filterMs)}, refine ${fmt(c!.refineMs)})` : '—'} | ` +
      `${cuda ? `${fmt(cuda.ms)} (build ${fmt(cuda.stats.buildMs)}, filter ${fmt(cuda.stats.filterMs)}, refine ${fmt(cuda.stats.refineMs)}, of it upload ${fmt(cuda.stats.uploadMs)})` : `skipped: ${gpu.reason?.split('\n')[0] ?? ''}`} | ${fclCell} |`);
    log(`  ${rows[rows.length - 1]}`);
  }

  const reading = s.files > 0 ? await readingRow(N, s) : '';
  if (reading) log(reading);

  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch { /* not a checkout */ }
  const device = gpu.available ? cudaDevice(0) : null;
  const out = [
    `### xhd join (${new Date().toISOString().slice(0, 10)}, commit ${commit})`,
    '',
    `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} hardware threads (${s.threads} used), ${(totalmem() / 2 ** 30).toFixed(0)} GiB` +
      `${device ? `; GPU ${device.name}` : '; no GPU'}. Median of ${s.runs} runs.`,
    '',
    `NV: ${s.vessels} vessels (${triangleCount(V.objects).toLocaleString('en-US')} triangles) × ${s.nuclei} nuclei (${triangleCount(N).toLocaleString('en-US')} triangles), ` +
      `3DPipe's shapes replicated as its simulator does; CAD: ${s.cad} parts (${triangleCount(cad).toLocaleString('en-US')} triangles).`,
    '',
    '| workload | pairs | object / group / triangle pairs refined (CPU) | ours CPU | ours GPU | FCL broad phase + distance |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    ...(reading ? [reading, ''] : []),
  ];
  process.stdout.write(out.join('\n'));
}

main().catch((err) => {
  process.stderr.write(`bench-join: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
