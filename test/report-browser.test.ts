// The reports in a real browser (headless Chromium): compare's loads from file:// without console errors,
// the 3D view draws, the legend shows the JSON's HD, a worst region's button flies the camera there, the
// direction toggle recolours; batch's table sorts by a clicked column; distance's frame plot draws and a row
// click picks the frame; --snapshot writes a PNG of the drawn view. A screenshot of each page is left in
// the test's temporary directory.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { pathToFileURL } from 'node:url';

import type { Browser, Page } from 'puppeteer-core';

import { browserSkipReason, launchBrowser } from './browser.js';
import { runXhd, scratchDir, writeXyz } from './cli-run.js';
import { fixture } from './helpers.js';
import { writeNifti } from './nifti-writer.js';
import { rng, uniform } from './random-points.js';
import { batchReportData, reportData } from './report-page.js';
import { suiteUnless } from './skippable-suite.js';
import { SNAPSHOT_SIZE } from '../src/report/html/snapshot.js';

const dir = scratchDir();
const path = (name: string) => join(dir, name);

suiteUnless(browserSkipReason(), 'the compare report in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  let json: { hd: number };
  const report = path('report.html');

  before(async () => {
    const random = rng(2028);
    writeXyz(path('a.xyz'), uniform(20_000, 3, random));
    writeXyz(path('b.xyz'), uniform(15_000, 3, random, 0.1));
    // Thinned (--report-points), so the page's decoding of a sample is what is tested.
    const r = runXhd(['compare', path('a.xyz'), path('b.xyz'), '--json', '--backend', 'cpu', '--report', report, '--report-points', '8000']);
    assert.equal(r.code, 0, r.stderr);
    json = JSON.parse(r.stdout);
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warn') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
    // No network: a report must not need any. Every request but the page itself fails.
    await page.setRequestInterception(true);
    page.on('request', (request) => (request.url().startsWith('file:') || request.url().startsWith('data:') || request.url().startsWith('blob:') ? request.continue() : request.abort()));
    await page.goto(pathToFileURL(report).href);
    await page.waitForFunction('window.__xhd && (window.__xhd.ready || window.__xhd.error)', { timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
  });

  it('draws its first frame once: the setup (camera, colours, witness, size) asks for one render', async () => {
    // A million points take a software renderer about a second a frame: each extra render at setup delays the page.
    assert.equal(await page.evaluate('window.__xhd.view.renderer.info.render.frame'), 1);
  });

  it('loads from file:// without errors or warnings on the console', async (t) => {
    assert.equal(await page.evaluate('window.__xhd.error'), undefined);
    assert.deepEqual(problems, []);
    await page.screenshot({ path: path('compare-report.png') });
    t.diagnostic(`screenshot: ${path('compare-report.png')}`);
  });

  it('draws the points: a good share of the canvas is not background', async () => {
    const drawn = (await page.evaluate('window.__xhd.view.drawnPixels()')) as number;
    const size = (await page.evaluate('window.__xhd.view.renderer.getContext().drawingBufferWidth * window.__xhd.view.renderer.getContext().drawingBufferHeight')) as number;
    assert.ok(drawn > 0.02 * size, `${drawn} of ${size} pixels drawn`);
  });

  it("shows the JSON report's HD in the legend and the counts drawn", async () => {
    assert.equal(await page.$eval('#legend-hd', (e) => e.textContent), `HD = ${json.hd}`);
    assert.match((await page.$eval('#shown', (e) => e.textContent)) ?? '', /A: 8,000 of 20,000 points shown \(its 400 largest distances always kept\)/);
    const rows = (await page.$$eval('#numbers-table tr', (trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]))) as [string, string][];
    assert.deepEqual(rows.find(([k]) => k === 'hd'), ['hd', String(json.hd)]);
  });

  it('flies the camera to a worst region when its entry is clicked', async () => {
    const data = reportData(report);
    const region = data.directions[0].regions[2];
    const look = () => page.evaluate('[...window.__xhd.view.controls.target.toArray(), ...window.__xhd.view.camera.position.toArray()]') as Promise<number[]>;
    const before = await look();
    await page.click('#regions li:nth-child(3) button');
    await page.waitForFunction((x: number) => Math.abs((window as any).__xhd.view.controls.target.x - x) < 1e-6, { timeout: 10_000 },
      region.point[0] - (data.box.min[0] + (data.box.step[0] * 65535) / 2));
    const afterFlight = await look();
    assert.notDeepEqual(afterFlight, before);
    // The target is the region's worst point in view coordinates (its coordinates less the box's centre).
    const centre = [0, 1, 2].map((c) => data.box.min[c] + (data.box.step[c] * 65535) / 2);
    for (let c = 0; c < 3; c++) assert.ok(Math.abs(afterFlight[c] - (region.point[c] - centre[c])) < 1e-5, `axis ${c}`);
    await page.screenshot({ path: path('compare-report-region.png') });
  });

  it('toggles to B → A: B coloured, its own worst regions listed', async () => {
    await page.click('#toggle-direction');
    assert.match((await page.$eval('#colouring', (e) => e.textContent)) ?? '', /^B coloured by distance to A/);
    assert.equal(await page.$eval('#regions-title', (e) => e.textContent), 'Worst regions, B → A');
    // B now wears the per-point colours, A the faint overlay; and back again.
    const materials = () => page.evaluate('window.__xhd.view.clouds.map((c) => [c.material.vertexColors, c.material.transparent])');
    assert.deepEqual(await materials(), [[false, true], [true, false]]);
    const drawn = (await page.evaluate('window.__xhd.view.drawnPixels()')) as number;
    assert.ok(drawn > 0);
    await page.click('#toggle-direction');
    assert.deepEqual(await materials(), [[true, false], [false, true]]);
    assert.deepEqual(problems, []);
  });
});

