#!/usr/bin/env node
// The OptiX search's variants side by side on the cases of scripts/bench-xhd-reference (3D and 2D; B = A +
// 0.001, overlapping, or A + 2 on x, disjoint; float32 binary PLY): the library's rules, runs of k points as
// boxes (k = 1 is a box a point), one built-in sphere a point, runs rebuilt instead of refitted at each
// radius, and the first radius the grid's instead of the seeded one (XHD_SEEDED_RADIUS=0, xhd_directed.h),
// each through `xhd compare --backend optix --json`, beside `--backend cuda`; the variants named cuda-… run
// the grid search (`cuda-unseeded`: its first radius one cell, not the seeded distance). Prints each one's build and query
// time (the library's, both directions; best of two runs, one where the first took over 3 s) and whether its
// answer (hd, both directed distances, both witnesses) equals cuda's to the bit.
// Usage: node scripts/device/optix-variants.mjs [--sizes 1000000,12500000] [--dir /tmp/xhd-reference-data]
//   [--variants default,chunk1,chunk16,chunk64,chunk256,spheres,chunk16-rebuild,default-unseeded,cuda-unseeded]
//   [--timeout-s 60]
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { referenceCases } from './ply-points.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizes = option('--sizes', '1000000,12500000').split(',').map(Number);
const dir = option('--dir', '/tmp/xhd-reference-data');
const timeoutMs = 1000 * Number(option('--timeout-s', '60'));
const variantNames = option('--variants', 'default,chunk1,chunk16,chunk64,chunk256,spheres,chunk16-rebuild,default-unseeded').split(',');
mkdirSync(dir, { recursive: true });

// default (the library's rules), spheres, chunkK or cuda (the grid search); each may end in -rebuild
// (rebuild, not refit, at each radius) or -unseeded (the first radius one cell, not the seeded distance).
function variantEnv(name) {
  const env = {};
  let base = name;
  for (const [suffix, variable] of [['-rebuild', 'XHD_OPTIX_REBUILD'], ['-unseeded', 'XHD_SEEDED_RADIUS']]) {
    if (base.endsWith(suffix)) {
      env[variable] = suffix === '-rebuild' ? '1' : '0';
      base = base.slice(0, -suffix.length);
    }
  }
  if (base === 'spheres') env.XHD_OPTIX_PRIMITIVE = 'spheres';
  else if (/^chunk\d+$/.test(base)) env.XHD_OPTIX_CHUNK = base.slice(5);
  else if (base !== 'default' && base !== 'cuda') throw new Error(`optix-variants: unknown variant ${name}`);
  return env;
}

function compare(a, b, backend, env) {
  const r = spawnSync(process.execPath, [join(root, 'bin/xhd'), 'compare', a, b, '--backend', backend, '--json', '--quiet'],
    { encoding: 'utf8', maxBuffer: 1 << 26, timeout: timeoutMs, env: { ...process.env, ...env } });
  if (r.error) return { error: r.error.code === 'ETIMEDOUT' ? `over ${timeoutMs / 1000} s` : String(r.error) };
  if (r.status !== 0) return { error: `exit ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-2).join(' | ')}` };
  return JSON.parse(r.stdout);
}

function best(a, b, backend, env) {
  const first = compare(a, b, backend, env);
  if (first.error || first.timings_ms.build + first.timings_ms.query > 3000) return first;
  const second = compare(a, b, backend, env);
  if (second.error) return second;
  const work = (r) => r.timings_ms.build + r.timings_ms.query;
  return work(second) < work(first) ? second : first;
}

const answer = (r) => JSON.stringify([r.hd, r.hd_ab, r.hd_ba, r.witness_ab?.a_index, r.witness_ab?.b_index,
  r.witness_ba?.b_index, r.witness_ba?.a_index]);
const ms = (r) => (r.timings_ms.build + r.timings_ms.query).toFixed(1);

let mismatches = 0;
console.log(`variants: ${variantNames.join(', ')}; times are build + query ms (both directions)`);
for (const n of sizes) {
  for (const { label, a, b } of referenceCases(dir, n)) { // the files reference-cases.mjs times too
    const cuda = best(a, b, 'cuda', {});
    if (cuda.error) { console.log(`${label}: cuda failed: ${cuda.error}`); mismatches++; continue; }
    const cells = [`cuda ${ms(cuda)}`];
    for (const name of variantNames) {
      const r = best(a, b, name.startsWith('cuda') ? 'cuda' : 'optix', variantEnv(name));
      if (r.error) { cells.push(`${name} FAILED (${r.error})`); mismatches++; continue; }
      const same = answer(r) === answer(cuda);
      if (!same) mismatches++;
      cells.push(`${name} ${ms(r)}${same ? '' : ' DIFFERENT ' + answer(r)}`);
    }
    console.log(`${label} (hd ${cuda.hd}): ${cells.join(' | ')}`);
  }
}
console.log(mismatches === 0 ? 'every variant gave cuda\'s answer to the bit' : `${mismatches} runs failed or differed`);
process.exit(mismatches === 0 ? 0 : 1);
