#!/usr/bin/env node
// Builds the native libraries during `npm install`: build/libxhd_cpu.so with g++ (always),
// build/libxhd_cuda.so with nvcc (when kernels/cuda/ exists and nvcc is on PATH), build/libxhd_optix.so
// (the CUDA library with the X-HD search on OptiX, kernels/optix/) when nvcc and the OptiX SDK headers are
// found (OPTIX_ROOT, OptiX_INSTALL_DIR, or the ignored .optix/ folder: native-build/optix.mjs).
// A failed build prints why and how to fix it, then exits 0 so the TypeScript part still installs;
// the CLI then reports the missing library clearly (exit 3). XHD_STRICT_BUILD=1 makes failures fatal.
//
// Incremental: every source compiles to its own object under build/obj/<target>/, in parallel (one job per
// core; XHD_BUILD_JOBS overrides), and only what changed is compiled again (native-build/incremental.mjs).
// `rm -rf build/obj` forces a clean build.
//
// --sanitize-tests builds instead the C++ tests of kernels/tests/ with every CPU source, under
// AddressSanitizer and UndefinedBehaviorSanitizer, into build/xhd-native-tests (objects in build/obj/asan/).
// Exit status then: 0 built, 1 the build failed, 3 this compiler cannot build with sanitizers (the line
// printed says why; test/native-sanitizers.test.ts skips on it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTarget, objectPath } from './native-build/incremental.mjs';
import { embedPtx, findOptixInclude, optixHeaderVersion } from './native-build/optix.mjs';
import { cxxIdentity, findNvcc } from './native-build/toolchain.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = join(root, 'build');
const objRoot = join(buildDir, 'obj');
const include = join(root, 'kernels/include');
const strict = process.env.XHD_STRICT_BUILD === '1';
const jobs = Number.parseInt(process.env.XHD_BUILD_JOBS ?? '', 10) > 0 ? Number.parseInt(process.env.XHD_BUILD_JOBS, 10)
  : availableParallelism();
const cxx = process.env.CXX || 'g++';
// Built where it runs, so tune for this CPU; XHD_MARCH overrides (e.g. x86-64-v3 for a portable build).
const march = process.env.XHD_MARCH || 'native';

function sources(dir, ext) {
  const full = join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).filter((f) => f.endsWith(ext)).sort().map((f) => join(full, f));
}

// What every backend library compiles in: the ABI plumbing and the geometry.
function sharedSources() {
  return [...sources('kernels/abi', '.cpp'), ...sources('kernels/geometry', '.cpp')];
}

// Host C++ of the device libraries that the sanitizer tests also test (plain C++, no CUDA headers).
const TESTED_DEVICE_HOST_SOURCES = ['kernels/cuda/grid_sizing.cpp'].map((f) => join(root, f));

// Every source of the CPU library; the sanitizer tests link them all too.
function cpuSources() {
  return [...sources('kernels/cpu', '.cpp'), ...sharedSources(), ...sources('kernels/reference', '.cpp')];
}

// One compile unit per source, its object under build/obj/<objDir>/ at the source's path below kernels/.
function units(files, objDir, compiler, args, identity) {
  return files.map((source) => ({ source, object: objectPath(root, join(objRoot, objDir), source), compiler, args, identity }));
}

async function buildCpu() {
  const out = join(buildDir, 'libxhd_cpu.so');
  const args = ['-O3', `-march=${march}`, '-std=c++17', '-fPIC', '-pthread', '-fvisibility=hidden', '-ffp-contract=off',
    '-fopenmp-simd', '-Wall', '-Wextra', '-I', include];
  const identity = cxxIdentity(cxx, march);
  await buildTarget({
    root, label: `cpu library (${cxx})`, out, jobs,
    units: units(cpuSources(), 'cpu', cxx, args, identity),
    link: { compiler: cxx, args: (objects) => ['-shared', '-pthread', ...objects], identity },
  });
}

// Fat binary: machine code for Turing through Hopper plus PTX the driver can compile for newer GPUs.
// XHD_CUDA_ARCHS (e.g. "90") narrows it for quick development builds.
function cudaTargets() {
  const archs = (process.env.XHD_CUDA_ARCHS || '75,80,86,89,90').split(',').map((a) => a.trim()).filter(Boolean);
  const newest = archs[archs.length - 1];
  return [...archs.flatMap((a) => ['-gencode', `arch=compute_${a},code=sm_${a}`]),
    '-gencode', `arch=compute_${newest},code=compute_${newest}`];
}

