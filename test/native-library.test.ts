// A missing or broken native library gives one clear message and exit code 3, never a crash.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { XHD_ABI_VERSION } from '../src/native/abi.js';
import { hasStackTrace, runXhd, scratchDir, writeXyz } from './cli-run.js';
import { rng, uniform } from './random-points.js';

const hasCompiler = spawnSync('g++', ['--version']).status === 0;

describe('native library failures', () => {
  const dir = scratchDir();
  const points = join(dir, 'p.xyz');
  writeXyz(points, uniform(5, 3, rng(1)));

  function compareWithLibraryDir(libDir: string) {
    const r = runXhd(['compare', points, points], { XHD_LIBRARY_DIR: libDir });
    assert.equal(r.code, 3, r.stderr);
    assert.equal(r.stdout, '');
    assert.ok(!hasStackTrace(r.stderr), r.stderr);
    return r.stderr;
  }

  it('a missing library names the file and the fix', () => {
    const stderr = compareWithLibraryDir(join(dir, 'nowhere'));
    assert.match(stderr, /native cpu library is missing: .*libxhd_cpu\.so/);
    assert.match(stderr, /npm run build/);
  });

  it('a corrupt library file is reported, not loaded', () => {
    const broken = scratchDir();
    writeFileSync(join(broken, 'libxhd_cpu.so'), 'this is not an ELF file');
    const stderr = compareWithLibraryDir(broken);
    assert.match(stderr, /could not be loaded/);
  });

  function buildLibrary(source: string): string {
    const libDir = scratchDir();
    writeFileSync(join(libDir, 'lib.c'), source);
    const cc = spawnSync('g++', ['-x', 'c', '-shared', '-fPIC', join(libDir, 'lib.c'), '-o', join(libDir, 'libxhd_cpu.so')]);
    assert.equal(cc.status, 0, String(cc.stderr));
    return libDir;
  }

  it('a library without the entry points is reported', { skip: !hasCompiler && 'no g++' }, () => {
    const stderr = compareWithLibraryDir(buildLibrary('int unrelated(void) { return 0; }\n'));
    assert.match(stderr, /lacks the xhd entry points/);
  });

  it('a library whose structs are laid out otherwise is refused', { skip: !hasCompiler && 'no g++' }, () => {
    const stderr = compareWithLibraryDir(buildLibrary(
      `int xhd_abi_version(void) { return ${XHD_ABI_VERSION}; }\nunsigned long long xhd_struct_size(const char *name) { return 4; }\n` +
      'const char *xhd_struct_field(const char *name, unsigned index, unsigned long long *offset) { return 0; }\n'));
    assert.match(stderr, /lays out xhd_points in 4 bytes, this xhd in 24\b/);
  });

  it('a library whose fields are named or placed otherwise is refused', { skip: !hasCompiler && 'no g++' }, () => {
    // xhd_points (the first struct checked) of the right size, its second field renamed.
    const stderr = compareWithLibraryDir(buildLibrary([
      `int xhd_abi_version(void) { return ${XHD_ABI_VERSION}; }`,
      'unsigned long long xhd_struct_size(const char *name) { return 24; }',
      'const char *xhd_struct_field(const char *name, unsigned index, unsigned long long *offset) {',
      '  static const char *names[] = { "xyz", "n", "xyz64" };',
      '  if (index > 2) return 0;',
      '  *offset = 8 * index;',
      '  return names[index];',
      '}',
    ].join('\n')));
    assert.match(stderr, /field 1 of xhd_points is n in the library, count in this xhd/);
  });

  it('a library of another ABI version is refused', { skip: !hasCompiler && 'no g++' }, () => {
    const stderr = compareWithLibraryDir(buildLibrary('int xhd_abi_version(void) { return 999; }\n'));
    assert.match(stderr, new RegExp(`ABI version 999, this xhd needs ${XHD_ABI_VERSION}\\b`));
  });
});
