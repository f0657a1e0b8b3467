// Every label at once: a TotalSegmentator-sized pair of label volumes (default 300×300×400 voxels of 1.5 mm,
// 104 labels, gzipped NIfTI) compared with one `xhd compare --labels all` process against one process per
// label (`--label L`), as a user without --labels must run it. Both are timed as process wall time (reading
// included), and every label's HD and HD95 from the one run are checked against its single run.
// Prints a markdown report on stdout. Options: --dims X,Y,Z --spacing S --labels N --seed N --single N (time
// only the first N single-label runs and scale up: for quick looks) --backend cpu|cuda|auto --keep DIR.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { writeNifti } from '../test/nifti-writer.js';
import { Rng } from './datasets.js';
import { ROOT } from './bench/root.js';

interface Settings { dims: [number, number, number]; spacing: number; labels: number; seed: number; single: number | null; backend: string; keep: string | null; stat: string }

function parse(argv: string[]): Settings {
  const s: Settings = { dims: [300, 300, 400], spacing: 1.5, labels: 104, seed: 20261125, single: null, backend: 'cpu', keep: null, stat: '95' };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--dims') s.dims = value.split(',').map(Number) as [number, number, number];
    else if (flag === '--spacing') s.spacing = Number(value);
    else if (flag === '--labels') s.labels = Number(value);
    else if (flag === '--seed') s.seed = Number(value);
    else if (flag === '--single') s.single = Number(value);
    else if (flag === '--backend') s.backend = value;
    else if (flag === '--keep') s.keep = value;
    else throw new Error(`unknown option ${flag}`);
  }
  return s;
}

interface Organ { centre: [number, number, number]; radii: [number, number, number] }

/** Labelled ellipsoids ("organs") drawn in order, later (smaller) ones over earlier ones, each within its own box. */
function draw(dims: [number, number, number], organs: Organ[]): Uint8Array {
  const [nx, ny, nz] = dims;
  const values = new Uint8Array(nx * ny * nz);
  organs.forEach(({ centre: c, radii: r }, index) => {
    const lo = c.map((v, a) => Math.max(0, Math.floor(v - r[a]))), hi = c.map((v, a) => Math.min(dims[a] - 1, Math.ceil(v + r[a])));
    for (let k = lo[2]; k <= hi[2]; k++) for (let j = lo[1]; j <= hi[1]; j++) for (let i = lo[0]; i <= hi[0]; i++) {
      const q = ((i - c[0]) / r[0]) ** 2 + ((j - c[1]) / r[1]) ** 2 + ((k - c[2]) / r[2]) ** 2;
      if (q <= 1) values[i + nx * (j + ny * k)] = index + 1;
    }
  });
  return values;
}

function makePair(s: Settings): { a: Uint8Array; b: Uint8Array; foreground: [number, number] } {
  const rng = new Rng(s.seed);
  const organs: Organ[] = [];
  for (let l = 0; l < s.labels; l++) {
    // Sizes spread like organs and vessels: a few large, many small.
    const size = 8 + 42 * rng.uniform() ** 2;
    organs.push({
      centre: s.dims.map((n) => n * (0.1 + 0.8 * rng.uniform())) as [number, number, number],
      radii: [0, 1, 2].map(() => size * (0.6 + 0.8 * rng.uniform())) as [number, number, number],
    });
  }
  // Larger organs first, so that no label is drawn over entirely (every label is in both volumes).
  organs.sort((x, y) => y.radii[0] * y.radii[1] * y.radii[2] - x.radii[0] * x.radii[1] * x.radii[2]);
  // B: each organ moved by up to ±1.5 voxels and scaled by ±5 %, a prediction's typical disagreement.
  const moved = organs.map((o) => ({
    centre: o.centre.map((v) => v + 3 * (rng.uniform() - 0.5)) as [number, number, number],
    radii: o.radii.map((r) => r * (0.95 + 0.1 * rng.uniform())) as [number, number, number],
  }));
  const a = draw(s.dims, organs), b = draw(s.dims, moved);
  const count = (v: Uint8Array) => v.reduce((n, x) => n + (x !== 0 ? 1 : 0), 0);
  return { a, b, foreground: [count(a), count(b)] };
}

