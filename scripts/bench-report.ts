// The cost and the weight of `xhd compare --report` (issue 28): wall time of a compare without and with the
// report (and with --stats, which measures every point's distance as the report does, to tell the two costs
// apart), the report's size, its time to interactive (until the first frame is drawn, read back) and the 3D view's
// frame rate in headless Chromium.
//   scripts/bench-report [--points 1000000] [--runs 3] [--report-points 500000] [--backend cpu] [--out file.md]
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromiumPath, launchBrowser } from '../test/browser.js';
import { formatMs, libraryVersion, publishReport, runLines } from './bench/report.js';
import { ROOT } from './bench/root.js';
import { makeDataset } from './datasets.js';

const log = (line: string) => process.stderr.write(`${line}\n`);

function writePly(path: string, p: Float32Array): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, `ply\nformat binary_little_endian 1.0\nelement vertex ${p.length / 3}\nproperty float x\nproperty float y\nproperty float z\nend_header\n`);
    writeSync(fd, new Uint8Array(p.buffer, p.byteOffset, p.byteLength));
  } finally {
    closeSync(fd);
  }
}

/** Best wall time of `runs` compares with these extra arguments (ms), and the last run's JSON. */
function bestCompare(a: string, b: string, extra: string[], backend: string, runs: number): { wallMs: number; json: any } {
  let best = Infinity, json: any;
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    const out = spawnSync(process.execPath, [join(ROOT, 'bin', 'xhd'), 'compare', a, b, '--json', '--quiet', '--backend', backend, ...extra], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const ms = performance.now() - start;
    if (out.status !== 0) throw new Error(`xhd compare failed: ${out.stderr.trim()}`);
    json = JSON.parse(out.stdout);
    log(`${extra.join(' ') || '(plain)'}: wall ${ms.toFixed(0)} ms`);
    best = Math.min(best, ms);
  }
  return { wallMs: best, json };
}

/** Forces the GPU to finish what the page asked of it: SwiftShader draws a frame long after the script issued it. */
const DRAWN = `(() => {
  const view = window.__xhd.view;
  if (!view) return;
  const gl = view.renderer.getContext();
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
})()`;

/**
 * Time to interactive: navigation until the page says it is ready (data decoded, first frame asked for) and
 * that frame is drawn (a 1-pixel read back returns only once the renderer has drawn everything before it).
 * Best of the runs; the first run, in a browser just started, apart.
 */
async function browserFigures(report: string, runs: number): Promise<{ interactiveMs: number; readyMs: number; firstMs: number; fps: number; drawn: number }> {
  const browser = await launchBrowser();
  try {
    let interactiveMs = Infinity, readyMs = Infinity, firstMs = 0, fps = 0, drawn = 0;
    for (let r = 0; r < runs; r++) {
      const page = await browser.newPage();
      await page.setViewport({ width: 1280, height: 900 });
      const start = performance.now();
      await page.goto(pathToFileURL(report).href);
      await page.waitForFunction('window.__xhd && (window.__xhd.ready || window.__xhd.error)', { timeout: 120_000, polling: 10 });
      const ready = performance.now() - start;
      const error = await page.evaluate('window.__xhd.error');
      if (error) throw new Error(`the report failed in the browser: ${error}`);
      await page.evaluate(DRAWN);
      const interactive = performance.now() - start;
      log(`browser run ${r}: ready ${ready.toFixed(0)} ms, first frame drawn ${interactive.toFixed(0)} ms`);
      if (r === 0) firstMs = interactive;
      interactiveMs = Math.min(interactiveMs, interactive);
      readyMs = Math.min(readyMs, ready);
      fps = Math.max(fps, (await page.evaluate('window.__xhd.benchmark(60)')) as number);
      drawn = (await page.evaluate('window.__xhd.view.drawnPixels()')) as number;
      await page.close();
    }
    return { interactiveMs, readyMs, firstMs, fps, drawn };
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let n = 1_000_000, runs = 3, reportPoints = 500_000, backend = 'cpu', out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const next = () => argv[++i] ?? '';
    switch (argv[i]) {
      case '--points': n = Number(next()); break;
      case '--runs': runs = Number(next()); break;
      case '--report-points': reportPoints = Number(next()); break;
      case '--backend': backend = next(); break;
      case '--out': out = next(); break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'xhd-bench-report-'));
  try {
    const { a, b } = makeDataset('overlapping', n, 42);
    const fa = join(dir, 'a.ply'), fb = join(dir, 'b.ply'), report = join(dir, 'report.html');
    writePly(fa, a);
    writePly(fb, b);
    bestCompare(fa, fb, [], backend, 1); // warms the page cache
    const plain = bestCompare(fa, fb, [], backend, runs);
    const stats = bestCompare(fa, fb, ['--stats'], backend, runs);
    const withReport = bestCompare(fa, fb, ['--report', report, '--report-points', String(reportPoints)], backend, runs);
    const bytes = statSync(report).size;
    const writeNote = (withReport.json.notes as string[]).find((s) => s.startsWith('HTML report written')) ?? '';
    const browser = chromiumPath() ? await browserFigures(report, runs) : null;
    const lines = [
      '# `xhd compare --report` on binary PLY', '',
      ...runLines('scripts/bench-report', argv),
      `- ${libraryVersion(['kernels', 'src', 'viewer'])}; backend ${backend}; best of ${runs} runs by wall time, page cache warm; the \`overlapping\` case, ${n.toLocaleString('en-US')} points per file`,
      `- Browser: ${chromiumPath() ?? 'none found'} headless, WebGL on SwiftShader (no GPU), 1280×900 viewport`, '',
      '| what | value |', '| --- | --- |',
      `| compare wall, no report | ${formatMs(plain.wallMs)} ms |`,
      `| compare wall, --stats (every point's distance, as --report measures) | ${formatMs(stats.wallMs)} ms |`,
      `| compare wall, --report | ${formatMs(withReport.wallMs)} ms (+${(100 * (withReport.wallMs / plain.wallMs - 1)).toFixed(0)}% on no report; +${(100 * (withReport.wallMs / stats.wallMs - 1)).toFixed(0)}% on --stats) |`,
      `| report writing (data, packing, file) | ${writeNote.replace(/^.*; /, '').replace(/\)$/, '')} |`,
      `| report size | ${(bytes / 1e6).toFixed(2)} MB (${writeNote.replace(/^.*\(/, '').replace(/;.*$/, '')}) |`,
      ...(browser ? [
        `| time to interactive (navigation to data decoded and first frame drawn, read back) | ${formatMs(browser.interactiveMs)} ms (page ready ${formatMs(browser.readyMs)} ms; first load in a fresh browser ${formatMs(browser.firstMs)} ms) |`,
        `| frame rate, 60 frames turning the view | ${browser.fps.toFixed(1)} frames/s |`,
      ] : ['| browser figures | skipped: no Chromium |']),
    ];
    publishReport(lines.join('\n') + '\n', out, log);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
