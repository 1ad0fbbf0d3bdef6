#!/usr/bin/env bash
# `nqc run` on an instance set: CSPLib prob079 .param files (a directory) and a composition
# file, checked against the published labels, on 1 and 2 ranks.
# Usage: test_instances.sh NQC PYTHON
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NQC PYTHON" >&2
  exit 2
fi
NQC=$(realpath "$1")
PYTHON=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
DATA=$HERE/../data/csplib-prob079

tar xzf "$DATA/diag-10.tar.gz" -C "$TMP"
printf '1 0 0 0\n' >"$TMP/corner4.txt"   # no completion
cat >"$TMP/instances.json" <<'JSON'
{"name": "instances", "seed": 3, "engine": "auto", "shard_cases": 300, "shard_seconds": 300,
 "instances": {"files": ["diag-10", "corner4.txt"], "diags": [5, 10]}}
JSON
run "$NQC" run "$TMP/instances.json" --dry-run
expect_exit 0 "dry run of an instance config"
expect_stdout_contains "7 shards, 2001 cases" "1000 .param files x 2 diags + 1 composition file (once) = 2001 cases"
# Per n: the last shard holds n = 10 cases and the n = 4 file, so it counts for both sizes.
check "dry run: per-n table counts a shard for each size it holds" \
  test "$(awk '$1 == 4 || $1 == 10 { print $1, $2, $3 }' "$OUT_FILE" | tr '\n' ';')" = "4 1 1;10 7 2000;"
run "$NQC" run "$TMP/instances.json" -o "$TMP/one" -q
expect_exit 0 "instance run on 1 rank"
run mpirun -np 2 --oversubscribe "$NQC" run "$TMP/instances.json" -o "$TMP/two" -q
expect_exit 0 "instance run on 2 ranks"

# Labels: "10 D mininfile SEED path:Solutions: S ..." -> expected infeasible count per D.
expected=$(zcat "$DATA/labels-shiftqueens-n8-13.txt.gz" |
  awk '$1 == 10 && ($2 == 5 || $2 == 10) && /Timeout: 0/ { split($0, a, "Solutions: "); if (a[2] + 0 == 0) u[$2]++ }
       END { printf "%d %d", u[5] + 0, u[10] + 0 }')
got=$("$PYTHON" - "$TMP/one/results.h5" "$TMP/two/results.h5" <<'PY'
import os, sys, h5py, pandas as pd
a = pd.DataFrame(h5py.File(sys.argv[1])['cases'][()]).sort_values('case_id').reset_index(drop=True)
b = pd.DataFrame(h5py.File(sys.argv[2])['cases'][()]).sort_values('case_id').reset_index(drop=True)
cols = [c for c in a.columns if c not in os.environ['NQC_RUN_DEPENDENT'].split(',')]
same = a[cols].equals(b[cols])
p = a[a.n == 10]
u5 = int(((p.composition_id == 5) & (p.outcome == 1)).sum())
u10 = int(((p.composition_id == 10) & (p.outcome == 1)).sum())
corner = a[a.n == 4]
inst = a.instance.str.decode('utf-8')
# Every row names its file: the .param rows their file in diag-10/, once per diags entry.
named = (inst[a.n == 10].str.match(r'.*/diag-10/diag-10-\d+-\d+\.param$').all()
         and inst[a.n == 10].value_counts().eq(2).all() and inst[a.n == 10].nunique() == 1000)
print(len(a), same, u5, u10, int(p.outcome.isin([0, 1]).all()), int(a.false_negative.sum()), list(corner.outcome),
      named, list(inst[a.n == 4]))
PY
)
check "2001 rows, 1 and 2 ranks agree, infeasible per d match the labels ($expected), all decided, no false negatives, corner4 infeasible, rows carry their instance path (got: $got)" \
  test "$got" = "2001 True ${expected% *} ${expected#* } 1 0 [1] True ['$TMP/corner4.txt']"

# Bad instance sets.
cat >"$TMP/bad-diags.json" <<'JSON'
{"name": "bad", "instances": {"files": ["diag-10/diag-10-4-1.param"], "diags": [99]}}
JSON
run "$NQC" run "$TMP/bad-diags.json" -o "$TMP/bad"
expect_exit 1 "instances: diags above numdiags"
check "instances: diags above numdiags names the file" grep -qF "$TMP/diag-10/diag-10-4-1.param: diags 99 (from the config's instances/diags) is above numdiags = " "$ERR_FILE"
cat >"$TMP/bad-both.json" <<'JSON'
{"name": "bad", "instances": {"files": ["corner4.txt"]}, "sizes": [{"n": 8, "solutions": 1, "compositions_per_solution": 1}]}
JSON
run "$NQC" run "$TMP/bad-both.json" -o "$TMP/bad"
expect_exit 1 "instances and sizes together"
expect_log_error "$TMP/bad-both.json: /: expected exactly one of \"sizes\", \"instances\", \"random_compositions\", \"excluded_diagonals\" and \"canonical_compositions\"" "instances and sizes: message"
cat >"$TMP/bad-missing.json" <<'JSON'
{"name": "bad", "instances": {"files": ["nosuch.param"]}}
JSON
run "$NQC" run "$TMP/bad-missing.json" -o "$TMP/bad"
expect_exit 1 "instances: missing file"
expect_log_error "$TMP/bad-missing.json: /instances/files/0: $TMP/nosuch.param: no such file or directory" "instances: missing file named, with its JSON path"
long=$TMP/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..60}).txt   # > 255 bytes
mkdir -p "$(dirname "$long")" && cp "$TMP/corner4.txt" "$long"
printf '{"name": "long", "instances": {"files": ["%s"]}}\n' "$long" >"$TMP/bad-long.json"
run "$NQC" run "$TMP/bad-long.json" -o "$TMP/bad"
expect_exit 1 "instances: a path longer than a row holds"
expect_log_error "$long: the path is ${#long} bytes long, more than the 255 a result row holds; use a shorter path" "instances: long path refused, named"
cat >"$TMP/bad-grig.json" <<'JSON'
{"name": "bad", "engine": "grigoryan", "instances": {"files": ["corner4.txt"]}}
JSON
run "$NQC" run "$TMP/bad-grig.json" -o "$TMP/bad"
expect_exit 1 "instances with grigoryan"
mkfifo "$TMP/fifo.txt"
printf '{"name": "bad", "instances": {"files": ["fifo.txt"]}}\n' >"$TMP/bad-fifo.json"
run timeout 20 "$NQC" run "$TMP/bad-fifo.json" --dry-run
expect_log_error "$TMP/bad-fifo.json: /instances/files/0: $TMP/fifo.txt: not a regular file or a directory" "instances: a FIFO refused at once"
mkdir -p "$TMP/empty-dir/sub" && cp "$TMP/corner4.txt" "$TMP/empty-dir/sub/"
printf '{"name": "bad", "instances": {"files": ["diag-10", "empty-dir"]}}\n' >"$TMP/bad-empty.json"
run "$NQC" run "$TMP/bad-empty.json" --dry-run
expect_log_error "$TMP/bad-empty.json: /instances/files/1: $TMP/empty-dir: no instance files (*.param, *.txt) in this directory (subdirectories are not searched)" \
  "instances: a directory without instance files, named with its JSON path"
