#!/usr/bin/env bash
# Builds the fuzz targets of tests/fuzz (clang's libFuzzer, ASan + UBSan) into a build
# directory of their own (default build-fuzz), configuring it on first use. Idempotent; needs
# clang and libclang-rt-14-dev (scripts/setup.sh installs them).
# Usage: scripts/fuzz-build.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build-fuzz}
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DNQC_FUZZ=ON -DNQC_BUILD_TESTS=OFF -DNQC_BUILD_BENCH=OFF >/dev/null
fi
# Only errors and warnings are shown; a failed build fails here (the fuzzers of an earlier
# build must not be replayed as if they were this source's).
status=0
cmake --build "$build" -j"$(nproc)" --target nqc_fuzzers >"$build/fuzz-build.log" 2>&1 || status=$?
grep -E "error|warning|Error" "$build/fuzz-build.log" >&2 || true
if ((status != 0)); then
  echo "fuzz-build: build failed (log: $build/fuzz-build.log)" >&2
  exit 1
fi