// Every source of the CUDA library. The CPU grid comes too: the GPU settles very many survivors in double
// through it (refine_on_host.cpp).
function cudaSources() {
  return [...sources('kernels/cuda', '.cu'), ...sources('kernels/cuda', '.cpp'), ...sharedSources(),
    join(root, 'kernels/cpu/point_grid.cpp')];
}

// --fmad=false: distances round exactly as on the CPU backend, so both pick the same witnesses.
// Every .cu is whole (no device function is called across files), so each compiles on its own without
// relocatable device code; the .cpp files go through nvcc too, which hands them to its host compiler
// with the -Xcompiler flags, as the one-call build did. The link repeats the flags: nvcc's device-link
// step takes the architectures from them and its host link the -Xcompiler ones. The host code is tuned as
// the CPU library's is (-march): without it the host passes of a GPU call (the split's slab layouts, the
// checks, the framing) compiled for the baseline x86-64, and the layouts' compares over a word, which
// vectorize with AVX2, took 1.1 s for two billion points on 32 cores.
function cudaArgs() {
  return ['-O3', '-std=c++17', '--fmad=false', '--threads', '0',
    '-Xcompiler', `-fPIC,-fvisibility=hidden,-pthread,-Wall,-ffp-contract=off,-march=${march}`, '-I', include, ...cudaTargets()];
}

// nvcc, or null after the one line that says why the GPU libraries are skipped.
function gpuCompiler(what) {
  if (process.env.XHD_NO_CUDA === '1') {
    console.log(`xhd: XHD_NO_CUDA=1, skipping the ${what}.`);
    return null;
  }
  const nvcc = findNvcc();
  if (!nvcc) {
    console.log(`xhd: nvcc not found, skipping the ${what}; the CPU backend will be used.`);
    return null;
  }
  return nvcc;
}

async function buildCuda() {
  if (sources('kernels/cuda', '.cu').length === 0) return;
  const nvcc = gpuCompiler('CUDA library (build/libxhd_cuda.so)');
  if (!nvcc) return;
  const out = join(buildDir, 'libxhd_cuda.so');
  const args = cudaArgs();
  // nvcc hands host code to the g++ on PATH: its version is part of what the objects depend on.
  // The host compiler's identity resolves -march=native to this CPU's flags, as the CPU library's does: objects
  // tuned for one CPU are not taken for another's.
  const identity = `${nvcc.version} / ${cxxIdentity('g++', march)}`;
  const files = cudaSources();
  await buildTarget({
    root, label: `cuda library (${nvcc.cmd})`, out, jobs,
    units: units(files, 'cuda', nvcc.cmd, args, identity),
    link: { compiler: nvcc.cmd, args: (objects) => ['-shared', ...args.filter((a) => a !== '-I' && a !== include), ...objects], identity },
  });
}

// The OptiX library: the CUDA library's objects (the same ones, compiled once) but for its identity
// (kernels/cuda/backend_cuda.cu), plus kernels/optix/ and the embedded PTX of the search programs.
async function buildOptix() {
  if (!existsSync(join(root, 'kernels/optix'))) return;
  const nvcc = gpuCompiler('OptiX library (build/libxhd_optix.so)');
  if (!nvcc) return;
  const optixInclude = findOptixInclude(root);
  if (!optixInclude) {
    console.log('xhd: OptiX SDK headers not found (set OPTIX_ROOT to the SDK), skipping the OptiX library ' +
      '(build/libxhd_optix.so).');
    return;
  }
  const args = cudaArgs();
  const identity = `${nvcc.version} / ${cxxIdentity('g++', march)} / OptiX ${optixHeaderVersion(optixInclude)}`;
  const cudaIdentity = `${nvcc.version} / ${cxxIdentity('g++', march)}`;
  const optixArgs = [...args, '-I', optixInclude];
  // The driver's OptiX compiles the PTX for the GPU at hand: PTX of the oldest architecture nvcc 13 knows
  // (Turing) runs on every GPU since. (nvcc 13 also hands -ptx output for compute_90 to ptxas, which rejects
  // OptiX's intrinsics; for compute_75 it does not.)
  const ptxArch = 'compute_75';
  const embedded = await embedPtx({
    root, nvcc: nvcc.cmd, source: join(root, 'kernels/optix/device/search_programs.cu'), outDir: join(objRoot, 'optix-ptx'),
    args: ['-O3', '-std=c++17', '--fmad=false', `-arch=${ptxArch}`, `-code=${ptxArch}`, '-I', include, '-I', optixInclude], identity,
  });
  const shared = cudaSources().filter((f) => !f.endsWith('/backend_cuda.cu'));
  const own = [...sources('kernels/optix', '.cu'), ...sources('kernels/optix', '.cpp')];
  const out = join(buildDir, 'libxhd_optix.so');
  await buildTarget({
    root, label: `optix library (${nvcc.cmd}, ${optixInclude})`, out, jobs,
    units: [...units(shared, 'cuda', nvcc.cmd, args, cudaIdentity), ...units(own, 'optix', nvcc.cmd, optixArgs, identity),
      { source: embedded, object: `${embedded}.o`, compiler: nvcc.cmd, args, identity }],
    link: { compiler: nvcc.cmd, args: (objects) => ['-shared', ...args.filter((a) => a !== '-I' && a !== include), ...objects, '-ldl'],
      identity },
  });
}

