#!/usr/bin/env bash
# README's quick start, run as written from a copy of the repository's layout (configs/demo.json,
# scripts/env.sh, analysis/ and the built nqc at build/src/cli/nqc): the first study (the demo
# config on 2 ranks, its per-n table, info and the analysis report) and one composition
# generated, derived and completed. The demo's counts do not depend on the machine: 70,000
# cases over 9 board sizes, each one solved.
# Usage: test_quick_start.sh NQC PYTHON REPO
set -u
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
repo_test_args "$@"

repo_copy configs/demo.json scripts/env.sh analysis
doc_block "$REPO/README.md" first-study "$W/first-study.sh"
doc_block "$REPO/README.md" one-composition "$W/one-composition.sh"
check "README: the first study is there (6 commands)" test "$(grep -c . "$W/first-study.sh")" = 6
check "README: the one composition is there (2 commands)" test "$(grep -c . "$W/one-composition.sh")" = 2
# The block names Debian's /usr/bin/python3; the test's PYTHON is the same one on CI.
check "README's first study uses the Python of the tests ($PYTHON)" grep -q "^$PYTHON -m analysis" "$W/first-study.sh"

run bash -c "cd '$W' && bash -e first-study.sh"
expect_exit 0 "README's first study runs as written"
expect_stdout_contains "70000 cases" "its plan and info: 70,000 cases"
table=$(awk -F'|' '$2 ~ /^ *[0-9]+ *$/ { gsub(/ /, ""); print $2 ":" $3 }' "$OUT_FILE" | sort -t: -k1,1n -u | paste -sd' ')
check "its per-n table: 10,000 cases for n = 8 .. 100, 5,000 for n = 200 .. 2000 (got: $table)" \
  test "$table" = "8:10000 10:10000 20:10000 50:10000 100:10000 200:5000 500:5000 1000:5000 2000:5000"
check "the study went to results/demo (beside configs/)" test -s "$W/results/demo/results.h5"
check "the report is results/demo/report/report.md" test -s "$W/results/demo/report/report.md"
check "... with its figures in results/demo/report/figures/" test -n "$(ls "$W/results/demo/report/figures" 2>/dev/null)"
check "the report has Table 1 for the 9 sizes" grep -q "| *2000 *|" "$W/results/demo/report/report.md"

run bash -c "cd '$W' && bash -e one-composition.sh"
expect_exit 0 "README's one composition runs as written"
expect_stdout_line "outcome: solved" "... and the composition is solved"
check "... the derived composition has 8 queens on 20 rows" \
  test "$(grep -v '^#' "$W/c.txt" | tr -s ' \n' '\n' | grep -c .):$(grep -v '^#' "$W/c.txt" | tr -s ' \n' '\n' | grep -c '^[1-9]')" = "20:8"
summary