# Each file once: listed twice, by its directory and by name, or by two spellings of one path.
printf '{"name": "bad", "engine": "exact", "instances": {"files": ["diag-10", "diag-10"]}}\n' >"$TMP/bad-twice.json"
run "$NQC" run "$TMP/bad-twice.json" --dry-run
expect_exit 1 "instances: a directory listed twice"
first=$(ls "$TMP/diag-10" | grep -E '\.(param|txt)$' | sort | head -1)
expect_log_error "$TMP/diag-10/$first: listed twice in instances/files (directly or by its directory); give each file once" \
  "instances: a directory listed twice, its first file named"
printf '{"name": "bad", "engine": "exact", "instances": {"files": ["corner4.txt", "./corner4.txt"]}}\n' >"$TMP/bad-twice2.json"
run "$NQC" run "$TMP/bad-twice2.json" --dry-run
expect_exit 1 "instances: one file by two spellings"
expect_log_error "$TMP/corner4.txt: listed twice in instances/files (directly or by its directory); give each file once" \
  "instances: ./corner4.txt and corner4.txt are one file"
printf '{"name": "bad", "instances": {"files": ["corner4.txt"]}, "k": {"fixed": 1}}\n' >"$TMP/bad-k.json"
run "$NQC" run "$TMP/bad-k.json" --dry-run
expect_log_error "$TMP/bad-k.json: /k: k applies to derived cases (sizes) only, not to instances" "instances with k: refused"
# Relative instance paths are stored absolute: rerun works from any directory.
printf '{"name": "rel", "instances": {"files": ["corner4.txt"]}}\n' >"$TMP/rel.json"
(cd "$TMP" && "$NQC" run rel.json -o rel-out -q)
run bash -c "cd / && '$NQC' rerun '$TMP/rel-out' --case 0"
expect_exit 0 "rerun of an instance case from another working directory"
got=$("$PYTHON" -c "import h5py; f = h5py.File('$TMP/rel-out/results.h5'); print(f['cases'][0]['instance'].decode())")
check "relative instance path stored absolute ($got)" test "$got" = "$TMP/corner4.txt"

