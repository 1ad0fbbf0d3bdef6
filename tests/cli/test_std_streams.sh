#!/usr/bin/env bash
# "-" is standard output for every option of nqc that writes a file, and standard input for
# every argument that reads a composition or a .param file (issue 16 item 5): for each output
# option, the bytes on stdout equal the file written under a real name, the text that goes with
# it moves to stderr unchanged, and no file named "-" appears; options that name a directory or
# a result file, and two outputs both "-", are refused with one line.
# Usage: test_std_streams.sh NQC
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 NQC" >&2
  exit 2
fi
NQC=$(realpath "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
W=$TMP/work   # every command runs here: a file named "-" would land here
mkdir -p "$W"
cd "$W" || exit 1

# same_bytes DESC FILE: the last run's stdout is FILE, byte for byte.
same_bytes() { check "$1" cmp -s "$OUT_FILE" "$2"; }
# stream_and_file DESC FILE CMD...: runs CMD (which writes to stdout), keeps its stdout and
# stderr, and compares the stdout with FILE (written before by the same command with a name).
stream_and_file() {
  local desc=$1 file=$2
  shift 2
  run "$@"
  expect_exit 0 "$desc: exit 0"
  same_bytes "$desc: stdout equals the file written by name" "$file"
}

# --- compositions: construct, generate, derive, convert, complete -o, export ---------------
"$NQC" construct 12 -o c12.txt
stream_and_file "construct -o -" c12.txt "$NQC" construct 12 -o -
"$NQC" generate 20 --seed 4 -o g20.txt
stream_and_file "generate -o -" g20.txt "$NQC" generate 20 --seed 4 -o -
"$NQC" derive g20.txt -k 7 --seed 2 -o d20.txt
stream_and_file "derive -o -" d20.txt "$NQC" derive g20.txt -k 7 --seed 2 -o -
stream_and_file "derive - (stdin) -o -" d20.txt bash -c "'$NQC' derive - -k 7 --seed 2 -o - <g20.txt"
"$NQC" convert d20.txt d20.bin
stream_and_file "convert IN - --to binary" d20.bin "$NQC" convert d20.txt - --to binary
stream_and_file "convert - (stdin, binary) -" d20.txt bash -c "'$NQC' convert - - <d20.bin"
"$NQC" complete d20.txt --seed 3 -o s20.txt >complete-file.out
stream_and_file "complete -o -" s20.txt "$NQC" complete d20.txt --seed 3 -o -
check "complete -o -: the summary is on stderr, as on stdout with -o FILE (but time_s)" \
  cmp -s <(grep -v '^time_s:' "$ERR_FILE") <(grep -v '^time_s:' complete-file.out)

# --- a small run for export and aggregate ----------------------------------------------------
printf '{"name": "streams", "seed": 5, "engine": "auto", "sizes": [{"n": 12, "solutions": 2, "compositions_per_solution": 3}]}\n' >run.json
"$NQC" run run.json -o res -q
"$NQC" export res --case 4 -o e4.txt
stream_and_file "export -o -" e4.txt "$NQC" export res --case 4 -o -
stream_and_file "export without -o" e4.txt "$NQC" export res --case 4

# --- randset --csv / --trials-csv ----------------------------------------------------------
"$NQC" randset 30 --trials 50 --csv hist.csv --trials-csv trials.csv >randset-files.out
stream_and_file "randset --csv -" hist.csv "$NQC" randset 30 --trials 50 --csv - --trials-csv trials2.csv
check "randset --csv -: the summary moves to stderr unchanged" cmp -s "$ERR_FILE" randset-files.out
check "randset --csv -: --trials-csv FILE as before" cmp -s trials2.csv trials.csv
stream_and_file "randset --trials-csv -" trials.csv "$NQC" randset 30 --trials 50 --trials-csv - --csv hist2.csv
check "randset --trials-csv -: the summary moves to stderr unchanged" cmp -s "$ERR_FILE" randset-files.out
check "randset --trials-csv -: --csv FILE as before" cmp -s hist2.csv hist.csv
run "$NQC" randset 30 --trials 50 --csv - --trials-csv -
expect_exit 1 "randset --csv - --trials-csv -"
expect_stderr_line "nqc: error: --csv and --trials-csv: both are '-' (standard output); give a file to all but one" \
  "randset with both CSVs on stdout: refused"

# --- aggregate --csv -------------------------------------------------------------------------
"$NQC" aggregate res --csv agg.csv >agg-file.out
stream_and_file "aggregate --csv -" agg.csv "$NQC" aggregate res --csv -
check "aggregate --csv -: the table moves to stderr unchanged" cmp -s "$ERR_FILE" agg-file.out
check "aggregate --csv FILE: the CSV has a header and one row for n = 12" test "$(cut -d, -f1,2 agg.csv | tr '\n' ' ')" = "n,cases 12,6 "

# --- standard input: every argument that reads a composition or a .param file --------------
run bash -c "'$NQC' verify - <d20.bin"
expect_stdout_line "<stdin>: consistent composition, n = 20, k = 7" "verify - (binary on stdin)"
"$NQC" count d20.txt >count-file.out
run bash -c "'$NQC' count - <d20.txt"
expect_exit 0 "count - (composition on stdin)"
check "count -: the counts of count FILE" cmp -s <(grep -v '^time_s:' "$OUT_FILE") <(grep -v '^time_s:' count-file.out)
printf 'n =  8\nnumdiags =  3\ndiags =  [[3, 1], [7, 0], [10, 1]]\n' >i8.param
"$NQC" count i8.param >count-param.out
run bash -c "'$NQC' count - <i8.param"
expect_exit 0 "count - (a .param text on stdin, told by its content)"
check "count - (.param): the counts of count FILE.param" cmp -s <(grep -v '^time_s:' "$OUT_FILE") <(grep -v '^time_s:' count-param.out)
"$NQC" complete i8.param --diags 2 >complete-param.out
run bash -c "'$NQC' complete - --diags 2 <i8.param"
check "complete - --diags 2 (.param on stdin): the outcome and counts of complete FILE.param --diags 2" \
  cmp -s <(grep -v '^time_s:' "$OUT_FILE") <(grep -v '^time_s:' complete-param.out)
run bash -c "'$NQC' complete - --diags 2 <d20.txt"
expect_exit 1 "complete - --diags with a composition on stdin"
expect_stderr_line "nqc: error: --diags: applies to CSPLib .param files only, not to -" "... refused: --diags is for .param files"
# A .param text on stdin is held to a named .param file's limit (16 MiB): one byte over it is
# refused, named, exit 1, whether stdin is the file itself or a pipe; a pipe is read no further
# than the limit (its writer then dies of SIGPIPE: exit 141).
cap=$((16 << 20))
yes | head -c $((cap + 1)) >over.param   # "y" lines: a .param text by its content
run "$NQC" count over.param
expect_exit 1 "count FILE.param one byte over the limit"
expect_stderr_line "nqc: error: over.param: $((cap + 1)) bytes, more than a .param file may have (16 MiB)" "... refused, naming the file"
for cmd in count complete; do
  run bash -c "'$NQC' $cmd - <over.param"
  expect_exit 1 "$cmd - <FILE (.param one byte over the limit)"
  expect_stderr_line "nqc: error: <stdin>: $((cap + 1)) bytes, more than a .param file may have (16 MiB)" "... refused as by name"
  run bash -c "'$NQC' $cmd - --diags 1 <over.param"
  expect_stderr_line "nqc: error: <stdin>: $((cap + 1)) bytes, more than a .param file may have (16 MiB)" "$cmd - --diags 1 <FILE: the same"
  run bash -c "cat over.param | '$NQC' $cmd -"
  expect_exit 1 "$cmd - from a pipe (.param one byte over the limit)"
  expect_stderr_line "nqc: error: <stdin>: at least $((cap + 1)) bytes, more than a .param file may have (16 MiB)" "... refused, naming stdin"
  run bash -c "yes | head -c $((4 * cap)) | '$NQC' $cmd -; echo \"writer \${PIPESTATUS[1]} nqc \${PIPESTATUS[2]}\" >&2"
  check "$cmd - from a pipe 4 times the limit: stops reading at the limit (got: $(tail -n 1 "$ERR_FILE"))" \
    test "$(cat "$ERR_FILE")" = "nqc: error: <stdin>: at least $((cap + 1)) bytes, more than a .param file may have (16 MiB)
writer 141 nqc 1"
done
# A composition on stdin has no such limit (nor by name): 3 * 10^6 rows, 23 MB, through a pipe.
"$NQC" construct 3000000 -o c3m.txt
run bash -c "cat c3m.txt | '$NQC' complete - -o /dev/null"
expect_exit 0 "complete - (a 23 MB composition through a pipe)"
check "... solved, n = 3000000" grep -qx "n: 3000000" "$OUT_FILE"
rm -f over.param c3m.txt

# --- refused: a directory, a result file or a config cannot be a stream ----------------------
refused() {  # DESC LINE CMD...
  local desc=$1 line=$2
  shift 2
  run "$@"
  expect_exit 1 "$desc"
  expect_stderr_line "nqc: error: $line" "$desc: the message"
}
refused "run -o -" "-o: '-' (standard output) cannot be a results directory; give a directory" "$NQC" run run.json -o -
refused "run - (config on stdin)" \
  "CONFIG: '-' (standard input) cannot be a config: every rank reads it by name, and its directory anchors its relative paths; give a file" \
  "$NQC" run -
refused "challenge -o -" "-o: '-' (standard output) cannot be the challenge's directory (it holds two compositions and answer.json); give a directory" \
  "$NQC" challenge 1000 --free-rows 10 -o -
results_msg="'-' (standard input) cannot be a result file or results directory (they are read by name); give a path"
refused "aggregate -" "PATH: $results_msg" "$NQC" aggregate -
refused "info -" "RESULTS: $results_msg" "$NQC" info -
refused "rerun -" "RESULTS: $results_msg" "$NQC" rerun - --case 0
refused "export -" "RESULTS: $results_msg" "$NQC" export - --case 0

# No command above left a file named "-" (nor "./-" anywhere below the test's directory).
check "no file named '-' was written ($(find "$TMP" -name - | head -3))" test -z "$(find "$TMP" -name -)"
summary
