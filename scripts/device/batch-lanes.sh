#!/usr/bin/env bash
# Where a batch of small mask pairs spends its time on a GPU host: the bench-multi-gpu manifest (40 distinct
# pairs at scale 0.3 of 240x240x155, cycled to 1,000 pairs), `xhd batch` on GPU 0 with each --lanes count and
# the pool threads' spin (XHD_POOL_SPIN_US) at each value given; wall and CPU time from GNU time, and the
# medians of the pairs' own timings (read, build, stats, total). The table "The batch is bound by the
# host" in docs/benchmarks.md came from this.
#
# Needs, carried: dist/ (compiled here), .device/node.xz and .device/nm (as scripts/device/multi-gpu.sh).
# Usage: scripts/device/batch-lanes.sh [SPINS] [LANES]   (defaults '2000 200 0' and '1 4'; before --lanes existed,
# the same rows were `--devices 0` and `--devices 0,0,0,0`)
set -u
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/batch-lanes}"
spins="${1:-2000 200 0}"
lanes_list="${2:-1 4}"
mkdir -p "$out"
command -v node >/dev/null 2>&1 || { xz -dc .device/node.xz > /usr/local/bin/node && chmod +x /usr/local/bin/node; }
[ -e node_modules/.carried ] || { rm -rf node_modules && cp -r .device/nm node_modules && touch node_modules/.carried; }
XHD_CUDA_ARCHS=90 XHD_BUILD_JOBS="$(nproc)" node scripts/build-native.mjs > "$out/build.log" 2>&1 ||
  { tail -20 "$out/build.log"; echo "batch-lanes: the native build failed"; exit 1; }
d="$(mktemp -d)"  # the masks stay off $OUT (what comes back from a device run)
mkdir -p "$d"
node --input-type=module -e "
import { makeMaskPair, writeMask } from './dist/scripts/bench/masks-shapes.js';
import { writeFileSync } from 'node:fs';
const files = [];
for (let k = 0; k < 40; k++) {
  const p = makeMaskPair(1000 + k, 0.3), a = '$d/m' + k + '-a.nii.gz', b = '$d/m' + k + '-b.nii.gz';
  writeMask(a, 'iso', p.dims, p.a);
  writeMask(b, 'iso', p.dims, p.b);
  files.push(a + ',' + b);
}
writeFileSync('$d/pairs.csv', ['a,b', ...Array.from({ length: 1000 }, (_, k) => files[k % 40])].join('\n') + '\n');
"
for spin in $spins; do
  for lanes in $lanes_list; do
    echo -n "spin $spin us, --lanes $lanes: "
    XHD_POOL_SPIN_US=$spin /usr/bin/time -f "%e s wall, %U s user, %S s sys" \
      node bin/xhd batch "$d/pairs.csv" --backend cuda --quiet --percentile 95 --devices 0 --lanes "$lanes" 2>&1 > "$out/batch.jsonl"
    node -e "
const lines = require('fs').readFileSync('$out/batch.jsonl', 'utf8').trim().split('\n').map(JSON.parse);
lines.pop(); // the summary
const median = (k) => { const v = lines.map((r) => r.timings_ms?.[k]).filter((x) => typeof x === 'number').sort((a, b) => a - b); return v[v.length >> 1].toFixed(2); };
console.log('  pair medians, ms: read ' + median('read') + ', build ' + median('build') + ', stats ' + median('stats') + ', total ' + median('total'));"
  done
done