# export of instance cases: a composition file's case is the file; a .param case is a .param
# file of the diagonals it excluded (the first D of its file's list): complete runs it again,
# with the stored outcome, backtracks and nodes.
last=$(( $("$PYTHON" -c "import h5py; print(len(h5py.File('$TMP/one/results.h5')['cases']))") - 1 ))
run "$NQC" export "$TMP/one" --case "$last" -o "$TMP/exported-corner4.txt"
expect_exit 0 "export of the composition file's case ($last)"
check "the exported case is corner4.txt's composition" test "$(grep -v '^#' "$TMP/exported-corner4.txt" | tr -s ' \n' ' ')" = "1 0 0 0 "
run "$NQC" export "$TMP/one" --case 0 -o "$TMP/case0.txt"
expect_exit 1 "export of a CSPLib case to a composition file name"
expect_stderr_line "nqc: error: -o: case 0 is the CSPLib instance $TMP/diag-10/diag-10-4-1.param with 5 excluded diagonals, which a composition file cannot hold; name a .param file (or - for stdout)" \
  "export of a CSPLib case to .txt: refused, naming the instance"
check "... and nothing written" test ! -e "$TMP/case0.txt"
# A solved and an infeasible case of each diags, by the stored rows (case, file, diags, seed, outcome, backtracks, nodes).
"$PYTHON" - "$TMP/one/results.h5" >"$TMP/picked.txt" <<'PY'
import sys, h5py, pandas as pd
a = pd.DataFrame(h5py.File(sys.argv[1])['cases'][()])
a = a[a.n == 10].sort_values('case_id')
for d in (5, 10):
    for o in (0, 1):
        r = a[(a.composition_id == d) & (a.outcome == o)].iloc[0]
        print(r.case_id, r.instance.decode(), d, r.seed, o, r.backtracks, r.nodes)
PY
check "a solved and an infeasible case for diags 5 and 10 picked" test "$(wc -l <"$TMP/picked.txt")" -eq 4
while read -r id file d seed outcome backtracks nodes; do
  run "$NQC" export "$TMP/one" --case "$id" -o "$TMP/case$id.param"
  expect_exit 0 "export of CSPLib case $id (diags $d, stored outcome $outcome) to a .param file"
  # "n = N; diags = [...]" of a .param file, its diags list cut to the first D entries.
  param_of() {
    "$PYTHON" -c '
import json, re, sys
text = open(sys.argv[1]).read()
value = lambda key: re.search(r"^" + key + r"\s*=\s*(.*)$", text, re.M).group(1).strip()
n, diags = value("n"), json.loads(value("diags"))[: int(sys.argv[2])]
print(f"n = {n}; diags = {diags}")' "$1" "$2"
  }
  want=$(param_of "$file" "$d")
  got=$(param_of "$TMP/case$id.param" 1000)
  check "case $id: the .param says numdiags = $d" grep -qx "numdiags =  $d" "$TMP/case$id.param"
  check "case $id: the .param holds n and the first $d diagonals of $(basename "$file") ($got)" test "$got" = "$want"
  run "$NQC" complete "$TMP/case$id.param" --seed "$seed"
  expect_exit $((outcome == 0 ? 0 : 2)) "case $id: nqc complete on the exported .param: the stored outcome ($outcome)"
  check "case $id: the same backtracks ($backtracks) and nodes ($nodes) as the stored row" \
    test "$(grep -E '^(backtracks|nodes):' "$OUT_FILE" | tr '\n' ' ')" = "backtracks: $backtracks nodes: $nodes "
  run "$NQC" export "$TMP/one" --case "$id" -o -
  check "case $id: export -o - writes the .param file's bytes" cmp -s "$OUT_FILE" "$TMP/case$id.param"
done <"$TMP/picked.txt"
# A .param case that gave up: its failure record holds the empty board only, so the case is
# rebuilt from the plan (the 40 diagonals of slow-0000.param: no completion), not written as
# the empty 40 x 40 board (which has one).
slow_instances "$TMP/slow" 1
printf '{"name": "slow", "engine": "auto", "max_nodes": 2000, "instances": {"files": ["slow"]}}\n' >"$TMP/slow.json"
"$NQC" run "$TMP/slow.json" -o "$TMP/slow-out" -q
check "the slow case gave up, and its failure record is stored" test "$("$PYTHON" -c "
import h5py; f = h5py.File('$TMP/slow-out/results.h5'); print(int(f['cases'][0]['outcome']), 'failures' in f)")" = "2 True"
run "$NQC" export "$TMP/slow-out" --case 0 -o "$TMP/slow-case.param"
expect_exit 0 "export of a gave_up CSPLib case"
check "the gave_up case's .param lists its 40 diagonals" grep -qx "numdiags =  40" "$TMP/slow-case.param"
run "$NQC" complete "$TMP/slow-case.param" --max-nodes 2000
expect_exit 3 "the exported gave_up case gives up again at the same node limit"

