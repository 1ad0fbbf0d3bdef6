#!/usr/bin/env bash
# Happy paths of every nqc subcommand, checked against real values: solutions verified,
# compositions keep their queens, infeasibility cross-checked by brute force, aggregate
# tables add up to the plan's case count.
# Usage: test_subcommands.sh NQC
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 NQC" >&2
  exit 2
fi
NQC=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
CI_CONFIG=$HERE/../../configs/ci.json

# values FILE: the composition's values, one per line (comments dropped).
values() { awk '{ sub(/#.*/, ""); for (f = 1; f <= NF; f++) print $f }' "$1"; }
# count_values FILE, count_queens FILE
count_values() { values "$1" | wc -l | tr -d ' '; }
count_queens() { values "$1" | awk '$1 != 0' | wc -l | tr -d ' '; }
# keeps_queens PART FULL: every queen of PART is in FULL, and both have the same n.
# shellcheck disable=SC2317  # called through check
keeps_queens() {
  [ "$(count_values "$1")" = "$(count_values "$2")" ] &&
    paste <(values "$1") <(values "$2") | awk '$1 != 0 && $1 != $2 { bad = 1 } END { exit bad }'
}
# completions FILE: number of completions of a (small) composition, by brute force:
# rows filled top to bottom, a given queen only on its own column, every pair checked.
completions() {
  awk '{ sub(/#.*/, ""); for (f = 1; f <= NF; f++) q[++n] = $f }
    function fits(i, j,   r) {
      for (r = 1; r < i; r++) if (c[r] == j || c[r] - j == r - i || c[r] - j == i - r) return 0
      return 1
    }
    function place(i,   j) {
      if (i > n) { count++; return }
      for (j = 1; j <= n; j++)
        if ((q[i] == 0 || q[i] == j) && fits(i, j)) { c[i] = j; place(i + 1) }
    }
    END { place(1); print count + 0 }' "$1"
}
# shellcheck disable=SC2317  # called through check
differ() { ! cmp -s "$1" "$2"; }
# stdout_value KEY: the value of the "KEY: VALUE" line of the last run's stdout.
stdout_value() { sed -n "s/^$1: //p" "$OUT_FILE" | head -n 1; }

# --- help and version -------------------------------------------------------------------
run "$NQC" --help
expect_exit 0 "nqc --help"
expect_stdout_contains "Subcommands:" "nqc --help lists the subcommands"
for sub in verify construct generate derive complete run aggregate; do
  run "$NQC" "$sub" --help
  expect_exit 0 "nqc $sub --help"
  expect_stdout_contains "Usage:" "nqc $sub --help prints a usage line"
done
run "$NQC" --version
expect_exit 0 "nqc --version"
check "nqc --version prints 'nqc VERSION'" grep -qE '^nqc [0-9]' "$OUT_FILE"
run "$NQC" run --help-config
expect_exit 0 "nqc run --help-config"
expect_stdout_contains "instances" "run --help-config describes instances"

# --- brute-force reference: sanity of the awk counter itself ----------------------------
printf '0 0 0 0\n' >"$TMP/empty4.txt"
printf '0 0 0 0 0 0 0 0\n' >"$TMP/empty8.txt"
printf '2 0 0 0\n' >"$TMP/q2-n4.txt"
check "brute force: the 4x4 board has 2 solutions" test "$(completions "$TMP/empty4.txt")" = 2
check "brute force: the 8x8 board has 92 solutions" test "$(completions "$TMP/empty8.txt")" = 92
check "brute force: n = 4 with Q(1) = 2 has exactly 1 completion" test "$(completions "$TMP/q2-n4.txt")" = 1

# --- construct --------------------------------------------------------------------------
run "$NQC" construct 8
expect_exit 0 "construct 8"
cp "$OUT_FILE" "$TMP/c8.txt"
check "construct 8: 8 values, 8 queens" test "$(count_values "$TMP/c8.txt")/$(count_queens "$TMP/c8.txt")" = 8/8
check "construct 8: a solution by brute force (its only completion is itself)" test "$(completions "$TMP/c8.txt")" = 1
run "$NQC" verify "$TMP/c8.txt"
expect_exit 0 "verify the output of construct 8"
expect_stdout_line "$TMP/c8.txt: valid solution, n = 8" "verify: 'valid solution, n = 8'"
for n in 2 3; do
  run "$NQC" construct "$n"
  expect_exit 2 "construct $n"
  expect_stderr_line "nqc: no solution exists for n = $n" "construct $n: no-solution message"
  check "construct $n: nothing on stdout" test ! -s "$OUT_FILE"
