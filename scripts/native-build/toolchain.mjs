// The compilers the native build uses, and what identifies their output beyond the command line: the
// compiler's version, and for -march=native the instruction sets it resolves to on this CPU (so objects
// copied to, or left on, a machine with another CPU are rebuilt rather than reused).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';

function firstLine(text) {
  return text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
}

// `cmd --version`'s output, or null when cmd does not run.
export function versionOf(cmd) {
  try {
    return execFileSync(cmd, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

// The first line of `cmd --version` ("" when cmd does not run).
export function compilerVersion(cmd) {
  return firstLine(versionOf(cmd) ?? '');
}

// What identifies a C++ compiler's output besides its arguments: its version, and for native tuning the
// options the CPU resolves to (`g++ -v` lists them on the cc1plus command it runs, on stderr).
export function cxxIdentity(cxx, march) {
  const version = compilerVersion(cxx);
  // The target is part of what the objects are: recorded in each .cmd, so that a benchmark can say which one its
  // library was built for (an x86-64-v3 library made the CPU's mesh distance 2-6 times slower on an AVX-512 host).
  if (march !== 'native') return `${version} -march=${march}`;
  const probe = spawnSync(cxx, ['-march=native', '-E', '-v', '-x', 'c++', '/dev/null', '-o', '/dev/null'], { encoding: 'utf8' });
  const cc1 = (probe.stderr ?? '').split('\n').find((l) => l.includes('cc1') && l.includes('-march='));
  return cc1 ? `${version} ${cc1.slice(cc1.indexOf('-march=')).trim()}` : version;
}

// nvcc from $NVCC, $CUDA_HOME/bin, PATH or /usr/local/cuda, with its version; null when none runs.
export function findNvcc() {
  const candidates = [process.env.NVCC, process.env.CUDA_HOME && join(process.env.CUDA_HOME, 'bin/nvcc'),
    'nvcc', '/usr/local/cuda/bin/nvcc'].filter(Boolean);
  for (const cmd of candidates) {
    const version = versionOf(cmd);
    if (version !== null) return { cmd, version: version.trim().split('\n').pop() };
  }
  return null;
}
