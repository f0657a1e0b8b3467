#!/usr/bin/env bash
# The OptiX backend on a GPU machine, in one run: builds the three native libraries there, then prints what
# is needed to judge or debug it (driver, OptiX library, headers, PTX target, `xhd doctor`), runs the OptiX
# test suite (test/hausdorff-optix.test.ts) and times cuda against optix on a few sizes.
#
# Needs, carried from the development machine (ignored paths): dist/ (`npx tsc -p tsconfig.json`: the device
# has no TypeScript), .optix/include (the OptiX 9.0 headers) or OPTIX_ROOT, and where the machine has no
# node: .device/node.xz (a node binary, xz-compressed) and .device/nm (node_modules without dev tools).
#
# Usage: scripts/device/optix-check.sh [--cuda-suite] [--sizes 1000000,12500000] (default: 1000000)
#   --cuda-suite  also run test/hausdorff-cuda.test.ts (the CUDA agreement suite, a few minutes)
# Writes its logs under $OUT (or /tmp/optix-check) as well as to stdout.
set -u
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/optix-check}"
mkdir -p "$out"
cuda_suite=0
sizes="1000000"
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda-suite) cuda_suite=1 ;;
    --sizes) sizes="$2"; shift ;;
    *) echo "optix-check: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

section() { printf '\n=== %s ===\n' "$1"; }

section "machine"
date -u
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || echo "nvidia-smi failed"
nvcc --version | tail -1 || echo "no nvcc on PATH"
echo "OptiX in the driver: $( (ldconfig -p 2>/dev/null | grep -m1 libnvoptix) || find / -name 'libnvoptix.so*' -not -path '/proc/*' 2>/dev/null | head -1 || echo 'libnvoptix.so.1 not found')"
headers="${OPTIX_ROOT:-${OptiX_INSTALL_DIR:-$PWD/.optix}}/include"
grep -m1 '#define OPTIX_VERSION ' "$headers/optix.h" 2>/dev/null || echo "no OptiX headers at $headers (carry .optix/ or set OPTIX_ROOT)"

section "node"
NODE=node
if ! command -v node >/dev/null 2>&1; then
  if [ -f .device/node.xz ]; then
    xz -dc .device/node.xz > /tmp/xhd-node && chmod +x /tmp/xhd-node && NODE=/tmp/xhd-node
    mkdir -p /tmp/xhd-node-bin && ln -sf /tmp/xhd-node /tmp/xhd-node-bin/node && export PATH="/tmp/xhd-node-bin:$PATH"
  else
    echo "optix-check: no node on PATH and no .device/node.xz carried"; exit 3
  fi
fi
"$NODE" --version
if [ ! -e node_modules/koffi ]; then
  if [ -d .device/nm ]; then rm -f node_modules; ln -s .device/nm node_modules; else echo "optix-check: no node_modules (carry .device/nm)"; exit 3; fi
fi
[ -f dist/src/cli/main.js ] || { echo "optix-check: dist/ missing: run npx tsc -p tsconfig.json before carrying it"; exit 3; }

section "build (XHD_STRICT_BUILD=1)"
XHD_CUDA_ARCHS="${XHD_CUDA_ARCHS:-90}" XHD_STRICT_BUILD=1 "$NODE" scripts/build-native.mjs 2>&1 | tee "$out/build.log" | grep -v '^  \[' 
build_status=${PIPESTATUS[0]}
ls -la build/*.so
[ "$build_status" = 0 ] || { echo "optix-check: the build failed (exit $build_status): $out/build.log"; exit 1; }
echo "embedded PTX: $(grep -m2 -E '^\.(version|target)' build/obj/optix-ptx/search_programs.ptx | tr '\n' ' ')"
echo "exports: $(nm -D --defined-only build/libxhd_optix.so | grep -c ' T xhd_') xhd_ entries, xhd_optix_info: $(nm -D --defined-only build/libxhd_optix.so | grep -c xhd_optix_info)"
echo "unresolved symbols of ours (should be none): $(nm -D --undefined-only build/libxhd_optix.so | grep -c '_ZN3xhd')"

section "xhd doctor"
"$NODE" bin/xhd doctor
"$NODE" bin/xhd doctor --json > "$out/doctor.json"

section "smoke: 20k points, optix against cpu (any OptiX error shows here in one line)"
mkdir -p /tmp/xhd-optix-smoke
"$NODE" -e '
  const fs = require("fs");
  let s = 7;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (const [name, shift] of [["a", 0], ["b", 0.01]]) {
    const lines = [];
    for (let i = 0; i < 20000; i++) lines.push([r() + shift, r(), r()].join(" "));
    fs.writeFileSync(`/tmp/xhd-optix-smoke/${name}.xyz`, lines.join("\n") + "\n");
  }'
for backend in cpu cuda optix; do
  printf '%-6s ' "$backend"
  timeout 60 "$NODE" bin/xhd compare /tmp/xhd-optix-smoke/a.xyz /tmp/xhd-optix-smoke/b.xyz --backend "$backend" --json 2>&1 |
    "$NODE" -e 'let t="";process.stdin.on("data",d=>t+=d).on("end",()=>{try{const j=JSON.parse(t);console.log(`hd ${j.hd} witness_ab ${JSON.stringify(j.witness_ab)} witness_ba ${JSON.stringify(j.witness_ba)} query ${j.timings_ms.query.toFixed(2)} ms`)}catch{console.log("FAILED: "+t.trim())}})'
done

section "OptiX suite (test/hausdorff-optix.test.ts, at most 6 minutes)"
timeout 360 "$NODE" --test --test-concurrency=1 --test-reporter=spec dist/test/hausdorff-optix.test.js 2>&1 | tee "$out/optix-suite.log" | grep -E "^\s*(✔|✖|﹣|ℹ)|not ok|Error|expected|actual" | tail -120
optix_status=${PIPESTATUS[0]}
[ "$optix_status" = 124 ] && echo "optix-check: the OptiX suite ran past 6 minutes and was stopped (see $out/optix-suite.log for how far it got)"
if [ "$cuda_suite" = 1 ]; then
  section "CUDA suite (test/hausdorff-cuda.test.ts)"
  timeout 420 "$NODE" --test --test-concurrency=1 dist/test/hausdorff-cuda.test.js 2>&1 | tee "$out/cuda-suite.log" | tail -25
fi

section "cuda against optix (compare --json, float32 PLY: A uniform in the unit cube, B = A + 0.001)"
timeout 240 "$NODE" scripts/device/optix-timing.mjs --sizes "$sizes" --dir /tmp/xhd-optix-data 2>&1 | tee "$out/timing.log"

section "summary"
echo "optix suite exit status: $optix_status (0 = every test passed; see $out/optix-suite.log)"
