// The benchmark reports name the CPU library's target as its build recorded it: an x86-64-v3 library measured an
// AVX-512 host's CPU 2-6 times slower than its own build (docs/benchmarks.md, stop 67), unnoticed for many stops.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { cpuLibraryTarget } from '../scripts/bench/report.js';

function targetOf(identity: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'xhd-target-'));
  const before = process.env.XHD_LIBRARY_DIR;
  try {
    if (identity !== null) writeFileSync(join(dir, 'libxhd_cpu.so.cmd'), JSON.stringify({ command: ['g++'], identity }));
    process.env.XHD_LIBRARY_DIR = dir;
    return cpuLibraryTarget();
  } finally {
    if (before === undefined) delete process.env.XHD_LIBRARY_DIR;
    else process.env.XHD_LIBRARY_DIR = before;
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a named target is reported as built', () => {
  assert.equal(targetOf('g++ (Debian 12.2.0-14) 12.2.0 -march=x86-64-v3'), 'CPU library built for -march=x86-64-v3');
  assert.equal(targetOf('g++ 12.2.0 -march=x86-64-v4'), 'CPU library built for -march=x86-64-v4, AVX-512');
});

test('a native build names the CPU it resolved to, and AVX-512 where it has it', () => {
  assert.equal(
    targetOf('g++ 12.2.0 -march=znver3 -mmmx -mavx2 -mavx512f -mavx512vl --param l1-cache-size=48 -mtune=znver3'),
    'CPU library built for -march=znver3 (native to the machine it was built on), AVX-512',
  );
  assert.equal(targetOf('g++ 12.2.0 -march=haswell -mavx2 -mtune=haswell'), 'CPU library built for -march=haswell (native to the machine it was built on)');
});

test('an unrecorded or missing target is said to be unknown', () => {
  assert.match(targetOf('g++ (Debian 12.2.0-14) 12.2.0'), /not recorded/);
  assert.match(targetOf(null), /unknown \(no libxhd_cpu\.so\.cmd in /);
});
