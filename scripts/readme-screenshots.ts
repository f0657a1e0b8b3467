// The README's pictures of the HTML reports (issue 28): one page of each kind written by the real CLI
// (bin/xhd), opened in headless Chromium, and photographed once its first frame is drawn, into
// docs/images/report-<kind>.png. Inputs come from ../shared/data where it exists (real scans and meshes), with
// what no file there holds (poses, perturbed copies of a scan, a pair of masks) generated from fixed seeds;
// without that folder every input is synthetic, and the script says so. Each picture should stay well under
// 250 KB, since the README carries it: the script warns when one does not.
//   scripts/readme-screenshots [--data DIR] [--out DIR] [--only compare,surface,masks,distance,batch]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { Browser } from 'puppeteer-core';

import { headlessUnavailable, launchHeadless } from '../src/report/html/headless-chromium.js';
import { writeNifti } from '../test/nifti-writer.js';
import { rng } from '../test/random-points.js';
import { ROOT } from './bench/root.js';

const log = (line: string) => process.stderr.write(`readme-screenshots: ${line}\n`);

/** A picture: the report it photographs, made in `dir`, and the page's elements its frame is fitted to. */
interface Shot {
  kind: string;
  /** What the picture shows (printed beside its size, to check against the image). */
  what: string;
  /** Writes the inputs into dir, runs xhd there, and returns the report's file name. */
  make: (dir: string) => string;
  /** CSS selectors of the elements whose boxes' union, with a margin, is the picture. */
  frame: string[];
  /** Viewport: the 3D view is 62% of its height (page-style.ts), so this sets how large the view comes out. */
  viewport: { width: number; height: number };
}

const MAX_BYTES = 250 * 1024;

let dataDir = join(ROOT, '..', 'shared', 'data');
let synthetic = false;

/** Runs xhd in dir (so the page shows the short names the inputs have there); exit 1 (a threshold exceeded) is fine. */
function xhd(dir: string, args: string[]): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'xhd'), ...args, '--backend', 'cpu', '-q'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`xhd ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.trim()}`);
}

/** A file of the shared data, linked into dir under its own name (no copy: some are megabytes). */
function shared(dir: string, relative: string): string {
  const name = basename(relative);
  symlinkSync(join(dataDir, relative), join(dir, name));
  return name;
}

function writeXyz(path: string, p: ArrayLike<number>): void {
  const lines: string[] = [];
  for (let i = 0; i < p.length; i += 3) lines.push(`${p[i]} ${p[i + 1]} ${p[i + 2]}`);
  writeFileSync(path, lines.join('\n') + '\n');
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Points with outward normals on a unit sphere squashed along z, a stand-in for a scanned part. */
function syntheticCloud(n: number, random: () => number): { points: Float64Array; normals: Float64Array } {
  const points = new Float64Array(3 * n), normals = new Float64Array(3 * n);
  for (let i = 0; i < n; i++) {
    const z = 2 * random() - 1, t = 2 * Math.PI * random(), r = Math.sqrt(1 - z * z);
    const p = [r * Math.cos(t), r * Math.sin(t), 0.6 * z];
    const nrm = [p[0], p[1], p[2] / 0.36];
    const len = Math.hypot(nrm[0], nrm[1], nrm[2]);
    for (let c = 0; c < 3; c++) {
      points[3 * i + c] = p[c];
      normals[3 * i + c] = nrm[c] / len;
    }
  }
  return { points, normals };
}

/** Reads x y z nx ny nz rows (the shared kitten scan's layout). */
function readCloudWithNormals(path: string): { points: Float64Array; normals: Float64Array } {
  const rows = readFileSync(path, 'utf8').split('\n').map((l) => l.trim().split(/\s+/).map(Number)).filter((r) => r.length >= 6 && r.every(Number.isFinite));
  return { points: Float64Array.from(rows.flatMap((r) => r.slice(0, 3))), normals: Float64Array.from(rows.flatMap((r) => r.slice(3, 6))) };
}

function diagonal(p: Float64Array): number {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], p[i]);
    hi[i % 3] = Math.max(hi[i % 3], p[i]);
  }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

/**
 * A copy of the cloud as a scan of it might come back: every point moved by noise of `noise` (a share of the
 * diagonal) and, where `dent` > 0, the points within a fifth of the diagonal of one point pushed in along their
 * normals by up to `dent` of it: the kind of local defect a threshold is meant to catch.
 */