done
run "$NQC" construct 1
expect_exit 0 "construct 1"
check "construct 1: the single queen" test "$(values "$OUT_FILE")" = 1
big=$TMP/construct-1000000.txt
run "$NQC" construct 1000000 -o "$big"
expect_exit 0 "construct 1000000 -o FILE"
check "construct -o: nothing on stdout" test ! -s "$OUT_FILE"
check "construct 1000000: 1000000 values" test "$(count_values "$big")" = 1000000
run "$NQC" verify "$big"
expect_exit 0 "verify the 1000000-queens solution"
expect_stdout_line "$big: valid solution, n = 1000000" "verify: 'valid solution, n = 1000000'"

# --- generate ---------------------------------------------------------------------------
run "$NQC" generate 100 --seed 5
expect_exit 0 "generate 100 --seed 5"
cp "$OUT_FILE" "$TMP/g5.txt"
run "$NQC" generate 100 --seed 5
expect_exit 0 "generate 100 --seed 5, again"
check "generate: the same seed gives identical output" cmp -s "$OUT_FILE" "$TMP/g5.txt"
run "$NQC" generate 100 --seed 6
expect_exit 0 "generate 100 --seed 6"
cp "$OUT_FILE" "$TMP/g6.txt"
check "generate: another seed gives another solution" test "$(values "$TMP/g5.txt")" != "$(values "$TMP/g6.txt")"
run "$NQC" generate 100 --seed 5 --solution-id 1
expect_exit 0 "generate 100 --seed 5 --solution-id 1"
check "generate: another solution id gives another solution" differ "$OUT_FILE" "$TMP/g5.txt"
for f in g5 g6; do
  run "$NQC" verify "$TMP/$f.txt"
  expect_exit 0 "verify generate's $f"
  expect_stdout_line "$TMP/$f.txt: valid solution, n = 100" "verify $f: 'valid solution, n = 100'"
done
run "$NQC" generate 3
expect_exit 2 "generate 3"
expect_stderr_line "nqc: no solution exists for n = 3" "generate 3: no-solution message"

# --- derive -----------------------------------------------------------------------------
d40=$TMP/d40.txt
run "$NQC" derive "$TMP/g5.txt" -k 40 --seed 3 -o "$d40"
expect_exit 0 "derive -k 40"
check "derive: n = 100 values" test "$(count_values "$d40")" = 100
check "derive: exactly 40 queens" test "$(count_queens "$d40")" = 40
check "derive: every queen agrees with the solution" keeps_queens "$d40" "$TMP/g5.txt"
run "$NQC" verify "$d40"
expect_exit 0 "verify the derived composition"
expect_stdout_line "$d40: consistent composition, n = 100, k = 40" "verify: 'consistent composition, n = 100, k = 40'"
run "$NQC" derive "$TMP/g5.txt" -k 40 --seed 3
check "derive: the same seed gives the same composition" test "$(values "$OUT_FILE")" = "$(values "$d40")"

# --- complete: solved -------------------------------------------------------------------
for engine in auto exact; do
  sol=$TMP/solved-$engine.txt
  run "$NQC" complete --engine "$engine" "$d40" -o "$sol"
  expect_exit 0 "complete --engine $engine (n = 100, k = 40)"
  expect_stdout_line "outcome: solved" "complete --engine $engine: 'outcome: solved'"
  expect_stdout_line "engine: $engine" "complete --engine $engine: names the engine"
  expect_stdout_line "n: 100" "complete --engine $engine: 'n: 100'"
  expect_stdout_line "k: 40" "complete --engine $engine: 'k: 40'"
  run "$NQC" verify "$sol"
  expect_exit 0 "complete --engine $engine -o: verify accepts the output"
  expect_stdout_line "$sol: valid solution, n = 100" "complete --engine $engine -o: a full solution"
  check "complete --engine $engine -o: keeps every given queen" keeps_queens "$d40" "$sol"
