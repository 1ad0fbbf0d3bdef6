#!/usr/bin/env bash
# Cases that need not complete, from a config: random compositions (CSPLib's placed queens),
# Excluded Diagonals instances and every canonical composition. For each origin: the same rows
# on 1 rank and on 3 ranks (every column but the run-dependent ones); the rows are what the
# config asks for (k = n - f, the diagonals excluded, each canonical composition once with its
# orbit size, their sums the number of all consistent compositions); infeasible cases are
# results, never false negatives; a(4..9) of OEIS A374013 read off the canonical rows;
# export and rerun rebuild a case of each origin; docs/configs.md's two studies run as written.
# Usage: test_origins.sh NQC PYTHON REPO   (PYTHON: a python3 with h5py and pandas)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
repo_test_args "$@"
LIMIT=120  # seconds per run: a hung mpirun fails the check instead of the whole test

cat >"$TMP/random.json" <<'JSON'
{"name": "random", "seed": 5, "engine": "auto", "shard_cases": 7,
 "random_compositions": [{"n": [14, 20], "free_rows": 10, "samples": 30}, {"n": 30, "free_rows": [12, 15], "samples": 10}]}
JSON
cat >"$TMP/excluded.json" <<'JSON'
{"name": "excluded", "seed": 5, "engine": "auto", "shard_cases": 6,
 "excluded_diagonals": [{"n": 12, "diags": [8, 10], "samples": 15}]}
JSON
cat >"$TMP/canonical.json" <<'JSON'
{"name": "canonical", "seed": 5, "engine": "auto", "shard_cases": 40,
 "canonical_compositions": [{"n": [4, 5, 6, 7, 8, 9], "k": [1, 2]}, {"n": 7, "k": 3}]}
JSON

for origin in random excluded canonical; do
  run timeout "$LIMIT" "$NQC" run "$TMP/$origin.json" -o "$TMP/$origin-1" -q
  expect_exit 0 "$origin: run on 1 rank"
  run timeout "$LIMIT" mpirun -np 3 --oversubscribe "$NQC" run "$TMP/$origin.json" -o "$TMP/$origin-3" -q
  expect_exit 0 "$origin: run under mpirun -np 3"
done

# aggregate: per origin, n and its parameter, outcomes as results (no false-negative column).
run "$NQC" aggregate "$TMP/random-1" --csv "$TMP/random.csv"
expect_exit 0 "aggregate of the random compositions"
check "aggregate --csv: one row per n and free_rows (n,free_rows,files,cases,...)" \
  test "$(cut -d, -f1-4 "$TMP/random.csv" | tr '\n' ';')" = "n,free_rows,files,cases;14,10,0,30;20,10,0,30;30,12,0,10;30,15,0,10;"

# export rebuilds a case: an excluded-diagonals case as a .param file (its diagonals), which
# complete answers as the run did; rerun gives the stored row again for every origin.
run "$NQC" export "$TMP/excluded-1" --case 3 -o "$TMP/case3.txt"
expect_exit 1 "export of an excluded-diagonals case to a composition file"
expect_stderr_line "nqc: error: -o: case 3 excludes 8 diagonals, which a composition file cannot hold; name a .param file (or - for stdout)" \
  "export of an excluded-diagonals case to a composition file: refused, naming .param"
