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
  const files = [...sources('kernels/cpu', '.cpp'), ...sources('kernels/common', '.cpp'), ...sources('kernels/reference', '.cpp')];
  const out = join(buildDir, 'libxhd_cpu.so');
  const args = ['-O3', `-march=${march}`, '-std=c++17', '-fPIC', '-shared', '-pthread',
    '-fvisibility=hidden', '-ffp-contract=off', '-fopenmp-simd', '-Wall', '-Wextra', '-I', join(root, 'kernels/include'), ...files, '-o', out];
  console.log(`xhd: building ${out} with ${cxx}`);
  run(cxx, args);
}

function findNvcc() {
  const candidates = [process.env.NVCC, process.env.CUDA_HOME && join(process.env.CUDA_HOME, 'bin/nvcc'),
    'nvcc', '/usr/local/cuda/bin/nvcc'].filter(Boolean);
  for (const c of candidates) {
    try {
      execFileSync(c, ['--version'], { stdio: 'ignore' });
      return c;
    } catch {
      // not this one
    }
  }
  return null;
}

// Fat binary: machine code for Turing through Hopper plus PTX the driver can compile for newer GPUs.
// XHD_CUDA_ARCHS (e.g. "90") narrows it for quick development builds.
function cudaTargets() {
  const archs = (process.env.XHD_CUDA_ARCHS || '75,80,86,89,90').split(',').map((a) => a.trim()).filter(Boolean);
  const newest = archs[archs.length - 1];
  return [...archs.flatMap((a) => ['-gencode', `arch=compute_${a},code=sm_${a}`]),
    '-gencode', `arch=compute_${newest},code=compute_${newest}`];
}

function buildCuda() {
  // The CPU grid comes too: the GPU settles very many survivors in double through it (refine_on_host.cpp).
  const files = [...sources('kernels/cuda', '.cu'), ...sources('kernels/cuda', '.cpp'), ...sources('kernels/common', '.cpp'),
    join(root, 'kernels/cpu/point_grid.cpp')];
  if (sources('kernels/cuda', '.cu').length === 0) return;
  if (process.env.XHD_NO_CUDA === '1') {
    console.log('xhd: XHD_NO_CUDA=1, skipping the CUDA library.');
    return;
  }
  const nvcc = findNvcc();
  if (!nvcc) {
    console.log('xhd: nvcc not found, skipping the CUDA library (build/libxhd_cuda.so); the CPU backend will be used.');
    return;
  }
  const out = join(buildDir, 'libxhd_cuda.so');
  // --fmad=false: distances round exactly as on the CPU backend, so both pick the same witnesses.
  const args = ['-O3', '-std=c++17', '-shared', '--fmad=false', '--threads', '0',
    '-Xcompiler', '-fPIC,-fvisibility=hidden,-pthread,-Wall,-ffp-contract=off', '-I', join(root, 'kernels/include'),
    ...cudaTargets(), ...files, '-o', out];
  console.log(`xhd: building ${out} with ${nvcc}`);
  run(nvcc, args);
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
try {
  buildCuda();
} catch (err) {
  console.error('xhd: could not build the CUDA library (build/libxhd_cuda.so); the CPU backend still works.');
  console.error(`  ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  if (strict) process.exit(1);
}
