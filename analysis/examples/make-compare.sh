#!/usr/bin/env bash
# Writes the committed comparison example (analysis/README.md, "Walkthrough: two engines on one
# config"): the engines grigoryan and auto on the same compositions, side by side.
#   analysis/examples/make-compare.sh [OUT_DIR]
# default OUT_DIR: analysis/examples/compare. Runs each config of analysis/examples/compare/
# (about a second each) into results/compare-ENGINE unless its results.h5 is there already.
# NQC (default build/src/cli/nqc) is the nqc binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${1:-analysis/examples/compare}
nqc=${NQC:-build/src/cli/nqc}
for engine in grigoryan auto; do
  if [[ -e results/compare-$engine/results.h5 ]]; then
    echo "make-compare: using results/compare-$engine/results.h5 (remove the directory to run again)"
  else
    "$nqc" run "analysis/examples/compare/$engine.json" --quiet    # -> results/compare-$engine
  fi
done
/usr/bin/python3 -m analysis compare results/compare-grigoryan results/compare-auto
/usr/bin/python3 -m analysis report results/compare-grigoryan results/compare-auto -o "$out"
