#!/usr/bin/env bash
# Builds preset fuzz (CMakePresets.json: clang, ASan + UBSan, libFuzzer) into a build
# directory of its own (default build-fuzz): the fuzz targets of tests/fuzz and the unit tests,
# which `ctest --test-dir BUILD_DIR` then runs (the replay of every committed fuzz input, and
# the unit tests under the sanitizers). Idempotent; needs clang and libclang-rt-14-dev
# (scripts/setup.sh installs them).
# Usage: scripts/fuzz-build.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build-fuzz}
cmake --preset fuzz -B "$build" >/dev/null
# Only errors and warnings are shown; a failed build fails here (the fuzzers of an earlier
# build must not be replayed as if they were this source's). The targets: build preset fuzz's.
status=0
cmake --build "$build" -j"$(nproc)" --target nqc_fuzzers nqc_unit_tests >"$build/fuzz-build.log" 2>&1 || status=$?
grep -E "(error|warning):|Error" "$build/fuzz-build.log" >&2 || true
if ((status != 0)); then
  echo "fuzz-build: build failed (log: $build/fuzz-build.log)" >&2
  exit 1
fi