done
run "$NQC" complete - <"$TMP/q2-n4.txt"
expect_exit 0 "complete - (stdin), n = 4 with Q(1) = 2"
expect_stdout_line "outcome: solved" "complete - (stdin): 'outcome: solved'"
expect_stdout_line "solution: 2 4 1 3" "complete without -o prints a small solution (n = 4: the only one with Q(1) = 2)"
# -o - : the solution alone on stdout (a composition file that verify reads), the summary on stderr.
run "$NQC" complete "$TMP/q2-n4.txt" -o -
expect_exit 0 "complete -o -"
check "complete -o -: no file named '-'" test ! -e ./-
check "complete -o -: the summary on stderr" grep -qx "outcome: solved" "$ERR_FILE"
check "complete -o -: stdout is the solution only" test "$(grep -v '^#' "$OUT_FILE" | tr '\n' ' ')" = "2 4 1 3 "
cp "$OUT_FILE" "$TMP/stdout-solution.txt"
run "$NQC" verify "$TMP/stdout-solution.txt"
expect_stdout_line "$TMP/stdout-solution.txt: valid solution, n = 4" "complete -o -: stdout verifies as a full solution"
"$NQC" construct 101 -o "$TMP/c101.txt"
run "$NQC" complete "$TMP/c101.txt"
expect_stdout_line "solution: not printed (n > 100): -o FILE writes it, -o - to stdout" "complete without -o: a solution of n > 100 is not printed"

# --- complete: infeasible ---------------------------------------------------------------
# n = 4 solutions are 2 4 1 3 and 3 1 4 2: none has a queen in row 1, column 1.
inf=$TMP/infeasible-n4.txt
printf '# n = 4, queen in the corner: no completion\n1\n0\n0\n0\n' >"$inf"
check "brute force: n = 4 with Q(1) = 1 has no completion" test "$(completions "$inf")" = 0
for engine in auto exact; do
  run "$NQC" complete --engine "$engine" "$inf" -o "$TMP/inf-$engine-out.txt"
  expect_exit 2 "complete --engine $engine: n = 4 with Q(1) = 1"
  expect_stdout_line "outcome: infeasible" "complete --engine $engine: 'outcome: infeasible'"
  check "complete --engine $engine: no -o file when infeasible" test ! -e "$TMP/inf-$engine-out.txt"
done
printf '0 0\n' >"$TMP/empty2.txt"
check "brute force: the 2x2 board has no solution" test "$(completions "$TMP/empty2.txt")" = 0
run "$NQC" complete "$TMP/empty2.txt"
expect_exit 2 "complete the empty n = 2 board"
expect_stdout_line "outcome: infeasible" "complete the empty n = 2 board: 'outcome: infeasible'"

# --- complete: gave up ------------------------------------------------------------------
run "$NQC" complete "$d40"
nodes=$(stdout_value nodes)
check "complete (no limit) of the k = 40 composition needs more than 1 node (nodes: $nodes)" \
  test "${nodes:-0}" -gt 1
run "$NQC" complete --max-nodes 1 "$d40" -o "$TMP/gave-up-out.txt"
expect_exit 3 "complete --max-nodes 1"
expect_stdout_line "outcome: gave_up" "complete --max-nodes 1: 'outcome: gave_up'"
expect_stdout_line "limit: max_nodes" "complete --max-nodes 1: 'limit: max_nodes'"
check "complete --max-nodes 1: no -o file when giving up" test ! -e "$TMP/gave-up-out.txt"

# --- complete --param: an engine's parameters, checked as a config's engine_params ----------
run "$NQC" complete -e minconflicts -p noise=0.2 -p init=random --param max_restarts=3 "$d40"
expect_exit 0 "complete -e minconflicts -p noise=0.2 -p init=random --param max_restarts=3"
expect_stdout_line "outcome: solved" "complete with parameters: 'outcome: solved'"
run "$NQC" complete -e minconflicts -p noise=5 "$d40"
expect_exit 1 "complete -p noise=5 (a probability)"
expect_stderr_line "nqc: error: --param: /noise: expected a number 0..1, got 5" "complete -p noise=5: the range"
run "$NQC" complete -e minconflicts -p init=fast "$d40"
expect_stderr_line "nqc: error: --param: /init: expected one of greedy, random, got \"fast\"" "complete -p init=fast: the choices"
run "$NQC" complete -e grigoryan -p restart=1 "$d40"
check "complete -p restart=1: an unknown parameter, the valid ones named" \
  grep -qx "nqc: error: --param: /restart: unknown parameter (valid: backtracks_per_attempt, restarts, .*, block3_stops_at_level2)" "$ERR_FILE"