function perturbed(cloud: { points: Float64Array; normals: Float64Array }, noise: number, dent: number, random: () => number): Float64Array {
  const { points, normals } = cloud;
  const d = diagonal(points), out = new Float64Array(points.length);
  const centre = 3 * Math.floor(random() * (points.length / 3)), radius = 0.2 * d;
  for (let i = 0; i < points.length; i += 3) {
    const r = Math.hypot(points[i] - points[centre], points[i + 1] - points[centre + 1], points[i + 2] - points[centre + 2]);
    const push = r < radius ? dent * d * 0.5 * (1 + Math.cos(Math.PI * r / radius)) : 0;
    for (let c = 0; c < 3; c++) out[i + c] = points[i + c] - push * normals[i + c] + noise * d * gaussian(random);
  }
  return out;
}

/** A closed triangle mesh (OFF) of an ellipsoid with semi-axes a, b, c, for the synthetic distance pages. */
function writeEllipsoidOff(path: string, a: number, b: number, c: number, rings = 24, sectors = 48): void {
  const v: string[] = [], f: string[] = [];
  v.push(`0 0 ${c}`);
  for (let r = 1; r < rings; r++) {
    const phi = (Math.PI * r) / rings;
    for (let s = 0; s < sectors; s++) {
      const t = (2 * Math.PI * s) / sectors;
      v.push(`${a * Math.sin(phi) * Math.cos(t)} ${b * Math.sin(phi) * Math.sin(t)} ${c * Math.cos(phi)}`);
    }
  }
  v.push(`0 0 ${-c}`);
  const at = (r: number, s: number) => 1 + (r - 1) * sectors + (s % sectors);
  for (let s = 0; s < sectors; s++) f.push(`3 0 ${at(1, s)} ${at(1, s + 1)}`);
  for (let r = 1; r < rings - 1; r++) {
    for (let s = 0; s < sectors; s++) f.push(`3 ${at(r, s)} ${at(r + 1, s)} ${at(r + 1, s + 1)}`, `3 ${at(r, s)} ${at(r + 1, s + 1)} ${at(r, s + 1)}`);
  }
  const last = v.length - 1;
  for (let s = 0; s < sectors; s++) f.push(`3 ${last} ${at(rings - 1, s + 1)} ${at(rings - 1, s)}`);
  writeFileSync(path, `OFF\n${v.length} ${f.length} 0\n${v.join('\n')}\n${f.join('\n')}\n`);
}

/** The compare page of two point clouds: the two hippocampus scans, or two synthetic clouds one of them dented. */
function makeCompare(dir: string): string {
  let a: string, b: string;
  if (synthetic) {
    const random = rng(28);
    const cloud = syntheticCloud(8000, random);
    [a, b] = ['part.xyz', 'scan.xyz'];
    writeXyz(join(dir, a), cloud.points);
    writeXyz(join(dir, b), perturbed(syntheticCloud(6000, random), 0.002, 0.05, random));
  } else {
    [a, b] = [shared(dir, 'points/hippo1.ply'), shared(dir, 'points/hippo2.ply')];
  }
  xhd(dir, ['compare', a, b, '--report', 'compare.html']);
  return 'compare.html';
}

/** The compare page of two meshes (surface to surface): the elephant against its refinement, or two ellipsoids. */
function makeSurface(dir: string): string {
  let a: string, b: string;
  if (synthetic) {
    [a, b] = ['a.off', 'b.off'];
    writeEllipsoidOff(join(dir, a), 1, 0.7, 0.5);
    writeEllipsoidOff(join(dir, b), 1.05, 0.7, 0.45, 12, 20);
  } else {
    [a, b] = [shared(dir, 'meshes/elephant.off'), shared(dir, 'meshes/refined_elephant.off')];
  }
  xhd(dir, ['compare', a, b, '--report', 'surface.html']);
  return 'surface.html';
}

/**
 * Two masks on one grid, as two raters might outline one organ: a body with a lobe, B's drawn a voxel wider,
 * its lobe smaller and moved, both outlines wavy in their own way. Generated always: the shared data holds no
 * pair of segmentations (its anatomical volume is an MR image, whose thresholds give speckle, not outlines).
 */
