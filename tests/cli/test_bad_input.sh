#!/usr/bin/env bash
# Bad input to the nqc executable: every bad composition file, bad config, unknown engine,
# subcommand or option gives exit 1 and exactly one error line (asserted whole), and a
# results directory that already holds results is not overwritten.
# Usage: test_bad_input.sh NQC DATA_DIR
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NQC DATA_DIR" >&2
  exit 2
fi
NQC=$1
DATA=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

# --- composition files: verify and complete --------------------------------------------
# bad_composition FILE MESSAGE DESC: both subcommands fail with exactly "nqc: error: MESSAGE".
bad_composition() {
  local sub
  for sub in verify complete; do
    run "$NQC" "$sub" "$1"
    expect_exit 1 "$sub: $3"
    expect_stderr_line "nqc: error: $2" "$sub: $3: error line"
    check "$sub: $3: nothing on stdout" test ! -s "$OUT_FILE"
  done
}

f=$DATA/bad-token.txt
bad_composition "$f" "$f:4: row 4: expected an integer 0..n, got 'two'" "non-number token"
f=$DATA/bad-above-n.txt
bad_composition "$f" "$f:5: row 4: value 7 is out of range 0..4" "value above n"
f=$DATA/bad-negative.txt
bad_composition "$f" "$f:3: row 2: value -2 is out of range 0..4" "negative value"
f=$DATA/bad-column.txt
bad_composition "$f" "$f:6: rows 1 and 4: two queens on one column (column 2)" "two queens on one column"
f=$DATA/bad-diagonal.txt
bad_composition "$f" "$f:6: rows 2 and 5: two queens on one diagonal (columns 3 and 6)" "two queens on one diagonal"
f=$DATA/bad-anti-diagonal.txt
bad_composition "$f" "$f:4: rows 1 and 3: two queens on one anti-diagonal (columns 4 and 2)" \
  "two queens on one anti-diagonal"
no_values="no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)"
f=$DATA/bad-empty.txt
bad_composition "$f" "$f: $no_values" "empty file"
f=$DATA/bad-only-comments.txt
bad_composition "$f" "$f: $no_values" "only comments"
f=$DATA/bad-overflow.txt
bad_composition "$f" "$f:3: row 3: value 18446744073709551616 is out of range 0..3" "value too large for 64 bits"
f=$TMP/does-not-exist.txt
bad_composition "$f" "$f: cannot open: No such file or directory" "missing file"
mkdir "$TMP/a-directory"
f=$TMP/a-directory
bad_composition "$f" "$f: cannot open: is a directory" "a directory"

# The same checks read from stdin name "<stdin>".
run "$NQC" verify - <"$DATA/bad-column.txt"
expect_exit 1 "verify - (stdin): two queens on one column"
expect_stderr_line "nqc: error: <stdin>:6: rows 1 and 4: two queens on one column (column 2)" \
  "verify - (stdin): error line names <stdin>"

# --- engine, subcommand, option ---------------------------------------------------------
printf '0 0 0 0 0 0 0 0\n' >"$TMP/empty8.txt"
run "$NQC" complete --engine nosuch "$TMP/empty8.txt"
expect_exit 1 "complete --engine nosuch"
expect_stderr_line "nqc: error: --engine: unknown engine 'nosuch' (valid engines: auto, bitboard, exact, grigoryan, minconflicts, sat)" \
  "complete --engine nosuch: message lists the valid engines"

run "$NQC" nosuch
expect_exit 1 "unknown subcommand"
expect_stderr_line "nqc: error: unknown subcommand 'nosuch' (valid subcommands: verify, construct, generate, derive, convert, complete, count, randset, run, aggregate, rows, rerun, export, info, challenge)" \
  "unknown subcommand: named, with the valid ones"