run "$NQC" complete -e sat -p noise=0.1 "$d40"
expect_stderr_line "nqc: error: --param: /: engine 'sat' takes no parameters (auto, bitboard, exact, grigoryan and minconflicts do)" \
  "complete -e sat -p: sat takes none"
# partner_samples = 0 made a repair step move nothing and count nothing: a try never ended.
run "$NQC" complete -e minconflicts -p partner_samples=0 --time-limit 2 "$d40"
expect_exit 1 "complete -p partner_samples=0: refused"
expect_stderr_line "nqc: error: --param: /partner_samples: expected an integer 1..4294967295, got 0" "complete -p partner_samples=0: the range"
# auto's and exact's tuning constants are parameters too (the default engine without -e).
run "$NQC" complete -p refills=2 -p minconflicts_tries=1 "$d40"
expect_exit 0 "complete -p refills=2 -p minconflicts_tries=1 (auto)"
run "$NQC" complete -e exact -p luby_nodes_base=1 -p luby_nodes_per_free_row=0 "$d40"
expect_exit 0 "complete -e exact -p luby_nodes_base=1"
run "$NQC" complete -e minconflicts -p noise "$d40"
expect_stderr_line "nqc: error: --param: expected NAME=VALUE, got 'noise'" "complete -p without '='"
run "$NQC" complete -e minconflicts -p noise=0.1 -p noise=0.2 "$d40"
expect_stderr_line "nqc: error: --param: noise given twice" "complete -p twice"
# The same parameter through a config and through --param: the same result.
run "$NQC" complete -e grigoryan -p restarts=0 -p backtracks_per_attempt=0 --seed 5 "$d40"
grig_cli=$(grep -E '^(outcome|backtracks|nodes):' "$OUT_FILE" | tr '\n' ' ')
run "$NQC" complete -e grigoryan --seed 5 "$d40"
check "complete -p changes what grigoryan does ($grig_cli)" test "$grig_cli" != "$(grep -E '^(outcome|backtracks|nodes):' "$OUT_FILE" | tr '\n' ' ')"

# --- aggregate --------------------------------------------------------------------------
cp "$CI_CONFIG" "$TMP/ci.json"
res=$TMP/ci-results
run "$NQC" run --dry-run "$TMP/ci.json" -o "$res"
expect_exit 0 "run --dry-run ci.json"
planned=$(plan_field cases "$TMP/ci.json" -o "$res")
check "run --dry-run prints the case count ($planned)" test -n "$planned"
check "run --dry-run writes nothing" test ! -e "$res"
run "$NQC" run "$TMP/ci.json" -o "$res" -q
expect_exit 0 "run ci.json"
csv=$TMP/table.csv
run "$NQC" aggregate "$res" --csv "$csv"
expect_exit 0 "aggregate the ci results"
cp "$OUT_FILE" "$TMP/table.txt"
table_rows=$(awk -F'|' 'NR > 2 && NF > 3' "$TMP/table.txt" | wc -l | tr -d ' ')
table_sum=$(awk -F'|' 'NR > 2 && NF > 3 { s += $3 } END { print s + 0 }' "$TMP/table.txt")
check "aggregate: header names the cases column" grep -qE '^\| +n \| +cases \|' "$TMP/table.txt"
check "aggregate: one table row per n of ci.json (8, got $table_rows)" test "$table_rows" = 8
check "aggregate: cases column sums to the plan's $planned (got $table_sum)" test "$table_sum" = "${planned:-x}"
check "aggregate --csv: header line" test "$(head -n 1 "$csv" 2>/dev/null)" = \
  "n,cases,mean_s,median_s,t90mean_s,max_s,bt0,bt1,bt2,bt3,bt_more,false_negatives,gave_up,infeasible,mean_backtracks,mean_k"