function makeMasks(dir: string): string {
  const dims: [number, number, number] = [96, 80, 48], spacing = [0.8, 0.8, 1.5];
  const mask = (grow: number, lobe: number[], phase: number) => {
    const v = new Uint8Array(dims[0] * dims[1] * dims[2]);
    const inside = (p: number[], c: number[], r: number[]) => {
      const t = Math.atan2(p[1] - c[1], p[0] - c[0]);
      const wave = 1 + 0.05 * Math.sin(3 * t + phase) + 0.03 * Math.sin(5 * t - 2 * phase);
      return ((p[0] - c[0]) / ((r[0] + grow) * wave)) ** 2 + ((p[1] - c[1]) / ((r[1] + grow) * wave)) ** 2 + ((p[2] - c[2]) / (r[2] + grow / 2)) ** 2 <= 1;
    };
    for (let k = 0; k < dims[2]; k++) for (let j = 0; j < dims[1]; j++) for (let i = 0; i < dims[0]; i++) {
      const p = [i, j, k];
      if (inside(p, [44, 38, 24], [30, 22, 14]) || inside(p, lobe.slice(0, 3), lobe.slice(3))) v[i + dims[0] * (j + dims[1] * k)] = 1;
    }
    return v;
  };
  // Voxel (i, j, k) at (0.8 i - 38, 0.8 j - 32, 1.5 k - 36) mm: a scanner's sform, origin near the grid's centre.
  const sform = { rows: [0.8, 0, 0, -38, 0, 0.8, 0, -32, 0, 0, 1.5, -36] };
  writeNifti(join(dir, 'rater1.nii.gz'), { dims, spacing, sform, gzip: true, values: mask(0, [70, 54, 26, 16, 12, 10], 0) });
  writeNifti(join(dir, 'rater2.nii.gz'), { dims, spacing, sform, gzip: true, values: mask(1, [66, 51, 25, 12, 9, 8], 1.3) });
  xhd(dir, ['compare', 'rater1.nii.gz', 'rater2.nii.gz', '--report', 'masks.html']);
  return 'masks.html';
}

/**
 * The distance page of a posed pair over frames: B passes in front of A on a straight path, turning a half turn
 * as it goes, so the minimum distance dips to a closest frame and rises again. The shared armadillo and the
 * elephant scaled to a third of its size (a 3×4 pose [sR | t]: the frames file takes affine poses), or two
 * ellipsoids.
 */
function makeDistance(dir: string): string {
  let a: string, b: string, size: number;
  if (synthetic) {
    [a, b, size] = ['part.off', 'tool.off', 1];
    writeEllipsoidOff(join(dir, a), 60, 90, 50);
    writeEllipsoidOff(join(dir, b), 20, 12, 10);
  } else {
    [a, b, size] = [shared(dir, 'meshes/armadillo.off'), shared(dir, 'meshes/elephant.off'), 40];
  }
  const frames = 60, lines: string[] = [];
  for (let f = 0; f < frames; f++) {
    const s = f / (frames - 1), angle = Math.PI * s;
    const [c, n] = [size * Math.cos(angle), size * Math.sin(angle)];
    // Turning about y (the armadillo's up), B's origin from (-70, 20, 85) to (70, 20, 85).
    lines.push([c, 0, n, -70 + 140 * s, 0, size, 0, 20, -n, 0, c, 85].map((x) => +x.toFixed(6)).join(' '));
  }
  writeFileSync(join(dir, 'poses.txt'), lines.join('\n') + '\n');
  xhd(dir, ['distance', a, b, '--frames', 'poses.txt', '--both', '--report', 'distance.html']);
  return 'distance.html';
}

/**
 * The batch page: a reference scan (the shared kitten, or a synthetic cloud) against twenty copies of it with
 * more or less noise and a dent or none, each checked against 1% of the diagonal, by HD or HD95 in turn.
 */
function makeBatch(dir: string): string {
  const cloud = synthetic ? syntheticCloud(5000, rng(29)) : readCloudWithNormals(join(dataDir, 'points', 'kitten.xyz'));
  const reference = 'reference.xyz';
  writeXyz(join(dir, reference), cloud.points);
  const random = rng(30);
  const rows = ['a,b,threshold,metric'];
  for (let k = 1; k <= 20; k++) {
    const noise = 0.0005 * (1 + (k % 4)), dent = k % 3 === 0 ? 0.004 * k : 0;
    const name = `scan-${String(k).padStart(2, '0')}.xyz`;
    writeXyz(join(dir, name), perturbed(cloud, noise, dent, random));
    rows.push(`${name},${reference},1%,${k % 2 ? 'hd' : 'hd95'}`);
  }
  writeFileSync(join(dir, 'pairs.csv'), rows.join('\n') + '\n');
  xhd(dir, ['batch', 'pairs.csv', '--percentile', '95', '--report', 'batch.html']);
  return 'batch.html';
}

