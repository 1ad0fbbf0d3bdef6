#!/usr/bin/env bash
# README command (a): set up, build, run the demo experiment (configs/demo.json) on 2 MPI
# ranks, and print the per-n table. Results: results/demo/results.h5 (a rerun starts over).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup.sh
source scripts/env.sh
NQC=${NQC_BUILD_DIR:-build}/src/cli/nqc
CONFIG=${1:-configs/demo.json}
out=$("$NQC" run "$CONFIG" --dry-run | sed -n 's/.*, output \(.*\)$/\1/p')
if [[ -e $out ]]; then
  echo "demo: removing the previous results in $out" >&2
  rm -rf -- "$out"
fi
start=$(date +%s.%N)
mpirun -np 2 --oversubscribe "$NQC" run "$CONFIG"
end=$(date +%s.%N)
echo
"$NQC" aggregate "$out"
cases=$("$NQC" run "$CONFIG" --dry-run | sed -n 's/.* shards, \([0-9]*\) cases,.*/\1/p')
awk -v s="$start" -v e="$end" -v c="$cases" -v o="$out" 'BEGIN {
  printf "\n%d cases in %.1f s wall on 2 ranks (%.0f cases/s, including start-up); results: %s/results.h5\n", c, e - s, c / (e - s), o }'
# The analysis report (analysis/, Debian's Python): Table 1, the time regression beside the
# paper's, the figures, and nqc randset's histogram.
echo
/usr/bin/python3 -m analysis report "$out" -o "$out/report" --nqc "$NQC" >/dev/null
echo "demo: report with Table 1, fits and figures: $out/report/report.md (figures in $out/report/figures/)"
