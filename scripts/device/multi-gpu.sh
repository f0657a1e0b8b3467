#!/usr/bin/env bash
# The multi-GPU run (issue "Measure multi-GPU scaling") on a multi-GPU machine, in one call: puts the carried
# node, runtime node_modules and prebuilt libraries in place (built here with XHD_MARCH=x86-64-v3 and
# XHD_CUDA_ARCHS=90), runs the CUDA suites whose answers are checked split among workers with every GPU
# (XHD_TEST_DEVICES=all), then scripts/bench-multi-gpu: the 12.5M compare and the mask batch, then the large
# compare. Logs and the reports go to $OUT.
#
# Needs, carried: dist/ (compiled here), .device/node.xz (shared/device/pack-node.sh), .device/nm (the
# runtime dependencies: chalk, commander, csv-parse, koffi, laz-perf) and .device/lib/*.so.
# Usage: scripts/device/multi-gpu.sh [LISTS] [LARGE] [LARGE_SPLITS]   (defaults '0;0,1;all', 1000000000 and
# space,queries). XHD_SKIP_SUITES=1 leaves out the suites; the large compare runs with XHD_HOST_PROFILE=1
# (the host phases of each call, in bench-large.log). XHD_SKIP_SMALL=1 and XHD_SKIP_LARGE=1 leave out the
# 12.5M-and-batch run and the large one (to fit one call's time limit). XHD_BUILD_THERE=1 builds the libraries on the machine
# (a minute on its cores, against most of an hour for the CUDA library on a 2-core VM) instead of taking
# .device/lib.
set -u
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/multi-gpu}"
mkdir -p "$out"
lists="${1:-0;0,1;all}"
large="${2:-1000000000}"
large_splits="${3:-space,queries}"
command -v node >/dev/null 2>&1 || { xz -dc .device/node.xz > /usr/local/bin/node && chmod +x /usr/local/bin/node; }
rm -rf node_modules && cp -r .device/nm node_modules
if [ "${XHD_BUILD_THERE:-0}" = 1 ]; then
  XHD_CUDA_ARCHS=90 XHD_STRICT_BUILD=1 XHD_BUILD_JOBS="$(nproc)" node scripts/build-native.mjs > "$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; echo "multi-gpu: the native build failed"; exit 1; }
  tail -3 "$out/build.log"
else
  mkdir -p build && cp .device/lib/*.so build/
fi
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
echo "cores $(nproc); $(free -g | awk '/Mem:/ {print $2}') GiB"
started=$(date +%s)
[ "${XHD_SKIP_SUITES:-0}" = 1 ] || XHD_TEST_DEVICES=all node --test --test-concurrency=1 dist/test/placement-cuda.test.js dist/test/hausdorff-cuda.test.js \
  > "$out/suites.tap" 2>&1
echo "suites: exit $? after $(( $(date +%s) - started )) s"
grep -E '^# (tests|pass|fail|skipped)' "$out/suites.tap"
grep -E '^ *not ok ' "$out/suites.tap" | grep -v '# SKIP' | head -20
grep -A12 -E '^ +not ok ' "$out/suites.tap" | grep -E "error:|expected|actual" | head -30
[ "${XHD_SKIP_SMALL:-0}" = 1 ] || node dist/scripts/bench-multi-gpu.js --lists "$lists" --sizes 12500000 --large 0 --runs 3 --batch-pairs 1000 \
  --out "$out/bench-12m-batch.md" 2> "$out/bench-12m-batch.log"
echo "bench 12.5M and batch: exit $? after $(( $(date +%s) - started )) s"
grep -E 'on |batch on' "$out/bench-12m-batch.log"
[ "${XHD_SKIP_LARGE:-0}" = 1 ] || XHD_HOST_PROFILE=1 node dist/scripts/bench-multi-gpu.js --lists "$lists" --sizes 0 --large "$large" --runs 1 \
  --splits "$large_splits" --batch-pairs 0 --out "$out/bench-large.md" 2> "$out/bench-large.log"
echo "bench large: exit $? after $(( $(date +%s) - started )) s"
grep -E ' on |generating|rror|xhd-host' "$out/bench-large.log" | grep -v 'ms$' | head -5
grep -E ' on |rror|xhd-host' "$out/bench-large.log" | tail -80