suiteUnless(browserSkipReason(), 'the batch report in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    const random = rng(2029);
    writeXyz(path('p.xyz'), uniform(500, 3, random));
    for (const [k, shift] of [[1, 0.3], [2, 0.05], [3, 0.6]]) writeXyz(path(`q${k}.xyz`), uniform(400, 3, random, shift));
    writeFileSync(path('pairs.csv'), 'a,b,threshold\np.xyz,q1.xyz,0.5\np.xyz,q2.xyz,0.5\np.xyz,q3.xyz,0.5\n');
    const r = runXhd(['batch', path('pairs.csv'), '--backend', 'cpu', '--report', path('batch.html'), '--report-dir', path('pair-pages'), '-q']);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warn') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
    await page.goto(pathToFileURL(path('batch.html')).href);
    await page.waitForFunction('window.__xhd && (window.__xhd.ready || window.__xhd.error)', { timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
  });

  it('loads without console errors and sorts the pairs by a clicked column', async () => {
    assert.deepEqual(problems, []);
    const hdColumn = (await page.$$eval('#pairs th', (ths) => ths.map((th) => th.textContent))).indexOf('HD');
    const hds = () => page.$$eval('#pairs tbody tr', (trs, k) => trs.map((tr) => Number(tr.cells[k as number].textContent)), hdColumn);
    const data = batchReportData(path('batch.html'));
    const byHd = data.rows.map((r) => r.hd!).sort((x, y) => x - y);
    await page.click(`#pairs th:nth-child(${hdColumn + 1})`);
    assert.deepEqual(await hds(), byHd.map((v) => Number(v.toPrecision(6))));
    await page.click(`#pairs th:nth-child(${hdColumn + 1})`);
    assert.deepEqual(await hds(), byHd.map((v) => Number(v.toPrecision(6))).reverse());
    await page.screenshot({ path: path('batch-report.png'), fullPage: true });
  });

  it("opens a pair's own report (--report-dir) from its row's link, and that page draws the pair", async () => {
    const row = batchReportData(path('batch.html')).rows[0];
    const link = await page.$eval(`#pairs a[href="${row.report}"]`, (a) => (a as HTMLAnchorElement).href);
    assert.equal(link, pathToFileURL(path(row.report!)).href);
    await Promise.all([page.waitForNavigation(), page.click(`#pairs a[href="${row.report}"]`)]);
    await page.waitForFunction('window.__xhd && (window.__xhd.ready || window.__xhd.error)', { timeout: 30_000 });
    assert.equal(await page.evaluate('window.__xhd.error'), undefined);
    assert.match(await page.$eval('#legend-hd', (e) => e.textContent ?? ''), /HD/);
    assert.deepEqual(problems, []);
  });
});