csv_sum=$(awk -F, 'NR > 1 { s += $2; rows++ } END { print s + 0 "/" rows + 0 }' "$csv" 2>/dev/null)
check "aggregate --csv: cases sum to $planned over 8 rows (got $csv_sum)" test "$csv_sum" = "${planned:-x}/8"
# No output lands on an input: rows --sources and aggregate --rows --csv refuse their own input,
# and rows checks --sources before it writes a row.
cp "$res/results.h5" "$TMP/lone.h5"
lone_sum=$(sha256sum <"$TMP/lone.h5")
run "$NQC" rows "$TMP/lone.h5" --sources "$TMP/lone.h5"
expect_exit 1 "rows --sources onto its own input"
expect_stderr_line "nqc: error: --sources: $TMP/lone.h5 is an input of this listing; choose another file" "... refused in one line"
check "... nothing written: the file and stdout as before" test "$(sha256sum <"$TMP/lone.h5")" = "$lone_sum" -a ! -s "$OUT_FILE"
run "$NQC" rows "$TMP/lone.h5" --sources -
expect_stderr_line "nqc: error: --sources: - is standard output, which the rows take; give a file" "rows --sources -: refused"
"$NQC" rows "$TMP/lone.h5" >"$TMP/rows.csv"
rows_sum=$(sha256sum <"$TMP/rows.csv")
run "$NQC" aggregate --rows "$TMP/rows.csv" --csv "$TMP/rows.csv"
expect_stderr_line "nqc: error: --csv: $TMP/rows.csv is an input of this aggregate; choose another file" "aggregate --rows X --csv X: refused"
check "... the rows as they were" test "$(sha256sum <"$TMP/rows.csv")" = "$rows_sum"
run "$NQC" aggregate --rows "$TMP"
expect_stderr_line "nqc: error: $TMP: not a regular file; expected the CSV of nqc rows" "aggregate --rows DIR: refused"
run "$NQC" aggregate "$res/results.h5"
check "aggregate of results.h5 alone prints the same table" cmp -s "$OUT_FILE" "$TMP/table.txt"
# info of a generated run: cases per n with false negatives (a derived composition has a completion).
run "$NQC" info "$res"
expect_exit 0 "info of the ci results"
expect_stdout_line "$(printf '%12s %12s %12s %12s %12s %12s' n cases solved infeasible gave_up false_neg)" "info: the generated cases' header"
expect_stdout_line "$(printf '%12s %12s %12s %12s %12s %12s' total "$planned" "$planned" 0 0 0)" "info: all $planned cases solved, no false negatives"
check "info: one row per n of ci.json (8)" test "$(awk '$1 == "n" { on = 1; next } $1 == "total" { on = 0 } on' "$OUT_FILE" | wc -l)" -eq 8
run "$NQC" aggregate "$res" --csv /nonexistent-dir/table.csv
expect_exit 1 "aggregate --csv into a missing directory"
expect_stderr_line "nqc: error: /nonexistent-dir/table.csv: cannot write: No such file or directory" \
  "aggregate --csv: error names the file and the cause"
check "aggregate --csv failure: no table on stdout" test ! -s "$OUT_FILE"
run "$NQC" aggregate "$TMP/no-such-results"
expect_exit 1 "aggregate of a missing path"
expect_stderr_line "nqc: error: $TMP/no-such-results: no such file or directory" "aggregate of a missing path: message"

# --- paths in a config: taken from the config file's directory; -o from the current one -----
mkdir -p "$TMP/paths/cfg/inst" "$TMP/paths/elsewhere"
printf '8\n1 3 0 0 0 0 0 0\n' >"$TMP/paths/cfg/inst/a.txt"
printf '{"name": "p", "engine": "exact", "output": "out/p", "instances": {"files": ["inst/a.txt"]}}\n' >"$TMP/paths/cfg/p.json"
run bash -c 'cd "$1/elsewhere" && "$2" run ../cfg/p.json -q' _ "$TMP/paths" "$(readlink -f "$NQC")"
expect_exit 0 "run ../cfg/p.json from another directory"
check "output and instance files from the config's directory: cfg/out/p/results.h5" test -s "$TMP/paths/cfg/out/p/results.h5"
check "nothing written in the working directory" test -z "$(ls -A "$TMP/paths/elsewhere")"
run bash -c 'cd / && "$2" run "$1/cfg/p.json" --resume' _ "$TMP/paths" "$(readlink -f "$NQC")"
expect_exit 0 "the same config from / with --resume"
check "... finds its run (same directory, same resolved config: finished)" \
  grep -qF "$TMP/paths/cfg/out/p: the run of this config is finished" "$ERR_FILE"
run bash -c 'cd "$1/elsewhere" && "$2" run ../cfg/p.json -o o2 -q' _ "$TMP/paths" "$(readlink -f "$NQC")"
expect_exit 0 "run -o o2 from another directory"
check "-o DIR from the working directory: elsewhere/o2/results.h5" test -s "$TMP/paths/elsewhere/o2/results.h5"
run bash -c 'cd "$1/cfg" && "$2" run p.json -o ../elsewhere/o2 --resume' _ "$TMP/paths" "$(readlink -f "$NQC")"
expect_exit 0 "--resume of that directory from the config's directory"
check "... finds it (finished)" grep -qF "$TMP/paths/elsewhere/o2: the run of this config is finished" "$ERR_FILE"

