// Headless Chromium, for --snapshot (and the browser tests): Debian's chromium, or the binary XHD_CHROMIUM
// names, driven by puppeteer-core (an optional dependency). WebGL runs on SwiftShader, the CPU renderer that
// ships inside Chromium, so a machine without a GPU (a CI runner) renders the same page as a desktop.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

import type { Browser, PuppeteerNode } from 'puppeteer-core';

import { EXIT_NATIVE, XhdError } from '../../core/errors.js';

/**
 * puppeteer-core through require(), its CommonJS build: the bundled CLI is one CommonJS file compiled from V8's
 * code cache (bin/code-cached-bundle.cjs), where import() of a package outside the bundle failed once the cache was
 * taken, so the bundle holds no import() at all (scripts/bundle-cli.mjs checks it).
 */
function loadPuppeteer(): PuppeteerNode {
  return (createRequire(import.meta.url)('puppeteer-core') as { default: PuppeteerNode }).default;
}

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export function chromiumPath(): string | undefined {
  const given = process.env.XHD_CHROMIUM;
  if (given) return existsSync(given) ? given : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

/** Why no headless browser can run here, or undefined when one can. */
export async function headlessUnavailable(): Promise<string | undefined> {
  if (!chromiumPath()) return 'no Chromium found (apt-get install chromium, or set XHD_CHROMIUM to a Chrome or Chromium binary)';
  try {
    loadPuppeteer();
  } catch {
    return 'puppeteer-core is not installed (npm install puppeteer-core)';
  }
  return undefined;
}

/** Throws (exit 3, as for a missing library) unless a headless browser can run: checked before the work. */
export async function checkHeadless(what: string): Promise<void> {
  const why = await headlessUnavailable();
  if (why) throw new XhdError(`${what} renders in headless Chromium, but ${why}`, EXIT_NATIVE);
}

export async function launchHeadless(): Promise<Browser> {
  return loadPuppeteer().launch({
    executablePath: chromiumPath(),
    headless: true,
    // --no-sandbox: as root (CI, containers) Chromium's sandbox refuses to start. SwiftShader: WebGL without a
    // GPU, which newer Chromium gives only on this explicit opt-in.
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-dev-shm-usage'],
  });
}
