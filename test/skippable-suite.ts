// A suite that needs something a machine may lack (a GPU, a library). node:test counts a skipped suite as
// zero skipped tests, so `npm test` would print "# skipped 0" while whole GPU suites did not run: here a
// suite that cannot run is registered as one skipped test with the reason, which the summary counts.
import { describe, it } from 'node:test';

/** describe(name, body) when skip is false; otherwise one skipped test named after the suite. */
export function suiteUnless(skip: string | false, name: string, body: () => void): void {
  if (skip) it(name, { skip }, () => undefined);
  else describe(name, body);
}
