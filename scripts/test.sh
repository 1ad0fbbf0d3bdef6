#!/usr/bin/env bash
# README command (b): set up, build, and run every test (ctest: unit tests, command-line
# tests, 1- vs 2- vs 3-rank runs under mpirun, a real local Slurm); then the fuzz build of the
# readers (clang, ASan + UBSan, build-fuzz/) replays every committed fuzz input
# (tests/fuzz/seeds, tests/fuzz/failed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
source scripts/env.sh
ctest --test-dir "${NQC_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" --timeout 900
scripts/fuzz-build.sh "${NQC_FUZZ_BUILD_DIR:-build-fuzz}"
ctest --test-dir "${NQC_FUZZ_BUILD_DIR:-build-fuzz}" --output-on-failure -j"$(nproc)" --timeout 900