# --- count, randset, CSPLib .param files ---------------------------------------------------
run "$NQC" count 14
expect_exit 0 "count 14"
expect_stdout_line "completions: 365596" "count 14 = Q(14) (OEIS A000170)"
# Q(n) for n = 1..14 against [OEIS-A000170] (tests/data/oeis-A000170.txt).
oeis_ok=0
for n in $(seq 1 14); do
  want=$(awk -v n="$n" '$1 == n { print $2 }' "$HERE/../data/oeis-A000170.txt")
  got=$("$NQC" count "$n" | sed -n 's/^completions: //p')
  [ -n "$want" ] && [ "$got" = "$want" ] && oeis_ok=$((oeis_ok + 1))
done
check "count n = 1..14 matches OEIS A000170 ($oeis_ok of 14)" test "$oeis_ok" = 14
run "$NQC" count 12 --max-nodes 1000
expect_exit 3 "count with --max-nodes: exit 3"
expect_stdout_line "limit: max_nodes" "count with --max-nodes names the limit"
# A board whose residual can never be held (10^7 rows of 10^7 cells: it ran on for minutes and
# 7 GB before) is refused at once, before its rows are allocated (test_setup_limits.sh: more).
run "$NQC" count 10000000 --time-limit 0.5
expect_exit 1 "count 10^7 --time-limit 0.5: refused (exit 1)"
expect_stderr_line "nqc: error: cannot count the empty 10000000 x 10000000 board: the residual board of 10000000 free rows x 10000000 free columns has at least 100000000000000 free cells, more than the 2147483647 a residual board holds (32-bit cell ids)" \
  "... naming its free cells and the bound"
# One it can hold (3000 rows of 3000 cells) stops at its time limit, in its set-up or its search.
run "$NQC" count 3000 --time-limit 0.5
expect_exit 3 "count 3000 --time-limit 0.5: stops at the limit (exit 3)"
expect_stdout_line "limit: time_limit" "... names the limit"
printf '1 0 0 0\n' >"$TMP/q4-corner.txt"
run "$NQC" count "$TMP/q4-corner.txt"
expect_stdout_line "completions: 0" "count: n = 4 with a corner queen has no completion"
run "$NQC" randset 10 --trials 100000 --seed 3 --csv "$TMP/randset.csv" --trials-csv "$TMP/randset-trials.csv"
expect_exit 0 "randset 10"
share=$(sed -n 's/^first_pass_share: //p' "$OUT_FILE")
check "randset 10: first-pass share $share within 0.003 of the paper's 0.605701" \
  awk -v s="$share" 'BEGIN { d = s - 0.605701; exit !(d < 0.003 && d > -0.003) }'
check "randset --csv: 100000 trials in the histogram" \
  test "$(awk -F, 'NR > 1 { s += $2 } END { print s }' "$TMP/randset.csv")" = 100000
# Per trial: the first-pass mean is the printed share, and the dead-end lengths are the histogram.
check "randset --trials-csv: 100000 rows whose first_pass mean / 10 is the printed share $share" \
  test "$(awk -F, 'NR > 1 { s += $2; c++ } END { printf "%d %.6f", c, s / c / 10 }' "$TMP/randset-trials.csv")" = "100000 $share"
check "randset --trials-csv: dead_end_k counts equal the --csv histogram" \
  test "$(awk -F, 'NR > 1 { h[$3]++ } END { for (k in h) print k "," h[k] }' "$TMP/randset-trials.csv" | sort -n)" = \
       "$(awk -F, 'NR > 1 { print $1 "," $2 }' "$TMP/randset.csv" | sort -n)"
check "randset --trials-csv: header" test "$(head -n 1 "$TMP/randset-trials.csv")" = "trial,first_pass,dead_end_k"
ln -s "$TMP/randset-both.csv" "$TMP/randset-link.csv"
for second in "$TMP/./randset-both.csv" "$TMP/randset-link.csv"; do
  run "$NQC" randset 10 --trials 5 --csv "$TMP/randset-both.csv" --trials-csv "$second"
  expect_exit 1 "randset: --csv and --trials-csv one file ($second)"
  expect_stderr_line "nqc: error: --csv and --trials-csv: $TMP/randset-both.csv and $second are one file; give two files" \
    "randset: one file for both outputs refused ($second)"
