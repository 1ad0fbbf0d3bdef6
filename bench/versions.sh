#!/usr/bin/env bash
# Two builds of nqc side by side on one config: the run's wall time, alternated REPEATS times
# (old, new, old, new, ...: both see the same machine), the engine seconds and bytes per case
# of results.h5, and whether the rows are the same (bench/same_rows.py: every column but the
# machine's and the shard layout). For a change that must keep behaviour.
# Usage: bench/versions.sh OLD_NQC NEW_NQC [CONFIG] [RANKS] [REPEATS]
#   default CONFIG bench/configs/runner.json (263,800 cases), RANKS 2, REPEATS 3
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ $# -lt 2 ]; then
  sed -n '2,7p' "$0" >&2
  exit 2
fi
OLD=$(realpath "$1")
NEW=$(realpath "$2")
CONFIG=${3:-bench/configs/runner.json}
RANKS=${4:-2}
REPEATS=${5:-3}
source scripts/env.sh
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "old: $("$OLD" -V 2>/dev/null || echo "$OLD")"
echo "new: $("$NEW" -V)"
echo "config $CONFIG on $RANKS rank(s), $REPEATS runs each, alternated"
for r in $(seq 1 "$REPEATS"); do
  for which in old new; do
    bin=$OLD
    [ "$which" = new ] && bin=$NEW
    dir=$out/$which-$r
    start=$(date +%s.%N)
    mpirun -np "$RANKS" --oversubscribe "$bin" run "$CONFIG" -o "$dir" -q 2>"$out/log" || { cat "$out/log" >&2; exit 1; }
    end=$(date +%s.%N)
    awk -v w="$which" -v s="$start" -v e="$end" 'BEGIN { printf "%s %.2f\n", w, e - s }' | tee -a "$out/walls"
  done
done
cases=$("$NEW" run "$CONFIG" --dry-run --json | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["cases"])')
/usr/bin/python3 - "$out/walls" "$cases" <<'PY'
import statistics, sys
walls = {}
for line in open(sys.argv[1]):
    which, wall = line.split()
    walls.setdefault(which, []).append(float(wall))
old, new = statistics.median(walls["old"]), statistics.median(walls["new"])
print(f"median wall: old {old:.2f} s, new {new:.2f} s; new / old = {new / old:.3f}; {sys.argv[2]} cases")
PY
for which in old new; do
  b=$(stat -c %s "$out/$which-1/results.h5")
  awk -v w="$which" -v b="$b" -v c="$cases" 'BEGIN { printf "%s results.h5: %d bytes, %.2f bytes per case\n", w, b, b / c }'
done
/usr/bin/python3 bench/same_rows.py "$out/old-1/results.h5" "$out/new-1/results.h5"