// Sanitizer flags: -fsanitize=undefined in gcc leaves out float-cast-overflow (a double out of an int's
// range converted to int), which the grid's cell arithmetic could meet; _GLIBCXX_ASSERTIONS checks every
// std::vector index against its size, which ASan cannot (an index past size() but within capacity).
const sanitizeFlags = ['-fsanitize=address,undefined,float-cast-overflow', '-fno-omit-frame-pointer', '-fno-sanitize-recover=all'];

// Whether this compiler links a sanitized program (it needs libasan and libubsan); the reason if not.
function sanitizersUnavailable() {
  const dir = join(objRoot, 'asan');
  mkdirSync(dir, { recursive: true });
  const probe = join(dir, 'probe.cpp');
  writeFileSync(probe, 'int main() { return 0; }\n');
  const r = spawnSync(cxx, [...sanitizeFlags, probe, '-o', join(dir, 'probe')], { encoding: 'utf8' });
  if (r.error) return `${cxx} not found (${r.error.message})`;
  const why = r.stderr.split('\n').find((l) => l.trim() !== '')?.trim() || `exit ${r.status}`;
  if (r.status !== 0) return `${cxx} cannot link with ${sanitizeFlags[0]}: ${why}`;
  return null;
}

async function buildSanitizerTests() {
  const why = sanitizersUnavailable();
  if (why !== null) {
    console.log(`xhd: cannot build the sanitizer tests: ${why}`);
    return 3;
  }
  const out = join(buildDir, 'xhd-native-tests');
  const args = ['-O1', '-g', ...sanitizeFlags, '-D_GLIBCXX_ASSERTIONS', `-march=${march}`, '-std=c++17', '-pthread',
    '-ffp-contract=off', '-fopenmp-simd', '-Wall', '-Wextra', '-I', include];
  const identity = cxxIdentity(cxx, march);
  await buildTarget({
    root, label: `sanitizer tests (${cxx})`, out, jobs,
    units: units([...sources('kernels/tests', '.cpp'), ...cpuSources(), ...TESTED_DEVICE_HOST_SOURCES], 'asan', cxx, args, identity),
    link: { compiler: cxx, args: (objects) => [...sanitizeFlags, '-pthread', ...objects], identity },
  });
  return 0;
}

function firstLineOf(err) {
  return err instanceof Error ? err.message.split('\n')[0] : String(err);
}

const flags = process.argv.slice(2);
if (flags.some((f) => f !== '--sanitize-tests')) {
  console.error(`xhd: unknown argument(s) ${flags.join(' ')}; the only one is --sanitize-tests`);
  process.exit(1);
}

mkdirSync(buildDir, { recursive: true });
if (flags.includes('--sanitize-tests')) {
  try {
    process.exit(await buildSanitizerTests());
  } catch (err) {
    console.error(`xhd: could not build the sanitizer tests (build/xhd-native-tests): ${firstLineOf(err)}`);
    process.exit(1);
  }
}

try {
  await buildCpu();
} catch (err) {
  console.error('xhd: could not build the native CPU library (build/libxhd_cpu.so).');
  console.error('  Likely cause: no C++17 compiler. Install g++ (Debian: apt-get install g++) and run `npm run build`.');
  console.error(`  ${firstLineOf(err)}`);
  if (strict) process.exit(1);
}
try {
  await buildCuda();
} catch (err) {
  console.error('xhd: could not build the CUDA library (build/libxhd_cuda.so); the CPU backend still works.');
  console.error(`  ${firstLineOf(err)}`);
  if (strict) process.exit(1);
}
try {
  await buildOptix();
} catch (err) {
  console.error('xhd: could not build the OptiX library (build/libxhd_optix.so); the cuda and cpu backends still work.');
  console.error(`  ${firstLineOf(err)}`);
  if (strict) process.exit(1);
}
