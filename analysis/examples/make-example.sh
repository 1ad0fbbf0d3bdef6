#!/usr/bin/env bash
# Writes the committed example report: Table 1, fits and figures of configs/paper-small.json.
#   analysis/examples/make-example.sh [RESULTS_DIR [OUT_DIR]]
# defaults: results/paper-small -> analysis/examples/paper-small. Run the experiment first
# (about 10 minutes on 2 cores):
#   mpirun -np 2 build/src/cli/nqc run configs/paper-small.json
# NQC (default build/src/cli/nqc) runs `nqc randset` for the randSet & randSet figure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
results=${1:-results/paper-small}
out=${2:-analysis/examples/paper-small}
nqc=${NQC:-build/src/cli/nqc}
if [[ ! -e $results/results.h5 ]]; then
  echo "make-example: $results/results.h5 not found: run the experiment first (mpirun -np 2 $nqc run configs/paper-small.json)" >&2
  exit 1
fi
# Figure 11 as the paper drew it: compositions of about 800 queens at n = 1000.
/usr/bin/python3 -m analysis report "$results" -o "$out" --nqc "$nqc" \
  --hist-n 1000 --hist-k 790:810 --randset-n 100 1000 10000 --randset-trials 20000
