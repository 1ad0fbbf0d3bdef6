#!/usr/bin/env bash
# Writes the committed example of the completion threshold (analysis/README.md, "Completion
# threshold"): the report of configs/threshold.json (every canonical composition of k queens for
# n = 4..12, k up to a(n) + 1), a(n) with its witnesses beside OEIS A374013.
#   analysis/examples/threshold/make.sh [RESULTS_DIR [OUT_DIR]]
# defaults: results/threshold -> analysis/examples/threshold. Runs the config (about 2 s)
# unless RESULTS_DIR/results.h5 is there. NQC (default build/src/cli/nqc) is the nqc binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
results=${1:-results/threshold}
out=${2:-analysis/examples/threshold}
nqc=${NQC:-build/src/cli/nqc}
if [[ -e $results/results.h5 ]]; then
  echo "make.sh: using $results/results.h5 (remove the directory to run again)"
else
  "$nqc" run configs/threshold.json -o "$results" --quiet
fi
/usr/bin/python3 -m analysis threshold "$results"
/usr/bin/python3 -m analysis report "$results" -o "$out"
