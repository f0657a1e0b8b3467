// Headless Chromium for the report tests: Debian's chromium (or XHD_CHROMIUM), driven by puppeteer-core.
// WebGL runs on SwiftShader (a CPU renderer that ships with Chromium), so no GPU is needed; where no
// browser can be found the tests skip with the reason.
import { existsSync } from 'node:fs';

import type { Browser } from 'puppeteer-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export function chromiumPath(): string | undefined {
  const given = process.env.XHD_CHROMIUM;
  if (given) return existsSync(given) ? given : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

/** Why browser tests cannot run here, or false when they can. */
export function browserSkipReason(): string | false {
  return chromiumPath() ? false : 'no Chromium found (apt-get install chromium, or set XHD_CHROMIUM to a Chrome or Chromium binary)';
}

export async function launchBrowser(): Promise<Browser> {
  const { default: puppeteer } = await import('puppeteer-core');
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // --no-sandbox: CI and this machine run as root, where Chromium's sandbox refuses to start.
    // SwiftShader: WebGL without a GPU (newer Chromium asks for the opt-in flag).
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--disable-dev-shm-usage'],
  });
}