run "$NQC" verify --nosuch "$TMP/empty8.txt"
expect_exit 1 "unknown option of verify"
check "unknown option: stderr names --nosuch" grep -qF -- "nqc: error: The following argument was not expected: --nosuch" "$ERR_FILE"
run "$NQC" complete --max-nodes many "$TMP/empty8.txt"
expect_exit 1 "complete --max-nodes many (not a number)"
check "complete --max-nodes many: error names the option" grep -qF -- "nqc: error: --max-nodes: expected an integer 0..18446744073709551615, got many" "$ERR_FILE"
# Negative or non-finite numbers are refused, not wrapped to 2^64 - 1.
for args in "complete --time-limit -1" "complete --time-limit nan"; do
  # shellcheck disable=SC2086
  run "$NQC" $args "$TMP/empty8.txt"
  expect_exit 1 "$args"
  opt=${args#complete }
  check "$args: error names ${opt% *}" grep -qF -- "nqc: error: ${opt% *}: expected a number >= 0, got ${opt#* }" "$ERR_FILE"
done
run "$NQC" complete --time-limit 1e400 "$TMP/empty8.txt"
expect_exit 1 "complete --time-limit 1e400"
check "complete --time-limit 1e400: too large, said so" grep -qxF -- "nqc: error: --time-limit: expected a finite number >= 0, got 1e400" "$ERR_FILE"
run "$NQC" complete --time-limit 1e-3 "$TMP/empty8.txt"
expect_exit 0 "complete --time-limit 1e-3 (an exponent's minus is not a negative number)"
for args in "complete --max-nodes -1" "complete --seed -5" "complete --seed 18446744073709551616" "complete --max-nodes 2.5"; do
  # shellcheck disable=SC2086
  run "$NQC" $args "$TMP/empty8.txt"
  expect_exit 1 "$args"
  opt=${args#complete }
  check "$args: error names ${opt% *}" grep -qF -- "nqc: error: ${opt% *}: expected an integer 0..18446744073709551615, got ${opt#* }" "$ERR_FILE"
done
run "$NQC" generate 100 --seed -1
expect_exit 1 "generate --seed -1"
# A number longer than 40 characters is shown cut, with "...".
printf '0\n%s\n0\n' "$(printf '9%.0s' $(seq 60))" >"$TMP/huge.txt"
run "$NQC" verify "$TMP/huge.txt"
expect_stderr_line "nqc: error: $TMP/huge.txt:2: row 2: value 9999999999999999999999999999999999999... is out of range 0..3" \
  "very long number: shown cut with ..."
run "$NQC"
expect_exit 1 "no subcommand"

# --- experiment configs -----------------------------------------------------------------
# bad_config NAME MESSAGE DESC: `nqc run DATA/NAME -o DIR` fails with the one error line
# "[time] [rank 0] [error] DATA/NAME: MESSAGE" and creates no results directory.
bad_config() {
  local cfg=$DATA/$1 out=$TMP/out-${1%.json}
  run "$NQC" run "$cfg" -o "$out"
  expect_exit 1 "run: $3"
  expect_log_error "$cfg: $2" "run: $3: error line"
  check "run: $3: no results directory created" test ! -e "$out"
}

bad_config bad-config-unknown-key.json \
  "/shard_case: unknown key (valid keys: name, description, seed, engine, engine_params, instances, sizes, random_compositions, excluded_diagonals, canonical_compositions, k, time_limit_s, max_nodes, shard_seconds, shard_cases, output)" \
  "unknown top-level key"
bad_config bad-config-unknown-size-key.json \
  "/sizes/1/compositions: unknown key (valid keys: n, solutions, compositions_per_solution)" \
  "unknown key inside sizes[1]"
bad_config bad-config-seed-type.json '/seed: expected an integer seed >= 0, got "x"' "wrong type (seed: \"x\")"
bad_config bad-config-n-zero.json "/sizes/0/n: expected an integer n >= 1 (at most 2147483647), got 0" "n = 0"
bad_config bad-config-n-negative.json "/sizes/0/n/1: expected an integer n >= 1 (at most 2147483647), got -3" \
  "n = -3 in a list"
bad_config bad-config-n-two.json \
  "/sizes/0/n: n = 2 has no solution, so no composition can be derived from one (use n = 1 or n >= 4)" \
  "n = 2 (no solution)"
bad_config bad-config-empty-sizes.json \
  '/sizes: expected a non-empty array of {"n", "solutions", "compositions_per_solution"}, got []' "empty sizes list"
bad_config bad-config-empty-n.json "/sizes/0/n: expected a non-empty list of board sizes, got []" "empty n list"
bad_config bad-config-k-range.json "/k: k range 50..50 has no k in 1..n-1 = 1..19 for n = 20 (at /sizes/0/n)" \
  "k = 50 outside 1..n-1 for n = 20"
bad_config bad-config-invalid-json.json \
  "invalid JSON: parse error at line 4, column 61: syntax error while parsing object key - unexpected '}'; expected string literal" \
  "invalid JSON (line and column)"
bad_config bad-config-engine.json '/engine: expected one of the engines auto, bitboard, exact, grigoryan, minconflicts, sat, got "fast"' \
  "unknown engine (lists the valid ones)"
# Found by tests/fuzz (failed/config, failed/param): a key with a newline or an escape
# sequence is shown escaped (the message stays one line); a number too large for JSON in a
# .param file's diags list is a malformed list naming the file, not an uncaught exception.
printf '{"name": "x", "sizes": [{"n": [8], "solutions": 1, "compositions_per_solution": 1}], "sh\\nard\\u001b[31m": 3}\n' >"$TMP/key-newline.json"
run "$NQC" run "$TMP/key-newline.json" -o "$TMP/out-key"
expect_log_error "$TMP/key-newline.json: /sh\x0aard\x1b[31m: unknown key (valid keys: name, description, seed, engine, engine_params, instances, sizes, random_compositions, excluded_diagonals, canonical_compositions, k, time_limit_s, max_nodes, shard_seconds, shard_cases, output)" \
  "run: a key with a newline and an escape sequence: shown escaped, one line"
printf 'n = 4\nnumdiags = 1\ndiags = [[1e999, 0]]\n' >"$TMP/overflow.param"
run "$NQC" count "$TMP/overflow.param"
expect_exit 1 "count: a .param file with a number out of JSON's range"
expect_stderr_line "nqc: error: $TMP/overflow.param:3: malformed diags list (expected [[index, 0 or 1], ...])" \
  "count: the number out of range is a malformed diags list, naming the file and line"

cfg=$TMP/no-such-config.json
run "$NQC" run "$cfg" -o "$TMP/out-missing"
expect_exit 1 "run: missing config file"
expect_log_error "$cfg: cannot open: No such file or directory" "run: missing config file: error line"
# Not a regular file: a FIFO would block for ever, /dev/zero would fill the memory.
mkfifo "$TMP/fifo.json"
run timeout 20 "$NQC" run "$TMP/fifo.json" --dry-run
expect_exit 1 "run: a FIFO as config"
expect_log_error "$TMP/fifo.json: cannot open: not a regular file" "run: a FIFO as config: refused at once"
run timeout 20 "$NQC" run /dev/zero --dry-run
expect_log_error "/dev/zero: cannot open: not a regular file" "run: /dev/zero as config: refused at once"
head -c $((17 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$TMP/huge.json"
run "$NQC" run "$TMP/huge.json" --dry-run
expect_log_error "$TMP/huge.json: 17825792 bytes, more than a config may have (16 MiB)" "run: a 17 MiB config refused"
printf '{"name": "../../etc", "sizes": [{"n": 8, "solutions": 1, "compositions_per_solution": 1}]}' >"$TMP/name.json"
run "$NQC" run "$TMP/name.json" --dry-run
expect_log_error "$TMP/name.json: /name: expected a name of letters, digits, '.', '_' and '-' that starts with a letter or digit, got \"../../etc\"" \
  "run: a name that would escape results/ refused"
run "$NQC" run -o "$TMP/out-none"
expect_exit 1 "run without CONFIG"
expect_stderr_line "nqc: error: run: a CONFIG file is required (see nqc run --help)" "run without CONFIG: error line"

# --- results already written are not lost -----------------------------------------------
cp "$HERE/../../configs/ci.json" "$TMP/ci.json"
res=$TMP/results
run "$NQC" run "$TMP/ci.json" -o "$res" -q
expect_exit 0 "run ci.json into a fresh directory"
check "run ci.json: results.h5 written" test -s "$res/results.h5"
sum_before=$(sha256sum "$res/results.h5" 2>/dev/null)
# shellcheck disable=SC2317  # called through check
unchanged() { [ -n "$sum_before" ] && [ "$(sha256sum "$res/results.h5" 2>/dev/null)" = "$sum_before" ]; }
run "$NQC" run "$TMP/ci.json" -o "$res"
expect_exit 0 "run a finished config again: nothing to do"
check "run again: it says the run is finished (and how to start over)" \
  grep -q "\[info\] $res: the run of this config is finished ($res/results.h5): nothing to do (--force starts it over)$" "$ERR_FILE"
check "run again: results.h5 unchanged (sha256)" unchanged
run "$NQC" run "$TMP/ci.json" -o "$res" --force --resume
expect_exit 1 "--force with --resume is refused"
run "$NQC" run "$TMP/ci.json" -o "$res" --force --part 0/2
expect_exit 1 "--force with --part is refused (a part must not remove the others' shards)"
check "refused --force: results.h5 unchanged (sha256)" unchanged
cp -r "$res" "$TMP/forced"
run "$NQC" run "$TMP/ci.json" -o "$TMP/forced" --force -q
expect_exit 0 "--force starts a finished run over"
check "--force: results.h5 written again" test -s "$TMP/forced/results.h5"
check "--force: shards written again (as many as before)" test "$(ls "$TMP/forced/shards" | wc -l)" -eq "$(ls "$res/shards" | wc -l)"
run "$NQC" run "$DATA/other-config.json" -o "$res"
expect_exit 1 "run another config into the same directory"
expect_log_error "$res: holds results of another config ($res/config.json differs from this one); choose another output directory" \
  "another config: 'holds results of another config' error line"
check "another config: results.h5 unchanged (sha256)" unchanged
# --force removes this config's run only: never another config's run, nor a user's files.
run "$NQC" run "$DATA/other-config.json" -o "$res" --force
expect_exit 1 "--force of another config into the directory"
expect_log_error "$res: holds the run of another config ($res/config.json differs from this one); --force starts over this config's run only: choose another output directory" \
  "--force of another config: refused, named"
check "--force of another config: results.h5 unchanged (sha256)" unchanged
check "--force of another config: its shards and plan are still there" test -s "$res/plan.json" -a "$(ls "$res/shards" | wc -l)" -eq 15
mkdir -p "$TMP/forced/shards/sub" && echo notes >"$TMP/forced/shards/notes.txt" && echo keep >"$TMP/forced/mine.txt"
"$NQC" run "$DATA/other-config.json" -o "$TMP/other" -q 2>/dev/null
cp "$TMP/other/shards/shard-000000.h5" "$TMP/forced/shards/shard-000099.h5"
config_hash_of() { /usr/bin/python3 -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r").attrs["config_hash"])' "$1"; }
other_hash=$(config_hash_of "$TMP/other/shards/shard-000000.h5")
this_hash=$(config_hash_of "$TMP/forced/results.h5")
run "$NQC" run "$TMP/ci.json" -o "$TMP/forced" --force
expect_exit 1 "--force with another config's shard file among this config's"
expect_log_error "$TMP/forced/shards/shard-000099.h5: belongs to another config (config_hash $other_hash, this config $this_hash); --force starts over this config's run only: choose another output directory" \
  "... refused, the foreign file named"
check "... nothing removed (results.h5 still there)" test -s "$TMP/forced/results.h5"
rm "$TMP/forced/shards/shard-000099.h5"
run "$NQC" run "$TMP/ci.json" -o "$TMP/forced" --force -q
expect_exit 0 "--force beside a user's files"
check "--force: the user's files stay (shards/notes.txt, shards/sub, mine.txt)" \
  test -s "$TMP/forced/shards/notes.txt" -a -d "$TMP/forced/shards/sub" -a -s "$TMP/forced/mine.txt"
# What --force cannot tell is this config's it does not remove (and then removes nothing): a
# file named like a shard that is not a result file, a symbolic link as shards/, a damaged
# config.json; nor does a plain run overwrite a results.h5 that is not this config's.
echo "my notes" >"$TMP/forced/shards/shard-000077.h5"
run "$NQC" run "$TMP/ci.json" -o "$TMP/forced" --force
expect_exit 1 "--force with a file named like a shard that is not one"
check "... refused, naming it" grep -qF "$TMP/forced/shards/shard-000077.h5: cannot be read as this config's result file (" "$ERR_FILE"
check "... nothing removed (results.h5, the notes)" test -s "$TMP/forced/results.h5" -a -s "$TMP/forced/shards/shard-000077.h5"
rm "$TMP/forced/shards/shard-000077.h5"
mkdir -p "$TMP/linked" && ln -s "$TMP/forced/shards" "$TMP/linked/shards"
run "$NQC" run "$TMP/ci.json" -o "$TMP/linked" --force
expect_exit 1 "--force with shards/ a symbolic link"
expect_log_error "$TMP/linked/shards: a symbolic link (nqc writes a directory there): its files are not this run's to remove; --force starts over this config's run only: choose another output directory" \
  "... refused, naming it"
check "... the linked directory's shards are all there" test "$(ls "$TMP/forced/shards" | grep -c '^shard-')" -eq 15
cp -r "$TMP/forced" "$TMP/damaged-config" && head -c 50 "$TMP/forced/config.json" >"$TMP/damaged-config/config.json"
run "$NQC" run "$TMP/ci.json" -o "$TMP/damaged-config" --force
expect_exit 1 "--force with a damaged config.json"
check "... nothing removed" test -s "$TMP/damaged-config/results.h5" -a -s "$TMP/damaged-config/plan.json"
mkdir -p "$TMP/foreign-merged" && cp "$TMP/other/results.h5" "$TMP/foreign-merged/"
run "$NQC" run "$TMP/ci.json" -o "$TMP/foreign-merged"
expect_exit 1 "a plain run into a directory that holds another config's results.h5 alone"
expect_log_error "$TMP/foreign-merged: holds results of another config ($TMP/foreign-merged/results.h5, config_hash $other_hash, this config $this_hash); choose another output directory" \
  "... refused, named"
check "... that results.h5 unchanged" cmp -s "$TMP/other/results.h5" "$TMP/foreign-merged/results.h5"
echo "thesis" >"$TMP/foreign-merged/results.h5"
run "$NQC" run "$TMP/ci.json" -o "$TMP/foreign-merged"
expect_exit 1 "a plain run into a directory whose results.h5 is not a result file"
check "... the file unchanged" test "$(cat "$TMP/foreign-merged/results.h5")" = thesis
cp -r "$res" "$TMP/truncated" && head -c 3000 "$res/results.h5" >"$TMP/truncated/results.h5"
run "$NQC" run "$TMP/ci.json" -o "$TMP/truncated"
expect_exit 1 "a finished run whose results.h5 is damaged: not 'finished'"
check "... the damage named with its remedy" grep -qF "$TMP/truncated/results.h5: damaged (" "$ERR_FILE"
run "$NQC" run "$DATA/other-config.json" -o "$res" --dry-run
expect_exit 1 "--dry-run of another config into the same directory"
expect_log_error "$res: holds results of another config ($res/config.json differs from this one); choose another output directory" \
  "--dry-run refuses another config's directory as the run would"
run "$NQC" run "$TMP/ci.json" -o "$res" --dry-run
expect_exit 0 "--dry-run of the same config into its directory"
expect_stdout_line "$res: the run of this config is finished ($res/results.h5): nothing to do (--force starts it over)" \
  "--dry-run of a finished run says it is finished, as the run does"
cp -r "$res" "$TMP/unmerged" && rm "$TMP/unmerged/results.h5"
run "$NQC" run "$TMP/ci.json" -o "$TMP/unmerged" --dry-run
expect_exit 0 "--dry-run of a run whose shards are there, not merged"
expect_stdout_line "$TMP/unmerged holds 15 shard files of this config: --resume continues the run" "--dry-run says the run can be resumed"
# --dry-run --json: the same checks, the plan as one JSON line (paths absolute, keys sorted).
run "$NQC" run "$DATA/other-config.json" -o "$res" --dry-run --json
expect_exit 1 "--dry-run --json of another config into the same directory"
expect_log_error "$res: holds results of another config ($res/config.json differs from this one); choose another output directory" \
  "--dry-run --json refuses another config's directory as the run would"
check "--dry-run --json of another config: nothing on stdout" test ! -s "$OUT_FILE"
phys=$(cd "$TMP" && pwd -P)
run "$NQC" run "$TMP/ci.json" -o "$res" --dry-run --json
expect_exit 0 "--dry-run --json of the same config into its directory"
by_n='{"cases":30,"n":1,"shards":2},{"cases":30,"n":4,"shards":2},{"cases":30,"n":8,"shards":2},{"cases":30,"n":10,"shards":2},'
by_n+='{"cases":30,"n":20,"shards":2},{"cases":30,"n":50,"shards":2},{"cases":30,"n":100,"shards":2},{"cases":20,"n":1000,"shards":1}'
check "--dry-run --json: one line, the plan's JSON (the estimates and the plan time aside)" test \
  "$(sed -E 's/"(cpu_seconds|core_hours|plan_seconds)":[0-9.e+-]+,?//g; s/,}/}/g' "$OUT_FILE")" = \
  "{\"by_n\":[$by_n],\"cases\":230,\"config\":\"$phys/ci.json\",\"finished\":true,\"name\":\"ci\",\"output\":\"$phys/results\",\"shards\":15,\"shards_done\":15}"
check "--dry-run --json: a cpu_seconds per n, and the totals" test "$(grep -oE '"(cpu_seconds|core_hours)":[0-9.e+-]+' "$OUT_FILE" | wc -l)" -eq 10
run "$NQC" run "$TMP/ci.json" --json
expect_exit 1 "--json without --dry-run"
check "--json without --dry-run: the error names both" grep -qxF -- "nqc: error: --json requires --dry-run" "$ERR_FILE"

# Shard files are checked on --resume: another config's shard, a damaged one, one outside the plan.
sed 's/"seed": 7/"seed": 8/' "$TMP/ci.json" >"$TMP/ci-seed8.json"
other=$TMP/results-seed8
run "$NQC" run "$TMP/ci-seed8.json" -o "$other" -q
expect_exit 0 "run ci.json with seed 8"
mixed=$TMP/results-mixed
cp -r "$res" "$mixed" && rm "$mixed/results.h5" "$mixed/shards/shard-000003.h5"
cp "$other/shards/shard-000003.h5" "$mixed/shards/"
run "$NQC" run "$TMP/ci.json" -o "$mixed" --resume
expect_exit 1 "--resume with another config's shard file"
expect_log_error "$mixed/shards/shard-000003.h5: belongs to another config (config_hash $(/usr/bin/python3 -c "import h5py; print(h5py.File('$other/shards/shard-000003.h5').attrs['config_hash'])" 2>/dev/null), this config $(/usr/bin/python3 -c "import h5py; print(h5py.File('$res/results.h5').attrs['config_hash'])" 2>/dev/null)); move it out of $mixed/shards" \
  "another config's shard: refused, named"
# A partial file (finished cases of an interrupted shard) of another config: refused too.
partial_dir=$TMP/results-partial
cp -r "$res" "$partial_dir" && rm "$partial_dir/results.h5" "$partial_dir/shards/shard-000003.h5"
cp "$other/shards/shard-000003.h5" "$partial_dir/shards/partial-000003.h5"
run "$NQC" run "$TMP/ci.json" -o "$partial_dir" --resume
expect_exit 1 "--resume with another config's partial file"
check "another config's partial file: refused, named" \
  grep -qF "[error] $partial_dir/shards/partial-000003.h5: belongs to another config (config_hash " "$ERR_FILE"
# This config's partial file of a shard that is done (a crash between the two writes): dropped.
cp "$res/shards/shard-000004.h5" "$partial_dir/shards/partial-000004.h5"
rm "$partial_dir/shards/partial-000003.h5"
run "$NQC" run "$TMP/ci.json" -o "$partial_dir" --resume -q
expect_exit 0 "--resume with a stale partial file of a done shard"
check "the stale partial file is removed" test ! -e "$partial_dir/shards/partial-000004.h5"
rm -f "$mixed/config.json"
run "$NQC" run "$TMP/ci.json" -o "$mixed"
expect_exit 1 "shards but no config.json, without --resume"
expect_log_error "$mixed: already holds results of this config; pass --resume to continue the run, or --force to start it over" \
  "shards without config.json: refused without --resume"
cp "$res/shards/shard-000003.h5" "$mixed/shards/"
printf 'garbage' >"$mixed/shards/shard-000005.h5"
run "$NQC" run "$TMP/ci.json" -o "$mixed" --resume
expect_exit 1 "--resume with a damaged shard file"
expect_log_error "$mixed/shards/shard-000005.h5: damaged (the HDF5 signature at its start is gone): delete it and run the config again with --resume (its cases run again)" \
  "damaged shard: named, with the remedy"
cp "$res/shards/shard-000005.h5" "$mixed/shards/" && cp "$res/shards/shard-000005.h5" "$mixed/shards/shard-000099.h5"
run "$NQC" run "$TMP/ci.json" -o "$mixed" --resume
expect_exit 1 "--resume with a shard outside the plan"
expect_log_error "$mixed/shards/shard-000099.h5: shard 99 is not in this config's plan of 15 shards; move it out of $mixed/shards" \
  "shard outside the plan: refused, named"
rm "$mixed/shards/shard-000099.h5"
run "$NQC" run "$TMP/ci.json" -o "$mixed" --resume -q
expect_exit 0 "--resume once the shards are this config's"

# aggregate never overwrites or double-counts its inputs.
run "$NQC" aggregate "$res/results.h5" --csv "$res/results.h5"
expect_exit 1 "aggregate --csv onto its input"
expect_stderr_line "nqc: error: --csv: $res/results.h5 is an input of this aggregate; choose another file" "aggregate --csv onto its input: refused"
check "aggregate --csv onto its input: results.h5 unchanged (sha256)" unchanged
run "$NQC" aggregate "$res" "$res/"
expect_exit 1 "aggregate of one directory twice"
expect_stderr_line "nqc: error: $res/: given twice (its cases would count twice)" "aggregate twice: refused"

run "$NQC" aggregate "$res" "$res/results.h5"
expect_exit 1 "aggregate of a directory and its own results.h5"
expect_stderr_line "nqc: error: $res/results.h5 and $res hold results of the same config (config_hash $(/usr/bin/python3 -c "import h5py; print(h5py.File('$res/results.h5').attrs['config_hash'])" 2>/dev/null)): their cases would count twice; give one of them" \
  "aggregate of one config twice: refused"
# Runs of one engine with the same settings pool (a study split over configs); other engines or
# settings do not: one row per n would mix two samples.
run "$NQC" aggregate "$res" "$TMP/other"
expect_exit 0 "aggregate of two configs of one engine and its settings"
# A parameter written at its default is the default; another value is another setting.
sed 's/"name": "other"/"name": "other-refills", "engine_params": {"refills": 8}/' "$DATA/other-config.json" >"$TMP/other-refills.json"
"$NQC" run "$TMP/other-refills.json" -o "$TMP/other-refills" -q 2>/dev/null
run "$NQC" aggregate "$res" "$TMP/other-refills"
expect_exit 0 "aggregate: auto with refills 8 written out (its default) pools with auto's defaults"
sed 's/"name": "other"/"name": "other-refills9", "engine_params": {"refills": 9}/' "$DATA/other-config.json" >"$TMP/other-refills9.json"
"$NQC" run "$TMP/other-refills9.json" -o "$TMP/other-refills9" -q 2>/dev/null
run "$NQC" aggregate "$res" "$TMP/other-refills9"
expect_exit 1 "aggregate: auto with refills 9 does not"
expect_stderr_line "nqc: error: $res and $TMP/other-refills9 are runs of other engines or settings (engine_params/refills 8 and 9): one table would mix them; read each alone, or compare them with python3 -m analysis compare" \
  "... the parameter named"
sed 's/"name": "other"/"name": "other-mc", "engine": "minconflicts", "time_limit_s": 5/' "$DATA/other-config.json" >"$TMP/other-mc.json"
"$NQC" run "$TMP/other-mc.json" -o "$TMP/other-mc" -q 2>/dev/null
run "$NQC" aggregate "$res" "$TMP/other-mc"
expect_exit 1 "aggregate of runs of two engines"
expect_stderr_line "nqc: error: $res and $TMP/other-mc are runs of other engines or settings (engine \"auto\" and \"minconflicts\", time_limit_s 0 and 5): one table would mix them; read each alone, or compare them with python3 -m analysis compare" \
  "... refused, the differences named"
partial=$TMP/results-partial
cp -r "$res" "$partial" && rm "$partial/results.h5" "$partial/shards/shard-000003.h5"
run "$NQC" aggregate "$partial"
expect_exit 0 "aggregate of an unfinished run"
expect_stderr_line "nqc: warning: $partial: the run is not finished (no results.h5): the table covers 220 of 230 cases" \
  "aggregate of an unfinished run: says how much it covers"
# An unfinished run's files are the run's: another config's shard file, or a copy of one of
# its own, is named (not pooled, not counted twice) by info and aggregate.
cp -r "$partial" "$TMP/foreign" && cp "$TMP/other/shards/shard-000000.h5" "$TMP/foreign/shards/shard-000003.h5"
for sub in info aggregate; do
  run "$NQC" "$sub" "$TMP/foreign"
  expect_exit 1 "$sub of an unfinished run with another config's shard file"
  expect_stderr_line "nqc: error: $TMP/foreign/shards/shard-000003.h5: belongs to another config (config_hash $other_hash, the run's $this_hash): move it out of $TMP/foreign/shards" \
    "$sub: the foreign file named"
done
cp -r "$partial" "$TMP/copied" && cp "$TMP/copied/shards/shard-000004.h5" "$TMP/copied/shards/shard-000099.h5"
first_case=$(/usr/bin/python3 -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["cases"]["case_id"].min())' "$TMP/copied/shards/shard-000004.h5")
for sub in info aggregate; do
  run "$NQC" "$sub" "$TMP/copied"
  expect_exit 1 "$sub of an unfinished run with a copy of one of its shard files"
  expect_stderr_line "nqc: error: $TMP/copied: case $first_case is in $TMP/copied/shards/shard-000004.h5 and in $TMP/copied/shards/shard-000099.h5 (a copy?): each case belongs to one shard file; move the extra one out" \
    "$sub: the copy named"
done

# The system's errors about paths as one line "PATH: REASON", never libstdc++'s own text
# ("filesystem error: status: ...", "basic_filebuf::underflow ..."): symbolic-link loops as
# an instance directory's entry, a result file, an output directory; a directory where nqc
# keeps its lock file.
mkdir -p "$TMP/loops/set"
"$NQC" construct 8 -o "$TMP/loops/set/a.txt"
ln -s loop.txt "$TMP/loops/set/loop" && ln -s loop "$TMP/loops/set/loop.txt"
echo '{"name": "loops", "engine": "exact", "instances": {"files": ["set"]}}' >"$TMP/loops/i.json"
run "$NQC" run "$TMP/loops/i.json" --dry-run
expect_exit 1 "an instance directory with a symbolic-link loop"
expect_log_error "$TMP/loops/set/loop.txt: Too many levels of symbolic links" "... one line naming the entry"
mkdir -p "$TMP/loops/o" && ln -s results.h5 "$TMP/loops/o/results.h5"
run "$NQC" aggregate "$TMP/loops/o"
expect_exit 1 "aggregate: results.h5 a symbolic-link loop"
expect_stderr_line "nqc: error: $TMP/loops/o/results.h5: Too many levels of symbolic links" "... one line naming it"
ln -s l2 "$TMP/loops/l1" && ln -s l1 "$TMP/loops/l2"
run "$NQC" run "$TMP/ci.json" --dry-run --json -o "$TMP/loops/l1/x"
expect_exit 1 "--dry-run --json into a symbolic-link loop"
expect_log_error "$TMP/loops/l1/x: Too many levels of symbolic links" "... one line naming it"
cp -r "$res" "$TMP/lockdir" && rm -rf "$TMP/lockdir/locks" && mkdir -p "$TMP/lockdir/locks/all.lock"
run "$NQC" run "$TMP/ci.json" -o "$TMP/lockdir" --resume
expect_exit 1 "a directory where the lock file goes"
expect_log_error "$TMP/lockdir/locks/all.lock: a directory where nqc keeps its lock file: remove it" "... one line naming it"
summary