done
run "$NQC" randset 10 --trials 5 --csv ""
expect_stderr_line "nqc: error: --csv: expected a file path, got ''" "randset --csv '': refused"
# diag-10-4-985 of CSPLib prob079: its first 5 diagonals leave 7 solutions (the authors' label: satisfiable).
tar xzf "$HERE/../data/csplib-prob079/diag-10.tar.gz" -C "$TMP" diag-10/diag-10-4-985.param
param=$TMP/diag-10/diag-10-4-985.param
run "$NQC" count "$param" --diags 5
expect_stdout_line "completions: 7" "count of a .param file with --diags 5"
run "$NQC" complete "$param" --diags 5 -o "$TMP/param-solution.txt"
expect_exit 0 "complete a .param file with --diags 5"
# d = 6 has no solution (the label: "Solutions: 0"): each complete engine proves it (exit 2),
# each limit stops each of them (exit 3, the limit named).
for engine in auto bitboard exact sat; do
  run "$NQC" complete "$param" --diags 6 -e "$engine"
  expect_exit 2 "complete -e $engine proves d = 6 infeasible"
  expect_stdout_line "outcome: infeasible" "complete -e $engine: outcome infeasible"
  expect_stdout_line "engine: $engine" "complete -e $engine: engine named"
  run "$NQC" complete "$param" --diags 6 -e "$engine" --max-nodes 1
  expect_exit 3 "complete -e $engine --max-nodes 1 gives up"
  expect_stdout_line "limit: max_nodes" "complete -e $engine --max-nodes 1: the limit named"
done
run "$NQC" complete "$param" --diags 99
expect_exit 1 "complete --diags above numdiags"
expect_stderr_line "nqc: error: $param: --diags 99 is above numdiags = 16" "--diags above numdiags: message"
printf 'n = 10\nnumdiags = 2\ndiags = [[1, 0], [2, 1]\n' >"$TMP/malformed.param"
run "$NQC" complete "$TMP/malformed.param"
expect_exit 1 "a .param file with a malformed list"
expect_stderr_line "nqc: error: $TMP/malformed.param:3: malformed diags list (expected [[index, 0 or 1], ...])" "malformed .param: message"
printf 'n = 10\nnumdiags = 2\ndiags = [[1, 0], [19, 1]]\n' >"$TMP/range.param"
run "$NQC" count "$TMP/range.param"
expect_exit 1 "a .param file with a diagonal index out of range"
expect_stderr_line "nqc: error: $TMP/range.param:3: diags[1]: diagonal index 19 is out of range 0..18" "out-of-range diagonal: message"
printf '1 0 3 0 0\n' >"$TMP/inconsistent.txt"
run "$NQC" complete "$TMP/inconsistent.txt" --engine grigoryan
expect_exit 1 "an inconsistent composition, before any search"
expect_stderr_line "nqc: error: $TMP/inconsistent.txt:1: rows 1 and 3: two queens on one diagonal (columns 1 and 3)" "inconsistent: the verifier's message"
run "$NQC" complete "$TMP/q4-corner.txt" --diags 2
expect_exit 1 "--diags on a composition file"

