// Headless Chromium for the report tests: the same browser --snapshot uses (src/report/html/
// headless-chromium.ts); where none can run, the tests skip with the reason.
import { chromiumPath, launchHeadless } from '../src/report/html/headless-chromium.js';

export { chromiumPath };

/** Why browser tests cannot run here, or false when they can. */
export function browserSkipReason(): string | false {
  return chromiumPath() ? false : 'no Chromium found (apt-get install chromium, or set XHD_CHROMIUM to a Chrome or Chromium binary)';
}

export const launchBrowser = launchHeadless;
