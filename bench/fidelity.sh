#!/usr/bin/env bash
# Fidelity of the `grigoryan` engine to the paper (issues 3 and 10), side by side in one run:
#  1. the share of cases by backtracks at n = 1000, 5000 and 100 for the paper's defaults, the
#     author's variant (block 3 stopping at level2) and nqc 0.1's reading of block 5
#     ("retraction"), with the mean CPU time per case;
#  2. the randSet & randSet first-pass share;
#  3. false negatives on bench/configs/grigoryan-false-negatives.json (a seed nothing was tuned
#     on; 3 * 10^6 cases, about 8 minutes on 2 cores) per n with exact 95% intervals beside the
#     paper's bounds, for the paper's defaults and, with --variants, for search_retractions = 100
#     and nqc 0.1's reading (about 8 minutes more each).
# Usage: bench/fidelity.sh [BUILD_DIR] [--no-false-negatives] [--variants]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=build
FN=1
VARIANTS=0
for a in "$@"; do
  case $a in
    --no-false-negatives) FN=0 ;;
    --variants) VARIANTS=1 ;;
    -*) echo "fidelity.sh: unknown option $a" >&2; exit 1 ;;
    *) BUILD=$a ;;
  esac
done
source scripts/env.sh
PY=${NQC_PYTHON:-/usr/bin/python3}
NQC=$BUILD/src/cli/nqc
FID=$BUILD/bench/nqc_bench_fidelity

"$FID" --n 1000 --cases 10000
"$FID" --n 1000 --cases 10000 --variant level2 | tail -n 2
"$FID" --n 1000 --cases 10000 --variant retraction | tail -n 2
"$FID" --n 5000 --cases 2000 | tail -n 2
"$FID" --n 5000 --cases 2000 --variant retraction | tail -n 2
"$FID" --n 100 --cases 10000 | tail -n 1
"$FID" --n 100 --cases 10000 --variant retraction | tail -n 1
"$FID" --n 10000 --cases 500 | tail -n 1
"$FID" --n 10000 --cases 500 --variant retraction | tail -n 1
echo
echo "| n | trials | first-pass share | the paper | difference |"
echo "|---:|---:|---:|---:|---:|"
for spec in "10 1000000 0.605701" "100 200000 0.6005"; do
  read -r n trials paper <<<"$spec"
  share=$("$NQC" randset "$n" --trials "$trials" | sed -n 's/^first_pass_share: //p')
  awk -v n="$n" -v t="$trials" -v s="$share" -v p="$paper" 'BEGIN { printf "| %d | %d | %.5f | %s | %+.5f |\n", n, t, s, p, s - p }'
done

[ "$FN" = 1 ] || exit 0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CONFIG=bench/configs/grigoryan-false-negatives.json
run_variant() {  # NAME ENGINE_PARAMS_JSON
  local config=$out/$1.json
  "$PY" -c 'import json, sys
c = json.load(open(sys.argv[1])); c["name"] += "-" + sys.argv[2]; c["engine_params"] = json.loads(sys.argv[3])
json.dump(c, open(sys.argv[4], "w"))' "$CONFIG" "$1" "$2" "$config"
  local start end
  start=$(date +%s)
  mpirun -np 2 "$NQC" run "$config" -o "$out/$1" -q
  end=$(date +%s)
  echo
  echo "False negatives, $1 (engine_params $2), $((end - start)) s on 2 ranks:"
  echo
  "$PY" -m analysis false-negatives "$out/$1"
}
run_variant paper '{}'
if [ "$VARIANTS" = 1 ]; then
  run_variant search '{"search_retractions": 100}'
  run_variant retraction '{"first_move_sweep": false, "search_retractions": 100, "lookahead_columns": true}'
fi
