#!/usr/bin/env node
// cuda against optix on the same inputs, through the CLI (`xhd compare --json`): for each size, A uniform in
// the unit cube and B = A + 0.001 on every coordinate, as float32 binary PLY; prints each backend's hd,
// witnesses and timings (best of two runs), and whether their answers agree to the bit. Part of
// scripts/device/optix-check.sh.
// Usage: node scripts/device/optix-timing.mjs [--sizes 1000000,12500000] [--dir /tmp/xhd-optix-data]
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { writePly } from './ply-points.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizes = option('--sizes', '1000000,12500000').split(',').map(Number);
const dir = option('--dir', '/tmp/xhd-optix-data');
mkdirSync(dir, { recursive: true });

function compare(a, b, backend) {
  const r = spawnSync(process.execPath, [join(root, 'bin/xhd'), 'compare', a, b, '--backend', backend, '--json'],
    { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) return { error: `exit ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}` };
  return JSON.parse(r.stdout);
}

let mismatches = 0;
for (const n of sizes) {
  // B is A moved by 0.001: the same seed, so the overlap is the hard case (most queries settle late).
  const a = join(dir, `uniform-${n}-a.ply`), b = join(dir, `uniform-${n}-b.ply`);
  writePly(a, n, 3, 12345, [0, 0, 0]);
  writePly(b, n, 3, 12345, [0.001, 0.001, 0.001]);
  const answers = {};
  for (const backend of ['cuda', 'optix']) {
    let best = null;
    for (let run = 0; run < 2; run++) {
      const r = compare(a, b, backend);
      if (r.error) { best = r; break; }
      if (!best || r.timings_ms.total < best.timings_ms.total) best = r;
    }
    if (best.error) {
      console.log(`${n} ${backend}: FAILED ${best.error}`);
      continue;
    }
    answers[backend] = best;
    const t = best.timings_ms;
    console.log(`${n} ${backend}: hd ${best.hd} witness_ab ${JSON.stringify(best.witness_ab)} witness_ba ${JSON.stringify(best.witness_ba)} ` +
      `| ms: build ${t.build.toFixed(1)} query ${t.query.toFixed(1)} total ${t.total.toFixed(1)}`);
  }
  if (answers.cuda && answers.optix) {
    const same = answers.cuda.hd === answers.optix.hd &&
      JSON.stringify([answers.cuda.witness_ab, answers.cuda.witness_ba]) === JSON.stringify([answers.optix.witness_ab, answers.optix.witness_ba]);
    if (!same) mismatches++;
    console.log(`${n}: cuda and optix ${same ? 'agree to the bit' : 'DISAGREE'}`);
  }
}
process.exit(mismatches > 0 ? 1 : 0);
