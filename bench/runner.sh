#!/usr/bin/env bash
# Throughput of 2 ranks against 1 on one config, side by side; the share of wall
# time each rank waited for shard writes (and its writer thread's CPU time); bytes per case on disk.
# Usage: bench/runner.sh [CONFIG] [BUILD_DIR]     (default: bench/configs/runner.json, 263,800 cases)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CONFIG=${1:-bench/configs/runner.json}
NQC=${2:-build}/src/cli/nqc
source scripts/env.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cases=$("$NQC" run "$CONFIG" --dry-run | sed -n 's/.* shards, \([0-9]*\) cases,.*/\1/p')
for ranks in 1 2; do
  start=$(date +%s.%N)
  if [ "$ranks" = 1 ]; then
    "$NQC" run "$CONFIG" -o "$out/r$ranks" --log-level debug 2>"$out/log$ranks"
  else
    mpirun -np "$ranks" --oversubscribe "$NQC" run "$CONFIG" -o "$out/r$ranks" --log-level debug 2>"$out/log$ranks"
  fi
  end=$(date +%s.%N)
  wall=$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')
  echo "$ranks $wall" >>"$out/walls"
  grep -h "writing shard files: waited" "$out/log$ranks" | sed "s/^.*\[rank \([0-9]*\)\].*waited/  ranks=$ranks rank \1: waited/"
done
read -r _ w1 < <(sed -n 1p "$out/walls")
read -r _ w2 < <(sed -n 2p "$out/walls")
bytes=$(stat -c %s "$out/r2/results.h5")
shard_bytes=$(du -cb "$out"/r2/shards/*.h5 | tail -n 1 | cut -f1)
awk -v c="$cases" -v w1="$w1" -v w2="$w2" -v b="$bytes" -v sb="$shard_bytes" 'BEGIN {
  printf "| ranks | wall s | cases/s |\n|---:|---:|---:|\n| 1 | %.1f | %.0f |\n| 2 | %.1f | %.0f |\n", w1, c / w1, w2, c / w2
  printf "2 ranks / 1 rank throughput: %.2fx\n", w1 / w2
  printf "results.h5: %d bytes = %.1f bytes per case; shard files: %.1f bytes per case\n", b, b / c, sb / c }'