# --- rerun and export -----------------------------------------------------------------------
run "$NQC" rerun "$res" --case 150
expect_exit 0 "rerun of case 150 gives the stored outcome and backtracks"
expect_stdout_contains "case 150: n = 50, k = 37, solution 0, composition 0," "rerun names the case"
sed 's/"engine": "auto"/"engine": "exact", "max_nodes": 3/' "$TMP/ci.json" >"$TMP/ci-limited.json"
limited=$TMP/results-limited
run "$NQC" run "$TMP/ci-limited.json" -o "$limited" -q
expect_exit 0 "a run whose node limit makes cases give up"
gave_up=$(/usr/bin/python3 -c "import h5py, pandas as pd; df = pd.DataFrame(h5py.File('$limited/results.h5')['cases'][()]); g = df[df.outcome == 2]; print(int(g.case_id.iloc[0]) if len(g) else -1, int(g.n.iloc[0]) if len(g) else -1)" 2>/dev/null)
case_id=${gave_up% *}
check "the limited run has gave_up cases ($gave_up)" test "${case_id:--1}" -ge 0
run "$NQC" export "$limited" --case "$case_id" -o "$TMP/exported.txt"
expect_exit 0 "export of a gave_up case"
run "$NQC" verify "$TMP/exported.txt"
expect_stdout_contains "consistent composition, n = ${gave_up#* }" "the exported composition verifies, with the case's n"
run "$NQC" rerun "$limited" --case "$case_id"
expect_exit 0 "rerun of the gave_up case: same outcome and backtracks"
expect_stdout_contains "rerun:  engine exact, outcome gave_up" "rerun of the gave_up case gives up again"
run "$NQC" rerun "$limited" --case "$case_id" -e auto
expect_stdout_contains "rerun:  engine auto, outcome " "rerun with another engine runs that engine (under the run's node limit)"
# Any case exports: a solved one is rebuilt from the stored config and seed, the composition
# that rerun --verbose prints.
run "$NQC" export "$res" --case 150
expect_exit 0 "export of a solved case (rebuilt from config and seed)"
cp "$OUT_FILE" "$TMP/exported-150.txt"
run "$NQC" verify "$TMP/exported-150.txt"
expect_stdout_contains "consistent composition, n = 50, k = 37" "the exported solved case verifies with its n and k"
run "$NQC" rerun "$res" --case 150 --verbose
check "export equals the composition rerun --verbose runs" \
  test "$(grep -v '^#' "$TMP/exported-150.txt" | tr -s ' \n' ' ')" = "$(tail -n +4 "$OUT_FILE" | grep -v '^#' | tr -s ' \n' ' ')"
# Its first line says how to run it again: complete with the run's engine and the row's seed
# gives the stored nodes.
again=$(sed -n 's/^# case 150 of .* (solved in the run): nqc complete FILE \(-e [a-z]* --seed [0-9]*\) runs it again.*/\1/p' "$TMP/exported-150.txt")
check "export's first line names the engine and seed ($again)" test -n "$again"
stored_nodes=$(grep -oE '^stored: .* nodes [0-9]+' "$OUT_FILE" | grep -oE '[0-9]+$')
# shellcheck disable=SC2086 # -e ENGINE --seed SEED: words
run "$NQC" complete "$TMP/exported-150.txt" $again
expect_stdout_line "nodes: $stored_nodes" "... and complete with them gives the stored nodes ($stored_nodes)"
run "$NQC" export "$res" --case 150 -o -
expect_exit 0 "export -o - writes to stdout"
check "export -o -: no file named '-'" test ! -e ./-
run "$NQC" export "$res" --case 99999
expect_exit 1 "export of a case the file does not hold"
expect_stderr_line "nqc: error: $res: no case 99999 among its 230 rows (case ids 0..229)" "export of a missing case: message"
run "$NQC" rows "$TMP/no-such-run"
expect_exit 1 "rows of a path that does not exist"
check "rows: nothing on stdout before its checks pass (not even the header)" test ! -s "$OUT_FILE"

# --- no command but run writes a run's own files (results, plan, config, shards, launches) ---
onto=$TMP/onto-run
cp -r "$res" "$onto"
abs_onto=$(cd "$onto" && pwd -P)
printf '2\n4\n6\n8\n3\n1\n7\n5\n' >"$TMP/good8.txt"
first_shard=$(cd "$onto/shards" && ls shard-*.h5 | head -1)
first_launch=$(cd "$onto/launches" && ls | head -1)
for target in "results.h5:its results" "shards/$first_shard:a shard file" "plan.json:its plan" \
  "config.json:its config" "launches/$first_launch:a launch record"; do
  file=${target%%:*}
  what=${target#*:}
  for cmd in "export $onto --case 3 -o" "convert $TMP/good8.txt" "aggregate $onto --csv"; do
    [[ $cmd == aggregate* && ( $file == results.h5 || $file == shards/* ) ]] && continue  # an input: refused as such
    run "$NQC" $cmd "$onto/$file"
    expect_exit 1 "${cmd%% *} onto the run's $file"
    expect_stderr_line "nqc: error: $onto/$file: a file of the run in $abs_onto ($what; only nqc run writes it); choose another file" \
      "${cmd%% *} onto the run's $file: the error names the file and why"
  done
done
check "the run's files are as they were" diff -r "$res" "$onto"
run "$NQC" aggregate "$onto" --csv "$onto/table.csv"
expect_exit 0 "aggregate --csv into the run's directory, under a name of its own"
run "$NQC" info "$onto"
expect_exit 0 "the run reads as before"

summary
