#!/usr/bin/env bash
# Issue 3 "Fidelity": the grigoryan engine's backtrack distribution and the randSet &
# randSet first-pass share, next to the paper's figures. About 2 minutes on one core.
# Usage: bench/fidelity.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-build}
"$BUILD/bench/nqc_bench_fidelity" --n 1000 --cases 10000
"$BUILD/bench/nqc_bench_fidelity" --n 1000 --cases 10000 --variant level2 | tail -n 2
"$BUILD/bench/nqc_bench_fidelity" --n 5000 --cases 2000 | tail -n 2
"$BUILD/bench/nqc_bench_fidelity" --n 100 --cases 10000 | tail -n 1
echo
echo "| n | trials | first-pass share | the paper | difference |"
echo "|---:|---:|---:|---:|---:|"
for spec in "10 1000000 0.605701" "100 200000 0.6005"; do
  read -r n trials paper <<<"$spec"
  share=$("$BUILD/src/cli/nqc" randset "$n" --trials "$trials" | sed -n 's/^first_pass_share: //p')
  awk -v n="$n" -v t="$trials" -v s="$share" -v p="$paper" 'BEGIN { printf "| %d | %d | %.5f | %s | %+.5f |\n", n, t, s, p, s - p }'
done
