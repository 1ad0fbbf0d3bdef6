#!/usr/bin/env bash
# README command (b): set up, build, and run every test (ctest: unit tests, command-line
# tests, 1- vs 2- vs 3-rank runs under mpirun).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
source scripts/env.sh
ctest --test-dir "${NQC_BUILD_DIR:-build}" --output-on-failure -j"$(nproc)" --timeout 900
