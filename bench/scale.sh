#!/usr/bin/env bash
# The engines at the paper's sizes, each step a process of its own, with its wall time and peak
# resident memory (/usr/bin/time) against one uint32 array of n (4n bytes; the target is 2.5x):
#   construct, generate (a random solution), derive (k = 7.9% of n), verify, complete (auto),
#   then the paper's challenge (nqc challenge N --free-rows 518) and `complete` on both files.
# Binary composition files (.bin). Needs about 8 files of 4n bytes on disk (32 GB at 10^9) and
# 10n bytes of memory.
# Usage: bench/scale.sh [N] [BUILD_DIR] [WORK_DIR]     (default: 1000000000 build, a temp dir)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
N=${1:-1000000000}
NQC=${2:-build}/src/cli/nqc
if [[ -n ${3:-} ]]; then
  work=$3
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
K=$(awk -v n="$N" 'BEGIN { printf "%d", 0.079 * n }')
echo "| step | wall s | peak RSS GB | RSS / 4n bytes | exit |"
echo "|---|---:|---:|---:|---:|"
step() {  # NAME COMMAND...
  local name=$1
  shift
  local code=0
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err" || code=$?
  read -r wall kb < <(tail -n 1 "$work/time")
  awk -v s="$name" -v w="$wall" -v kb="$kb" -v n="$N" -v c="$code" \
    'BEGIN { printf "| %s | %.1f | %.2f | %.2f | %d |\n", s, w, kb / 1048576, kb * 1024 / (4 * n), c }'
}
step "construct (explicit)" "$NQC" construct "$N" -o "$work/construct.bin"
rm -f "$work/construct.bin"
step "generate (random solution)" "$NQC" generate "$N" --seed 1 -o "$work/solution.bin"
step "derive (k = 7.9% of n)" "$NQC" derive "$work/solution.bin" -k "$K" --seed 1 -o "$work/composition.bin"
step "verify (solution)" "$NQC" verify "$work/solution.bin"
step "complete (auto)" "$NQC" complete "$work/composition.bin" -o "$work/completed.bin"
grep -E "^time_s" "$work/out" | sed 's/^/  complete (auto): engine /'
step "verify (completion)" "$NQC" verify "$work/completed.bin"
rm -f "$work/solution.bin" "$work/composition.bin" "$work/completed.bin"
step "challenge (518 free rows)" "$NQC" challenge "$N" --free-rows 518 -o "$work/challenge"
for f in a b; do
  step "complete challenge $f.bin (auto)" "$NQC" complete "$work/challenge/$f.bin"
  sed -n 's/^outcome: /  outcome: /p; s/^time_s: /  engine s: /p' "$work/out"
done
sed -n 's/^ *"\(completable\|infeasible\)": "\(.*\)",*/  answer.json: \1 = \2/p' "$work/challenge/answer.json"
