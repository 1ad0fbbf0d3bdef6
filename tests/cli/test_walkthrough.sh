#!/usr/bin/env bash
# The walkthrough of analysis/README.md ("Walkthrough: two engines on one config"), run as
# written from a copy of the repository's layout (analysis/ and the built nqc at
# build/src/cli/nqc), its report into results/compare (the committed example untouched), then
# analysis/examples/make-compare.sh on its runs; the counts of the fresh comparison (cases,
# backtrack shares, false negatives: they do not depend on the machine) equal those of the
# committed example in analysis/examples/compare/.
# Usage: test_walkthrough.sh NQC PYTHON REPO
set -u
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
repo_test_args "$@"

repo_copy analysis
rm -rf "$W/analysis/examples/compare/figures" "$W/analysis/examples/compare/"*.csv "$W/analysis/examples/compare/"*.md
doc_block "$REPO/analysis/README.md" walkthrough "$W/walkthrough.sh"
check "analysis/README.md: the walkthrough block is there (4 commands)" test "$(grep -c . "$W/walkthrough.sh")" = 4
run bash -c "cd '$W' && PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg bash -e walkthrough.sh"
expect_exit 0 "the walkthrough runs as written"
expect_stdout_contains "auto** against **grigoryan**" "compare prints the verdict line of auto against grigoryan"
check "the runs went where the walkthrough reads them (results/compare-ENGINE, beside analysis/)" \
  test -s "$W/results/compare-grigoryan/results.h5" -a -s "$W/results/compare-auto/results.h5"
for f in report.md compare.csv table1.csv figures/compare_time.png figures/compare_shares.png; do
  check "the report wrote results/compare/$f" test -s "$W/results/compare/$f"
done
check "the walkthrough leaves the committed example alone (analysis/examples/compare/ as copied)" \
  test -z "$(ls "$W/analysis/examples/compare" | grep -vx 'auto.json\|grigoryan.json')"

# The counts of the fresh comparison equal the committed example's: 1700 compositions per run,
# n = 10 .. 10^4, the same backtracks and no false negatives (times differ by machine).
"$PYTHON" - "$W/results/compare" "$REPO/analysis/examples/compare" >"$TMP/counts.txt" 2>&1 <<'PY'
import sys
import pandas as pd
fresh, committed = sys.argv[1], sys.argv[2]
def check(ok, what):
    print(("ok - " if ok else "FAIL - ") + what)
for name, cols in (("compare.csv", ["run", "n", "cases", "bt0", "false_negatives", "gave_up", "infeasible"]),
                   ("table1.csv", ["run", "n", "cases", "bt0", "bt1", "bt2", "bt3", "bt_more", "false_negatives",
                                   "gave_up", "mean_backtracks", "mean_k"])):
    a = pd.read_csv(f"{fresh}/{name}")[cols].sort_values(["run", "n"]).reset_index(drop=True)
    b = pd.read_csv(f"{committed}/{name}")[cols].sort_values(["run", "n"]).reset_index(drop=True)
    check(a.equals(b), f"{name}: {', '.join(cols[2:])} per run and n equal the committed example's"
          + ("" if a.equals(b) else f"\n#   fresh:\n{a}\n#   committed:\n{b}"))
c = pd.read_csv(f"{fresh}/compare.csv")
check(sorted(c.run.unique()) == ["auto", "grigoryan"] and c.groupby("run").cases.sum().tolist() == [1700, 1700],
      f"compare.csv: two runs of 1700 cases each (got {c.groupby('run').cases.sum().to_dict()})")
check(sorted(c.n.unique()) == [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000], "compare.csv: n = 10 .. 10^4")
check(int(c.false_negatives.sum()) == 0, "no false negatives in either run")
import matplotlib.image as mpimg
img = mpimg.imread(f"{fresh}/figures/compare_time.png")
check(img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100, f"compare_time.png is an image ({img.shape})")
PY
relay_checks "$TMP/counts.txt"

# make-compare.sh on the runs that are there: it reuses them and writes the same report into
# analysis/examples/compare/ (the committed example's place).
run bash -c "cd '$W' && PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg bash analysis/examples/make-compare.sh"
expect_exit 0 "analysis/examples/make-compare.sh"
expect_stdout_contains "make-compare: using results/compare-auto/results.h5" "make-compare.sh reuses the runs"
check "make-compare.sh wrote compare.csv and the comparison figure" \
  test -s "$W/analysis/examples/compare/compare.csv" -a -s "$W/analysis/examples/compare/figures/compare_time.png"
summary
