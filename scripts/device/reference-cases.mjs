#!/usr/bin/env node
// The cases of scripts/bench-xhd-reference: for each size, 3D and 2D, overlapping (B = A + 0.001) and disjoint
// (B = A + 2 on x), as float32 binary PLY (2D: z = 0); each through the reference's hd_exec (--variant each,
// its own repeats, its reported average; once A → B and once B → A, as it computes one direction a run) and
// through `xhd compare --backend cuda|optix --json` (best of two, both directions in one call).
// Prints one line per run: times and HDs, the reference's A→B and B→A beside xhd's hd_ab and hd_ba.
// The reference's PLY loader moves each file by its own smallest coordinates (its points minus their minimum,
// per axis), so two files are compared as given only when both have the same minimum: every file here holds the
// origin as its first point (ply-points.mjs, anchor), and B's other points are A's moved by the shift. Both tools
// then measure the same two sets, and their HDs must agree (the reference in float32).
// Usage: node scripts/device/reference-cases.mjs --reference PATH [--sizes ...] [--variants rt,hybrid,eb] [--dir D]
//   [--only '3D disjoint,2D overlapping']
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { referenceCases } from './ply-points.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const sizes = option('--sizes', '1000000,12500000,50000000').split(',').map(Number);
const variants = option('--variants', 'rt,hybrid,eb').split(',');
// eb (the reference's early-break baseline) takes minutes beyond a million points (133 s at 12.5M on the H100).
const ebMax = Number(option('--eb-max', '1000000'));
const dir = option('--dir', '/tmp/xhd-reference-data');
// Only the cases whose label ("12500000 3D disjoint") holds one of these comma-separated parts.
const only = option('--only', '').split(',').filter(Boolean);
const reference = option('--reference', null);
if (!reference || !existsSync(reference)) {
  console.error(`reference-cases: no hd_exec at ${reference}`);
  process.exit(3);
}
mkdirSync(dir, { recursive: true });

// One direction of the reference: its average over its own repeats (points already on the device), or an error.
function runReference(from, to, dims, variant) {
  const json = join(dir, 'reference.json');
  rmSync(json, { force: true });
  const start = Date.now();
  const r = spawnSync(reference, [`--input1=${from}`, `--input2=${to}`, '--input_type=ply', `--n_dims=${dims}`, `--variant=${variant}`,
    '--execution=gpu', '--repeat=3', '--check=false', `--json=${json}`, '--overwrite'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0 || !existsSync(json)) {
    return { error: `FAILED (exit ${r.status}): ${(r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' | ')}` };
  }
  const out = JSON.parse(readFileSync(json, 'utf8'));
  return { ms: Number(out.Running?.AvgTime), hd: out.HDResult, wall: (Date.now() - start) / 1000 };
}

// The reference computes one direction a run (its HD is the directed A → B): both directions are two runs,
// B → A with the files swapped, and their times add up to what xhd's build + query of both directions does.
function runReferenceBoth(a, b, dims, variant) {
  const ab = runReference(a, b, dims, variant);
  if (ab.error) return ab.error;
  const ba = runReference(b, a, dims, variant);
  if (ba.error) return `A→B avg ${ab.ms.toFixed(1)} ms, HD ${ab.hd}; B→A ${ba.error}`;
  return `both directions ${(ab.ms + ba.ms).toFixed(1)} ms (A→B avg ${ab.ms.toFixed(1)} ms, HD ${ab.hd}; ` +
    `B→A avg ${ba.ms.toFixed(1)} ms, HD ${ba.hd}; walls with loading ${ab.wall.toFixed(1)} + ${ba.wall.toFixed(1)} s)`;
}

function runXhd(a, b, backend) {
  let best = null;
  for (let i = 0; i < 2; i++) {
    const r = spawnSync(process.execPath, [join(root, 'bin/xhd'), 'compare', a, b, '--backend', backend, '--json'], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) return `FAILED (exit ${r.status}): ${(r.stderr || '').trim().split('\n').slice(-2).join(' | ')}`;
    const j = JSON.parse(r.stdout);
    if (!best || j.timings_ms.total < best.timings_ms.total) best = j;
  }
  const t = best.timings_ms;
  const upload = t.upload ?? 0;
  return `build + query ${(t.build + t.query).toFixed(1)} ms (upload ${upload.toFixed(1)}, build ${t.build.toFixed(1)}, query ${t.query.toFixed(1)}, process total ${t.total.toFixed(1)}), hd_ab ${best.hd_ab}, hd_ba ${best.hd_ba}, hd ${best.hd}`;
}

for (const n of sizes) {
  for (const { label: name, dims, a, b } of referenceCases(dir, n)) {
    if (only.length > 0 && !only.some((part) => name.includes(part))) continue;
    for (const variant of variants) {
      if (variant === 'eb' && n > ebMax) console.log(`${name} | reference eb: skipped above --eb-max ${ebMax} points`);
      else console.log(`${name} | reference ${variant}: ${runReferenceBoth(a, b, dims, variant)}`);
    }
    for (const backend of ['cuda', 'optix']) console.log(`${name} | xhd ${backend}: ${runXhd(a, b, backend)}`);
  }
}