// The header (which command, which inputs) above the parts each kind's README paragraph describes. A table's
// section, not the table, where the section scrolls it (the frame table's 60 rows).
const SHOTS: Shot[] = [
  {
    kind: 'compare', what: 'points compare: 3D view with the HD witness, colour bar, worst regions', make: makeCompare,
    frame: ['header', '#view-panel', '#legend-panel'], viewport: { width: 1100, height: 800 },
  },
  {
    kind: 'surface', what: 'mesh compare (surface samples): 3D view, colour bar, worst regions', make: makeSurface,
    frame: ['header', '#view-panel', '#legend-panel'], viewport: { width: 1100, height: 720 },
  },
  {
    // Wider, so the witness label beside the lobe stays inside the view.
    kind: 'masks', what: 'mask compare: 3D view, worst regions, the three orthogonal slices', make: makeMasks,
    frame: ['header', '#view-panel', '#legend-panel', '#slices-panel'], viewport: { width: 1200, height: 640 },
  },
  {
    kind: 'distance', what: 'distance over frames: 3D view of the closest frame, distance and time per frame, frame table', make: makeDistance,
    frame: ['header', '#view-panel', '#plots', 'section:has(#frames)'], viewport: { width: 1100, height: 640 },
  },
  {
    kind: 'batch', what: 'batch: the pairs table and the distribution of HD over the pairs', make: makeBatch,
    frame: ['header', 'section:has(#pairs)', 'section:has(#distribution)'], viewport: { width: 1100, height: 800 },
  },
];

/** Returns once the page's 3D views have drawn what was asked of them (a pixel read back waits for that). */
const DRAWN = `(() => {
  const view = window.__xhd.view;
  const renderer = view && (view.renderer || (view.base && view.base.renderer));
  if (renderer) {
    const gl = renderer.getContext();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  }
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
})()`;

async function photograph(browser: Browser, report: string, shot: Shot, png: string): Promise<void> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push((e as Error).message));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  try {
    await page.setViewport({ ...shot.viewport, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(report).href);
    await page.waitForFunction('window.__xhd && (window.__xhd.ready || window.__xhd.error)', { timeout: 120_000, polling: 50 });
    const error = await page.evaluate('window.__xhd.error');
    if (error) throw new Error(`the ${shot.kind} page failed in the browser: ${error}`);
    await page.evaluate(DRAWN);
    if (problems.length > 0) throw new Error(`the ${shot.kind} page reported: ${problems.join('; ')}`);
    // The union of the named elements' boxes, widened by half the page's gap so the panels keep their edges.
    const clip = (await page.evaluate(`((selectors) => {
      const boxes = selectors.map((s) => document.querySelector(s)).filter((e) => e && !e.hidden).map((e) => e.getBoundingClientRect());
      const pad = 8, x = Math.max(0, Math.min(...boxes.map((b) => b.left)) - pad), y = Math.max(0, Math.min(...boxes.map((b) => b.top)) - pad);
      return { x, y, width: Math.min(document.documentElement.scrollWidth, Math.max(...boxes.map((b) => b.right)) + pad) - x, height: Math.max(...boxes.map((b) => b.bottom)) + pad - y };
    })(${JSON.stringify(shot.frame)})`)) as { x: number; y: number; width: number; height: number };
    await page.screenshot({ path: png as `${string}.png`, type: 'png', clip });
  } finally {
    await page.close();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let out = join(ROOT, 'docs', 'images'), only: string[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i] ?? '';
    switch (argv[i]) {
      case '--data': dataDir = next(); break;
      case '--out': out = next(); break;
      case '--only': only = next().split(','); break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  const why = await headlessUnavailable();
  if (why) {
    log(`skipped: ${why}`);
    return;
  }
  synthetic = !existsSync(dataDir);
  if (synthetic) log(`${dataDir} is missing: the pictures are of synthetic inputs`);
  const shots = SHOTS.filter((s) => !only || only.includes(s.kind));
  mkdirSync(out, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'xhd-readme-screenshots-'));
  const browser = await launchHeadless();
  try {
    for (const shot of shots) {
      const dir = join(scratch, shot.kind);
      mkdirSync(dir);
      const report = join(dir, shot.make(dir));
      const png = join(out, `report-${shot.kind}.png`);
      await photograph(browser, report, shot, png);
      const bytes = statSync(png).size;
      log(`${png}: ${(bytes / 1024).toFixed(0)} KB, ${shot.what}`);
      if (bytes > MAX_BYTES) log(`warning: ${basename(png)} is over ${MAX_BYTES / 1024} KB: give it a smaller viewport or frame`);
    }
  } finally {
    await browser.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
