// The C++ tests of kernels/tests/ (geometry, frame, grid, searches against the references, readers on
// malformed input), built with every CPU source under AddressSanitizer and UndefinedBehaviorSanitizer and
// run: any memory error or undefined behaviour stops the program with a report, so exit 0 means none was
// met. The build is incremental (objects in build/obj/asan/): after the first run only what changed is
// compiled again. Skipped, with the reason, where the compiler cannot link sanitized programs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';

import { repoRoot } from './helpers.js';

// scripts/build-native.mjs --sanitize-tests exits 3 when sanitizers are unavailable here.
const SANITIZERS_UNAVAILABLE = 3;

it('native C++ tests pass under AddressSanitizer and UndefinedBehaviorSanitizer', (t) => {
  const build = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build-native.mjs'), '--sanitize-tests'],
    { cwd: repoRoot, encoding: 'utf8' });
  if (build.status === SANITIZERS_UNAVAILABLE) {
    t.skip(build.stdout.trim().split('\n').pop());
    return;
  }
  assert.equal(build.status, 0, `building the sanitizer tests failed:\n${build.stdout}${build.stderr}`);
  const binary = join(repoRoot, 'build', 'xhd-native-tests');
  let run = spawnSync(binary, [], { cwd: repoRoot, encoding: 'utf8' });
  // LeakSanitizer stops the other threads through ptrace at exit, which some containers forbid: it then
  // fails whatever the program did. There, the run is repeated without the leak check, and says so.
  if (run.status !== 0 && /LeakSanitizer has encountered a fatal error/.test(run.stderr)) {
    t.diagnostic('LeakSanitizer cannot run here (no ptrace); ran again without the leak check');
    run = spawnSync(binary, [], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=0' } });
  }
  const output = `${run.stdout}${run.stderr}`;
  assert.equal(run.signal, null, output);
  assert.equal(run.status, 0, output);
  // The closing line: every check passed, and there were some.
  const summary = /native tests: (\d+) checks passed, (\d+) failed in (\d+) tests/.exec(run.stdout);
  assert.ok(summary, output);
  assert.ok(Number(summary[1]) > 0, output);
  assert.equal(Number(summary[2]), 0, output);
});