run "$NQC" export "$TMP/excluded-1" --case 3 -o "$TMP/case3.param"
expect_exit 0 "export of an excluded-diagonals case to a .param file"
stored=$("$NQC" rows "$TMP/excluded-1" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 5 { print $c["outcome"] }')
run "$NQC" complete "$TMP/case3.param" -e exact
check "the exported case has the stored outcome ($stored) under complete -e exact (exit $RC)" \
  test "$RC:$stored" = "0:solved" -o "$RC:$stored" = "4:infeasible"
run "$NQC" export "$TMP/random-1" --case 3 -o "$TMP/random3.param"
expect_exit 1 "export of a random composition to a .param file"
expect_stderr_line "nqc: error: -o: case 3 is a composition (random), which a CSPLib .param file cannot hold; name a composition file (.txt, .bin, .h5) or -" \
  "export of a composition to a .param file: refused"
check "... and writes nothing" test ! -e "$TMP/random3.param"
for origin in random excluded canonical; do
  run "$NQC" rerun "$TMP/$origin-1" --case 9
  expect_exit 0 "rerun of case 9 of the $origin run: the stored outcome and backtracks again"
done

"$PYTHON" - "$TMP" "$REPO/analysis/result_schema.json" >"$TMP/py.out" 2>"$TMP/py.err" <<'EOF'
import itertools
import json
import os
import sys

import h5py
import pandas as pd

tmp, schema = sys.argv[1], json.load(open(sys.argv[2]))
volatile = os.environ["NQC_RUN_DEPENDENT"].split(",")
origin_code = next(c for c in schema["columns"] if c["name"] == "origin")["values"]


def report(good, what, detail=""):
    print(("ok - " if good else "FAIL - ") + what)
    if not good and detail:
        for line in str(detail).splitlines()[:20]:
            print("#   " + line)


def rows(d):
    with h5py.File(f"{tmp}/{d}/results.h5", "r") as f:
        return pd.DataFrame(f["cases"][()]).sort_values("case_id").reset_index(drop=True)


def consistent_compositions(n, k):
    """Every set of k queens on the n x n board, no two attacking: counted by brute force."""
    cells = [(r, c) for r in range(n) for c in range(n)]
    count = 0
    for queens in itertools.combinations(cells, k):
        rows_, cols = {r for r, _ in queens}, {c for _, c in queens}
        sums, diffs = {r + c for r, c in queens}, {r - c for r, c in queens}
        count += len(rows_) == len(cols) == len(sums) == len(diffs) == k
    return count


frames = {}
for origin, name in [("random", "random"), ("excluded", "excluded_diagonals"), ("canonical", "canonical")]:
    one, three = rows(f"{origin}-1"), rows(f"{origin}-3")
    frames[origin] = one
    a, b = one.drop(columns=volatile), three.drop(columns=volatile)
    report(a.equals(b), f"{origin}: the same rows on 1 and 3 ranks in every column but {', '.join(volatile)}")
    report(sorted(set(three["rank"])) == [0, 1, 2], f"{origin}: rows from ranks 0, 1 and 2 (got {sorted(set(three['rank']))})")
    report((one["origin"] == origin_code[name]).all(), f"{origin}: every row of origin {name}")
    report((one["false_negative"] == 0).all(), f"{origin}: no false negatives (these cases need not complete)")
    report(set(one["outcome"]) == {0, 1}, f"{origin}: solved and infeasible cases (got outcomes {sorted(set(one['outcome']))})")
    report(one["seed"].is_unique, f"{origin}: a seed per case")

r = frames["random"]
report((r["k"] == r["n"] - r["solution_id"]).all(), "random: k = n - free rows (solution_id) in every row")
sizes = r.groupby(["n", "solution_id"]).size().to_dict()
report(sizes == {(14, 10): 30, (20, 10): 30, (30, 12): 10, (30, 15): 10}, f"random: the samples per (n, f) asked for (got {sizes})")
report(list(r[(r["n"] == 20)]["composition_id"]) == list(range(30)), "random: sample ids 0..29 for n = 20")
share14 = (r[r["n"] == 14]["outcome"] == 0).mean()
report(share14 == 1.0, f"random: every composition of f = 10 completes at n = 14 (JAIR: 0.999; got {share14})")

e = frames["excluded"]
report((e["k"] == 0).all() and (e["n"] == 12).all(), "excluded_diagonals: empty 12 x 12 boards")
report(sorted(set(e["solution_id"])) == [8, 10], "excluded_diagonals: d = 8 and 10 in solution_id")

c = frames["canonical"]
report(set(c["orbit_size"]) <= {1, 2, 4, 8}, f"canonical: orbit sizes 1, 2, 4 or 8 (got {sorted(set(c['orbit_size']))})")
report((frames["random"]["orbit_size"] == 0).all(), "random: orbit_size 0 (not a canonical case)")
bad = []
for (n, k), part in c.groupby(["n", "k"]):
    want = consistent_compositions(n, k)
    if part["orbit_size"].sum() != want:
        bad.append(f"n = {n}, k = {k}: orbit sizes add up to {part['orbit_size'].sum()}, {want} compositions")
report(not bad, "canonical: the orbit sizes add up to the number of consistent compositions of each n and k", "\n".join(bad))
ids = c.groupby(["n", "k"])["composition_id"].agg(lambda i: list(i) == list(range(len(i))))
report(ids.all() and (c["solution_id"] == c["k"]).all(), "canonical: solution_id = k, composition_id 0, 1, ... per n and k")
# a(n): the largest k such that every composition of k queens completes (OEIS A374013).
a = {}
for n in range(4, 10):
    complete = {k: bool((c[(c["n"] == n) & (c["k"] == k)]["outcome"] == 0).all()) for k in (1, 2)}
    a[n] = 0 if not complete[1] else 1 if not complete[2] else 2
report(a == {4: 0, 5: 1, 6: 0, 7: 1, 8: 1, 9: 1}, f"canonical: a(4..9) = 0, 1, 0, 1, 1, 1 as OEIS A374013 (got {a})")
EOF
py_rc=$?
relay_checks "$TMP/py.out"
if [ "$py_rc" -eq 0 ]; then ok "python checks ran ($PYTHON)"
else fail "python checks ran ($PYTHON, exit $py_rc)" "$(head -c 2000 "$TMP/py.err")"
fi

# Refused before any case runs: an incomplete engine (a generated composition may have no
# completion), k queens that cannot stand on the board, a plan too long to count, a board too
# large for the Excluded Diagonals generator. One line each, naming the file and JSON path.
refuse() {  # refuse NAME JSON EXPECTED-MESSAGE
  printf '%s\n' "$2" >"$TMP/$1.json"
  run "$NQC" run "$TMP/$1.json" -o "$TMP/$1-out" --dry-run
  expect_exit 1 "$1: refused"
  expect_log_error "$TMP/$1.json: $3" "$1: one line naming the file and JSON path"
}
refuse incomplete '{"name": "i", "engine": "minconflicts", "random_compositions": [{"n": 20, "free_rows": 10, "samples": 3}]}' \
  "/engine: engine 'minconflicts' is incomplete (it cannot prove a composition infeasible), and the cases of random_compositions may have no completion: use auto, bitboard, exact or sat"
refuse no-composition '{"name": "z", "canonical_compositions": [{"n": [4, 3], "k": 3}]}' \
  "/canonical_compositions/0: (n = 3, k = 3): no 3 queens stand on the 3 x 3 board without attacking; expected k <= 2"
refuse long-plan '{"name": "l", "canonical_compositions": [{"n": 60, "k": 3}]}' \
  "/canonical_compositions/0: (n = 60, k = 3) has up to C(n^2, k) / 8 = 9.7e+08 canonical compositions, more than the 3*10^8 a plan enumerates (nqc_bench_threshold counts past it)"
refuse large-board '{"name": "b", "excluded_diagonals": [{"n": 20000, "diags": 10, "samples": 1}]}' \
  "/excluded_diagonals/0: (n = 20000, diags = 10): expected n <= 16384 for excluded_diagonals (its generator takes O(n) steps per diagonal)"
refuse small-excluded '{"name": "e", "excluded_diagonals": [{"n": [5, 4], "diags": 1, "samples": 1}]}' \
  "/excluded_diagonals/0: (n = 4, diags = 1): expected diags <= 0 (CSPLib's generator keeps more than 4 open cells in each row and column)"
refuse many-samples '{"name": "s", "random_compositions": [{"n": 20, "free_rows": 10, "samples": 9223372036854775807}]}' \
  "/random_compositions/0/samples: the plan has more than 10^12 cases; split it into several configs"
refuse large-random '{"name": "b", "random_compositions": [{"n": [100, 10000001], "free_rows": 10, "samples": 1}]}' \
  "/random_compositions/0: (n = 10000001, free_rows = 10): expected n <= 10000000 for random_compositions (16 n bytes and seconds per draw)"

# A generator that makes no case within its draws ends the run with exit 1 and one line
# naming the config, its group and the sample; the lock is released and the launch records it.
fault() {  # fault NAME JSON EXPECTED-MESSAGE
  printf '%s\n' "$2" >"$TMP/$1.json"
  run timeout "$LIMIT" "$NQC" run "$TMP/$1.json" -o "$TMP/$1-out"
  expect_exit 1 "$1: the run ends"
  check "$1: one critical line naming the config, group and sample" \
    test "$(grep -c "\] \[critical\] $(printf '%s' "$TMP/$1.json: $3" | sed 's/[][\.*^$/]/\\&/g')" "$ERR_FILE")" = 1
  check "$1: the lock released" test -z "$(ls -A "$TMP/$1-out/locks")"
  run "$NQC" info "$TMP/$1-out"
  check "$1: launch 1 recorded with exit status 1" \
    test "$(awk '$1 == "1" && $2 ~ /Z$/ { print $(NF - 3) }' "$OUT_FILE")" = 1
}
fault few-free-rows '{"name": "f", "random_compositions": [{"n": 14, "free_rows": 10, "samples": 3}, {"n": 2000, "free_rows": 2, "samples": 2}]}' \
  "/random_compositions/1: (n = 2000, free_rows = 2), sample 0: CSPLib's placed-queens procedure placed no 1998 queens in 250 draws (min(10^4, 10^9 / n^2)); expected more free_rows"
