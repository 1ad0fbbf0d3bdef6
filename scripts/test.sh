#!/usr/bin/env bash
# README command (b), what CI runs: set up and build with preset ci (Release, -Werror) in
# build/, run every test there (ctest: unit tests, command-line tests, 1- vs 2- vs 3-rank runs
# under mpirun, a real local Slurm); then preset fuzz in build-fuzz/ (clang, ASan + UBSan):
# the unit tests under the sanitizers and the replay of every committed fuzz input
# (tests/fuzz/seeds, tests/fuzz/failed).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NQC_PRESET=${NQC_PRESET:-ci} scripts/setup.sh
source scripts/env.sh
ctest --test-dir "${NQC_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" --timeout 900
scripts/fuzz-build.sh "${NQC_FUZZ_BUILD_DIR:-build-fuzz}"
ctest --test-dir "${NQC_FUZZ_BUILD_DIR:-build-fuzz}" --output-on-failure -j"$(nproc)" --timeout 900