# aggregate of an instance run: per n and diags (- for composition files) the cases solved,
# proved infeasible and given up, as the labels say; --csv the same columns.
run "$NQC" aggregate "$TMP/one" --csv "$TMP/one.csv"
expect_exit 0 "aggregate of the instance run"
u5=${expected% *} u10=${expected#* }
rows=$(awk -F'|' 'NR > 2 { gsub(/ /, ""); print $2, $3, $4, $5, $6, $7, $8, $9 }' "$OUT_FILE" | tr '\n' ';')
check "aggregate: rows origin n diags files cases solved infeasible gave_up (got: $rows)" \
  test "$rows" = "instance 4 - 1 1 0 1 0;instance 10 5 1000 1000 $((1000 - u5)) $u5 0;instance 10 10 1000 1000 $((1000 - u10)) $u10 0;"
check "aggregate --csv: the same rows" test "$(cut -d, -f1-7 "$TMP/one.csv" | tr '\n' ';')" = \
  "n,diags,files,cases,solved,infeasible,gave_up;4,,1,1,0,1,0;10,5,1000,1000,$((1000 - u5)),$u5,0;10,10,1000,1000,$((1000 - u10)),$u10,0;"
check "aggregate: no solved time for corner4 (-), an infeasible time for it" \
  bash -c "awk -F'|' 'NR == 3 { exit !(\$10 ~ /^ +- *\$/ && \$13 ~ /e[-+]/) }' '$OUT_FILE'"

# info of an instance run: its cases by n and diags (aggregate's groups, - for composition
# files): files, cases and outcomes, no false-negative column (an instance need not have a
# completion); the same for the directory before its merge (shard files).
info_table() {  # the table of `nqc info`'s stdout: its header line to its total line
  awk '$1 == "n" { on = 1 } on { print } on && $1 == "total" { exit }' "$OUT_FILE"
}
want=$(printf '%12s %12s %12s %12s %12s %12s %12s\n' n diags files cases solved infeasible gave_up \
  4 - 1 1 0 1 0 10 5 1000 1000 $((1000 - u5)) "$u5" 0 10 10 1000 1000 $((1000 - u10)) "$u10" 0 \
  total '' 1001 2001 $((2000 - u5 - u10)) $((1 + u5 + u10)) 0)
run "$NQC" info "$TMP/one"
expect_exit 0 "info of the instance run"
check "info: the counts by n and diags ($u5 and $u10 infeasible as the labels say, corner4.txt infeasible; got: $(info_table | tr -s ' \n' ' ;'))" \
  test "$(info_table)" = "$want"
cp -r "$TMP/two" "$TMP/two-shards" && rm "$TMP/two-shards/results.h5"
run "$NQC" info "$TMP/two-shards"
expect_exit 0 "info of the instance run before its merge (2 ranks)"
expect_stdout_contains "not merged: 7 shard files and 0 partial files read" "... its 7 shard files are read"
check "... the same counts (got: $(info_table | tr -s ' \n' ' ;'))" test "$(info_table)" = "$want"

# The instance example of docs/configs.md, run as written from a copy of the repository's layout
# (tests/ and the built nqc at build/src/cli/nqc).
DOC=$HERE/../../docs/configs.md
mkdir -p "$TMP/example/build/src/cli" && ln -s "$HERE/.." "$TMP/example/tests" && ln -s "$NQC" "$TMP/example/build/src/cli/nqc"
sed -n '/^<!-- instance-example -->$/,/^<!-- \/instance-example -->$/p' "$DOC" | sed '/^```/d; /^<!--/d' >"$TMP/example/example.sh"
check "docs/configs.md: the instance example is there" test -s "$TMP/example/example.sh"
run bash -c "cd '$TMP/example' && bash -e example.sh"
expect_exit 0 "docs/configs.md's instance example runs as written"
rows=$(awk -F'|' 'NR > 2 { gsub(/ /, ""); print $3, $4, $5, $6, $7, $8, $9 }' "$OUT_FILE" | tr '\n' ';')
check "docs/configs.md's instance example: its table by n and diags, $u5 + $u10 = 1240 of 2000 cases infeasible as the labels say (got: $rows)" \
  test "$rows;$((u5 + u10))" = "10 5 1000 1000 $((1000 - u5)) $u5 0;10 10 1000 1000 $((1000 - u10)) $u10 0;;1240"
summary