fault many-diags '{"name": "d", "excluded_diagonals": [{"n": 14, "diags": 54, "samples": 1}]}' \
  "/excluded_diagonals/0: (n = 14, diags = 54), sample 0: CSPLib's generator excluded fewer than 54 diagonals in 10000 draws (min(10^4, 10^9 / n^2)); expected fewer diags"

# term_when NAME JSON PATTERN: nqc run of the config JSON into $TMP/NAME-out, sent SIGTERM once
# its log ($TMP/NAME.err) holds PATTERN; RC its exit code.
term_when() {
  printf '%s\n' "$2" >"$TMP/$1.json"
  "$NQC" run "$TMP/$1.json" -o "$TMP/$1-out" >"$TMP/$1.out" 2>"$TMP/$1.err" &
  local pid=$!
  for _ in $(seq 1 600); do grep -q "$3" "$TMP/$1.err" && break; sleep 0.1; done
  kill -TERM "$pid"
  wait "$pid"
  RC=$?
}

# SIGTERM while the plan counts canonical compositions (about a minute for n = 49, k = 3):
# exit 4 and one line saying so, nothing written.
term_when count '{"name": "t", "canonical_compositions": [{"n": 49, "k": 3}]}' "counting the canonical compositions"
check "SIGTERM while counting canonical compositions: exit 4 (got $RC)" test "$RC" = 4
check "SIGTERM while counting: one line saying so" \
  grep -q "\[error\] interrupted while counting the canonical compositions of (n = 49, k = 3)" "$TMP/count.err"