function run(args: string[]): { ms: number; stdout: string } {
  const started = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'xhd'), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`xhd ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

function main(): void {
  const s = parse(process.argv.slice(2));
  const dir = s.keep ?? mkdtempSync(join(tmpdir(), 'xhd-bench-labels-'));
  mkdirSync(dir, { recursive: true });
  const log = (line: string) => process.stderr.write(line + '\n');
  try {
    const generated = performance.now();
    const { a, b, foreground } = makePair(s);
    const fileA = join(dir, 'labels-a.nii.gz'), fileB = join(dir, 'labels-b.nii.gz');
    const spacing = [s.spacing, s.spacing, s.spacing];
    writeNifti(fileA, { dims: [...s.dims], values: a, datatype: 'uint8', spacing, gzip: true });
    writeNifti(fileB, { dims: [...s.dims], values: b, datatype: 'uint8', spacing, gzip: true });
    log(`generated ${s.dims.join('×')} × 2 (${foreground.join(' / ')} foreground voxels) in ${(performance.now() - generated).toFixed(0)} ms`);

    const common = ['--percentile', s.stat, '--backend', s.backend, '--json', '-q'];
    run(['compare', fileA, fileB, '--label', '1', ...common]); // warm the page cache and the library once
    const all = run(['compare', fileA, fileB, '--labels', 'all', ...common]);
    const allJson = JSON.parse(all.stdout);
    const labels = Object.keys(allJson.labels);
    log(`--labels all: ${all.ms.toFixed(0)} ms wall (${labels.length} labels; read ${allJson.timings_ms.read.toFixed(0)}, surfaces ${allJson.timings_ms.surfaces.toFixed(0)}, measure ${allJson.timings_ms.measure.toFixed(0)} ms)`);

    const timed = s.single === null ? labels : labels.slice(0, s.single);
    let singleMs = 0, mismatches = 0;
    for (const label of timed) {
      const one = run(['compare', fileA, fileB, '--label', label, ...common]);
      singleMs += one.ms;
      const j = JSON.parse(one.stdout), got = allJson.labels[label];
      const key = s.stat === '95' ? 'hd95' : `hd_p${s.stat}`;
      if (j.hd !== got.hd || j[key] !== got[key]) {
        mismatches++;
        log(`  ✗ label ${label}: single hd ${j.hd} ${key} ${j[key]}, --labels all hd ${got.hd} ${key} ${got[key]}`);
      }
    }
    const scaled = (singleMs * labels.length) / timed.length;
    log(`single-label runs: ${timed.length} timed, ${singleMs.toFixed(0)} ms${timed.length < labels.length ? `, scaled to ${labels.length}: ${scaled.toFixed(0)} ms` : ''}; ${mismatches} mismatches`);

    const sizes = `${(statSync(fileA).size / 2 ** 20).toFixed(2)} / ${(statSync(fileB).size / 2 ** 20).toFixed(2)} MiB`;
    const lines = [
      `| case | labels | files (gzip) | --labels all, wall | ${labels.length} single-label runs, wall | ratio | values |`,
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
      `| ${s.dims.join('×')}, ${s.spacing} mm, seed ${s.seed} | ${labels.length} | ${sizes} | ${(all.ms / 1000).toFixed(2)} s | ${(scaled / 1000).toFixed(1)} s${timed.length < labels.length ? ` (${timed.length} timed, scaled)` : ''} | ${(scaled / all.ms).toFixed(1)}× | ${mismatches === 0 ? 'HD and HD' + s.stat + ' equal for every label' : `${mismatches} differ`} |`,
      '',
      `--labels all split: read ${allJson.timings_ms.read.toFixed(0)} ms · surfaces ${allJson.timings_ms.surfaces.toFixed(0)} ms · measure ${allJson.timings_ms.measure.toFixed(0)} ms · total ${allJson.timings_ms.total.toFixed(0)} ms (in-process); backend ${allJson.backend}, ${allJson.threads} threads.`,
      `Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} at the end.`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    if (!s.keep) rmSync(dir, { recursive: true, force: true });
  }
}

main();