suiteUnless(browserSkipReason(), 'the distance --frames report in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    const r = runXhd(['distance', fixture('cube.off'), fixture('cube.off'), '--frames', fixture('cube-frames.txt'), '--both', '--backend', 'cpu', '-q', '--report', path('distance.html')]);
    assert.equal(r.code, 0, r.stderr);
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warn') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
    await page.goto(pathToFileURL(path('distance.html')).href);
    await page.waitForFunction('window.__xhd && (window.__xhd.ready || window.__xhd.error)', { timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
  });

  it('plots every frame, starts at the closest frame, and a row click picks its frame', async () => {
    assert.deepEqual(problems, []);
    const data = JSON.parse(readFileSync(path('distance.html'), 'utf8').match(/id="xhd-data">([\s\S]*?)<\/script>/)![1]);
    assert.equal(await page.evaluate('window.__xhd.frame'), data.json.frames_summary.min_frame);
    assert.equal(await page.$$eval('#frames tbody tr', (trs) => trs.length), data.json.frames.length);
    // The plot drew: its canvas has non-transparent pixels.
    const painted = await page.$eval('#distance-plot', (c) => {
      const canvas = c as HTMLCanvasElement;
      const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) n++;
      return n;
    });
    assert.ok(painted > 500, `${painted} pixels painted`);
    await page.click('#frames tbody tr:nth-child(6)');
    assert.equal(await page.evaluate('window.__xhd.frame'), 5);
    const shown = /^minimum([-\d.e]+)/.exec((await page.$eval('#frame-pairs', (e) => e.textContent)) ?? '');
    assert.equal(Number(shown?.[1]), Number(data.json.frames[5].min_distance.toPrecision(6)), 'frame 5 minimum, 6 significant digits');
    await page.screenshot({ path: path('distance-report.png'), fullPage: true });
  });

  it("the 3D view: both meshes drawn, B placed by the picked frame's pose, the closest pair marked", async () => {
    const data = JSON.parse(readFileSync(path('distance.html'), 'utf8').match(/id="xhd-data">([\s\S]*?)<\/script>/)![1]);
    for (const frame of [5, 3]) {
      await page.click(`#frames tbody tr:nth-child(${frame + 1})`);
      const state = await page.evaluate(() => {
        const view = (window as any).__xhd.view;
        return { matrix: Array.from(view.b.matrix.elements as Float32Array), drawn: view.base.drawnPixels() };
      });
      const pose: number[] = data.scene.poses[frame];
      // three.js keeps matrices column-major: element 4c + r is row r, column c.
      for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) assert.ok(Math.abs(state.matrix[4 * c + r] - pose[4 * r + c]) < 1e-6, `frame ${frame} M[${r}][${c}]`);
      // The translation, back in A's coordinates: B's box centre posed, the view's origin at A's box centre.
      const centre = (k: number) => [0, 1, 2].map((a) => data.scene.meshes[k].box.min[a] + data.scene.meshes[k].box.step[a] * 65535 / 2);
      const [ca, cb] = [centre(0), centre(1)];
      for (let r = 0; r < 3; r++) {
        const expected = pose[4 * r] * cb[0] + pose[4 * r + 1] * cb[1] + pose[4 * r + 2] * cb[2] + pose[4 * r + 3] - ca[r];
        assert.ok(Math.abs(state.matrix[12 + r] - expected) < 1e-6, `frame ${frame} t[${r}]`);
      }
      assert.ok(state.drawn > 2000, `${state.drawn} pixels drawn`);
    }
    assert.match(await page.$eval('#shown', (e) => e.textContent ?? ''), /A: 12 of 12 triangles shown; B: 12 of 12 triangles shown/);
    const before = await page.evaluate(() => (window as any).__xhd.view.base.drawnPixels());
    await page.click('#toggle-b');
    const without = await page.evaluate(() => (window as any).__xhd.view.base.drawnPixels());
    assert.ok(without < before, `hiding B draws fewer pixels (${without} < ${before})`);
    await page.click('#toggle-b');
    assert.deepEqual(problems, []);
    await page.screenshot({ path: path('distance-report-3d.png'), fullPage: true });
  });
});