check "SIGTERM while counting: no results directory" test ! -e "$TMP/count-out"

# Runs that hold one case are not pooled: the same canonical composition in two configs, or
# random compositions of one seed and point (their cases would count twice).
pool_refused() {  # pool_refused NAME JSON1 JSON2 EXPECTED-TAIL (@SEED@: the seed of the first run's case 0)
  printf '%s\n' "$2" >"$TMP/$1-a.json"
  printf '%s\n' "$3" >"$TMP/$1-b.json"
  "$NQC" run "$TMP/$1-a.json" -o "$TMP/$1-a" -q && "$NQC" run "$TMP/$1-b.json" -o "$TMP/$1-b" -q
  local seed
  seed=$("$NQC" rows "$TMP/$1-a" | awk -F, '$1 == 0 { print $7 }')
  for command in aggregate "rows --pool"; do
    run "$NQC" $command "$TMP/$1-a" "$TMP/$1-b"
    expect_exit 1 "$1: $command refused"
    expect_stderr_line "nqc: error: $TMP/$1-b: ${4//@SEED@/$seed}" "$1: $command names the case and both runs"
  done
}
pool_refused canonical '{"name": "a", "canonical_compositions": [{"n": 7, "k": 3}]}' \
  '{"name": "b", "seed": 9, "canonical_compositions": [{"n": [6, 7], "k": 3}]}' \
  "case 128 (canonical, n = 7, k 3, index 0) is case 0 of $TMP/canonical-a: pooled, it would count twice; give runs whose cases differ (other (n, k))"
pool_refused random '{"name": "a", "seed": 3, "random_compositions": [{"n": 16, "free_rows": 10, "samples": 5}]}' \
  '{"name": "b", "seed": 3, "random_compositions": [{"n": [14, 16], "free_rows": 10, "samples": 8}]}' \
  "case 8 (random, n = 16, free_rows 10, seed @SEED@) is case 0 of $TMP/random-a: pooled, it would count twice; give runs whose cases differ (another seed, or other points)"
run "$NQC" aggregate "$TMP/random-a" "$TMP/canonical-b"
expect_exit 0 "runs of disjoint cases pool"

# SIGTERM during a draw of the placed-queens procedure (seconds each at n = 10^7): exit 4
# at once, the lock released, the launch recorded as interrupted.
term_when draw '{"name": "t", "random_compositions": [{"n": 10000000, "free_rows": 5, "samples": 2}]}' "shards already done"
check "SIGTERM while drawing a random composition of n = 10^7: exit 4 (got $RC)" test "$RC" = 4
check "... the shard said interrupted" grep -q "\[warning\] interrupted in shard 0 after 0 of 2 cases" "$TMP/draw.err"
check "... the lock released" test -z "$(ls -A "$TMP/draw-out/locks")"

# docs/configs.md's studies as written, from a copy of the repository's layout: JAIR's curves
# (30,000 cases) beside the published shares, and a(4..12) with a witness each.
repo_copy configs/phase-transition.json configs/threshold.json analysis
doc_block "$REPO/docs/configs.md" origins-example "$W/origins.sh"
check "docs/configs.md: the two studies are there (4 commands)" test "$(grep -c . "$W/origins.sh")" = 4
run bash -c "cd '$W' && bash -e origins.sh"
expect_exit 0 "docs/configs.md's two studies run as written"
expect_stdout_contains "finds no point where the shares differ at the 5% level" \
  "the phase transition: no point differs from [Gent17]'s published share (Fisher's exact, Holm-adjusted)"
expect_stdout_contains "a(n) settled for 9 of 9 board sizes: a(4) = 0, a(5) = 1, a(6) = 0, a(7) = 1, a(8) = 1, a(9) = 1, a(10) = 2, a(11) = 2, a(12) = 2." \
  "the threshold: a(4..12) settled"
expect_stdout_contains "Against OEIS A374013 (9 n with a published term): 9 agrees." "the threshold: as OEIS A374013"

summary
