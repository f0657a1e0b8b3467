#!/usr/bin/env bash
# The whole test suite on a GPU machine, in one run: puts the carried node in place (where the machine has none),
# builds the three native libraries there (CPU, CUDA, OptiX when the headers are carried), runs the native
# sanitizer tests and every test file, and prints a summary: counts, failures with their first lines, and the
# GPU suites that skipped (a GPU suite that skips on a GPU machine is a finding).
#
# Needs, carried (ignored paths): dist/ (compiled and bundled here), .optix/include, .device/node.xz and
# .device/nm. Usage: scripts/device/suite.sh [--concurrency N] [TEST_FILE_PATTERN]. Logs under $OUT.
set -u
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp/suite}"
mkdir -p "$out"
concurrency=1
if [ "${1:-}" = "--concurrency" ]; then concurrency="$2"; shift 2; fi
pattern="${1:-*}"

if ! command -v node >/dev/null 2>&1 && [ -f .device/node.xz ]; then
  xz -dc .device/node.xz > /usr/local/bin/node && chmod +x /usr/local/bin/node
fi
if [ -d .device/nm ] && [ ! -e node_modules/.carried ]; then
  rm -rf node_modules && cp -r .device/nm node_modules && touch node_modules/.carried
  mkdir -p node_modules/.bin && ln -sf ../../bin/xhd node_modules/.bin/xhd
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
started=$(date +%s)
if ! XHD_CUDA_ARCHS="${XHD_CUDA_ARCHS:-90}" XHD_STRICT_BUILD=1 XHD_BUILD_JOBS="$(nproc)" node scripts/build-native.mjs > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"; echo "suite: the native build failed"; exit 1
fi
echo "built in $(( $(date +%s) - started )) s"
node --test --test-concurrency="$concurrency" dist/test/$pattern.test.js > "$out/suite.tap" 2>&1
status=$?
grep -E '^# (tests|pass|fail|skipped|cancelled|duration_ms)' "$out/suite.tap"
echo "--- failures"
grep -E '^( *)not ok ' "$out/suite.tap" | grep -v '# SKIP' | head -40
grep -A12 -E '^ +not ok ' "$out/suite.tap" | grep -E "error:|expected|actual|location" | head -60
echo "--- skipped suites and tests (reasons)"
grep -E '# SKIP' "$out/suite.tap" | sed -E 's/^ +//' | sort | uniq -c | sort -rn | head -25
echo "suite: exit $status after $(( $(date +%s) - started )) s"
exit $status
