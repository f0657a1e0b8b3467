// --snapshot FILE.png: the compare report's 3D view as a picture, for places that run no scripts (a
// pull-request comment, a PDF). The report's own page renders it in headless Chromium (headless-chromium.ts),
// so the picture is exactly what the page shows first, with no second renderer to keep in step.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { writeOutputFile } from '../output-file.js';
import { launchHeadless } from './headless-chromium.js';

export const SNAPSHOT_SIZE = { width: 1200, height: 800 };

/** Opens the report page at reportPath and writes its 3D view, legend and worst regions to pngPath. */
export async function writeSnapshot(reportPath: string, pngPath: string, signal?: AbortSignal): Promise<void> {
  const browser = await launchHeadless();
  let png: Uint8Array;
  try {
    const page = await browser.newPage();
    await page.setViewport({ ...SNAPSHOT_SIZE, deviceScaleFactor: 1 });
    await page.goto(pathToFileURL(reportPath).href);
    await page.waitForFunction('window.__xhd && (window.__xhd.ready || window.__xhd.error)', { timeout: 120_000 });
    const error = await page.evaluate('window.__xhd.error');
    if (error) throw new Error(`the report page failed in the browser: ${error}`);
    // The first row of the page: the 3D view with its witness label, and the legend with the worst regions.
    const clip = (await page.evaluate(`(() => {
      const boxes = ['view-panel', 'legend-panel'].map((id) => document.getElementById(id).getBoundingClientRect());
      const x = Math.min(...boxes.map((b) => b.left)), y = Math.min(...boxes.map((b) => b.top));
      return { x, y, width: Math.max(...boxes.map((b) => b.right)) - x, height: Math.max(...boxes.map((b) => b.bottom)) - y };
    })()`)) as { x: number; y: number; width: number; height: number };
    png = await page.screenshot({ type: 'png', clip });
  } finally {
    await browser.close();
  }
  await writeOutputFile(pngPath, () => [png], signal);
}

/** A scratch directory for a report written only to be photographed; removed by the caller's cleanup. */
export function scratchReportPath(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'xhd-snapshot-'));
  return { path: join(dir, 'report.html'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