suiteUnless(browserSkipReason(), 'the mask report\'s slices in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    // Two balls on one 24³ grid of 1.5 mm voxels, B's moved 2 voxels along i.
    const N = 24;
    const ball = (ci: number) => {
      const v = new Uint8Array(N * N * N);
      for (let k = 0; k < N; k++) for (let j = 0; j < N; j++) for (let i = 0; i < N; i++) {
        if ((i - ci) ** 2 + (j - 12) ** 2 + (k - 12) ** 2 <= 36) v[i + N * (j + N * k)] = 1;
      }
      return v;
    };
    writeNifti(path('ball-a.nii'), { dims: [N, N, N], values: ball(11), spacing: [1.5, 1.5, 1.5] });
    writeNifti(path('ball-b.nii'), { dims: [N, N, N], values: ball(13), spacing: [1.5, 1.5, 1.5] });
    const r = runXhd(['compare', path('ball-a.nii'), path('ball-b.nii'), '--backend', 'cpu', '-q', '--report', path('masks.html')]);
    assert.equal(r.code, 0, r.stderr);
    browser = await launchBrowser();
    page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 1400 });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warn') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${(e as Error).message}`));
    await page.goto(pathToFileURL(path('masks.html')).href);
    await page.waitForFunction('window.__xhd && (window.__xhd.ready || window.__xhd.error)', { timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
  });

  it('draws three slices at the worst voxel, and the slider and the mouse wheel scroll them', async () => {
    assert.deepEqual(problems, []);
    assert.equal(await page.$eval('#slices-panel', (e) => (e as HTMLElement).hidden), false);
    const start = reportData(path('masks.html')).slices!.start;
    const state = () => page.evaluate(() => {
      const slices = (window as any).__xhd.slices;
      return { position: slices.position() as number[], drawn: [0, 1, 2].map((axis) => slices.drawnPixels(axis) as number) };
    });
    const first = await state();
    assert.deepEqual(first.position, start);
    for (const n of first.drawn) assert.ok(n > 20, `${first.drawn}: each slice through the balls shows their surface voxels`);
    // The wheel over the axial slice (k) moves it by one; the slider sets it.
    const axial = await page.$('#slices canvas[data-axis="2"]');
    await axial!.hover();
    await page.mouse.wheel({ deltaY: 100 });
    await page.waitForFunction((k: number) => (window as any).__xhd.slices.position()[2] === k, { timeout: 5_000 }, Math.min(23, start[2] + 1));
    await page.$eval('#slices figure:nth-child(3) input[type=range]', (e) => {
      (e as HTMLInputElement).value = '0';
      e.dispatchEvent(new Event('input'));
    });
    const moved = await state();
    assert.equal(moved.position[2], 0);
    assert.equal(moved.drawn[2], 0, 'slice k = 0 lies outside both balls: nothing drawn');
    // The direction toggle recolours the slices (B coloured, A grey) without moving them.
    await page.$eval('#slices figure:nth-child(3) input[type=range]', (e) => {
      (e as HTMLInputElement).value = '12';
      e.dispatchEvent(new Event('input'));
    });
    const before = await page.$eval('#slices canvas[data-axis="2"]', (c) => (c as HTMLCanvasElement).toDataURL());
    await page.click('#toggle-direction');
    const after = await page.$eval('#slices canvas[data-axis="2"]', (c) => (c as HTMLCanvasElement).toDataURL());
    assert.notEqual(after, before);
    assert.deepEqual(problems, []);
    await page.screenshot({ path: path('mask-report.png'), fullPage: true });
  });
});

suiteUnless(browserSkipReason(), 'compare --snapshot in headless Chromium', () => {
  it("writes the report's first row as a PNG whose view is drawn, and leaves no scratch report behind", async () => {
    const random = rng(2030);
    writeXyz(path('s-a.xyz'), uniform(5000, 3, random));
    writeXyz(path('s-b.xyz'), uniform(4000, 3, random, 0.1));
    const scratchBefore = readdirSync(tmpdir()).filter((f) => f.startsWith('xhd-snapshot-')).length;
    const r = runXhd(['compare', path('s-a.xyz'), path('s-b.xyz'), '--backend', 'cpu', '-q', '--snapshot', path('snap.png')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /snapshot written to .*snap\.png/);
    assert.equal(readdirSync(tmpdir()).filter((f) => f.startsWith('xhd-snapshot-')).length, scratchBefore);
    const png = readFileSync(path('snap.png'));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
    const width = png.readUInt32BE(16), height = png.readUInt32BE(20);
    assert.ok(width > 600 && width <= SNAPSHOT_SIZE.width && height > 300 && height <= SNAPSHOT_SIZE.height, `${width}×${height}`);
    // Decoded by the browser: the picture's left part (the 3D view) holds drawn points, not only background.
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const drawn = await page.evaluate(async (src: string) => {
        const image = new Image();
        image.src = src;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(image, 0, 0);
        const pixels = ctx.getImageData(40, 40, Math.floor(image.width * 0.5), Math.floor(image.height * 0.6)).data;
        let n = 0;
        // The view's background is #15171c; points are coloured or a lighter grey.
        for (let i = 0; i < pixels.length; i += 4) if (Math.abs(pixels[i] - 0x15) + Math.abs(pixels[i + 1] - 0x17) + Math.abs(pixels[i + 2] - 0x1c) > 40) n++;
        return n;
      }, `data:image/png;base64,${png.toString('base64')}`);
      assert.ok(drawn > 1000, `${drawn} drawn pixels in the view`);
    } finally {
      await browser.close();
    }
  });

  it('a snapshot path in a missing directory: exit 2 before reading the inputs', () => {
    const r = runXhd(['compare', path('no-such.xyz'), path('s-b.xyz'), '--snapshot', join(dir, 'missing', 's.png')]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /s\.png: cannot write: no such directory/);
  });
});
