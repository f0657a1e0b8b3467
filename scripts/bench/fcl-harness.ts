// An FCL harness (scripts/NAME.cpp) compiled on first use, and again when its source is newer, into
// build/bench/NAME. FCL comes from the system (libfcl-dev), or from XHD_FCL_PREFIX: a directory holding
// usr/include and usr/lib/x86_64-linux-gnu of FCL, libccd, Eigen and OctoMap (e.g. their Debian packages unpacked
// with `apt-get download` and `dpkg -x`, where installing them is not wanted).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT } from './root.js';

export type FclHarness = { binary: string; libraryPath: string } | { error: string };

export function prepareFclHarness(name: string, log: (line: string) => void): FclHarness {
  const source = join(ROOT, 'scripts', `${name}.cpp`), binary = join(ROOT, 'build', 'bench', name);
  const prefix = process.env.XHD_FCL_PREFIX;
  const include = prefix ? join(prefix, 'usr', 'include') : '/usr/include';
  const lib = prefix ? join(prefix, 'usr', 'lib', 'x86_64-linux-gnu') : '';
  if (!existsSync(join(include, 'fcl', 'config.h'))) return { error: 'libfcl-dev not installed (apt-get install libfcl-dev, or XHD_FCL_PREFIX)' };
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(source).mtimeMs) return { binary, libraryPath: lib };
  mkdirSync(join(ROOT, 'build', 'bench'), { recursive: true });
  const args = ['-O3', '-march=native', '-DNDEBUG', '-std=c++17', `-I${include}`, `-I${join(include, 'eigen3')}`, source, '-o', binary,
    ...(lib ? [`-L${lib}`] : []), '-lfcl', '-lccd', '-loctomap', '-loctomath'];
  log(`compiling the FCL harness ${name} (g++ ${args.join(' ')})`);
  const r = spawnSync('g++', args, { encoding: 'utf8' });
  if (r.status !== 0) return { error: `the FCL harness ${name} does not compile: ${(r.stderr ?? '').split('\n').slice(0, 3).join(' ')}` };
  return { binary, libraryPath: lib };
}

/** The environment a harness runs in: FCL's libraries found where they were linked from. */
export function harnessEnv(h: { libraryPath: string }): NodeJS.ProcessEnv {
  return { ...process.env, LD_LIBRARY_PATH: [h.libraryPath, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') };
}
