#!/usr/bin/env bash
# Writes the committed example of the phase transition (analysis/README.md, "Phase transition"):
# the report of configs/phase-transition.json (1000 random compositions per point along f = 10
# and f = 15 free rows, as [Gent17] drew them) beside [Gent17]'s published shares.
#   analysis/examples/phase-transition/make.sh [RESULTS_DIR [OUT_DIR]]
# defaults: results/phase-transition -> analysis/examples/phase-transition. Runs the config (2 to
# 3 s) unless RESULTS_DIR/results.h5 is there. NQC (default build/src/cli/nqc) is the nqc binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
results=${1:-results/phase-transition}
out=${2:-analysis/examples/phase-transition}
nqc=${NQC:-build/src/cli/nqc}
if [[ -e $results/results.h5 ]]; then
  echo "make.sh: using $results/results.h5 (remove the directory to run again)"
else
  "$nqc" run configs/phase-transition.json -o "$results" --quiet
fi
/usr/bin/python3 -m analysis phase "$results"
/usr/bin/python3 -m analysis report "$results" -o "$out"
