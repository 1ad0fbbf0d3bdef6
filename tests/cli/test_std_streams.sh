#!/usr/bin/env bash
# "-" is standard output for every option of nqc that writes a file, and standard input for
# every argument that reads a composition or a .param file: for each output
# option, the bytes on stdout equal the file written under a real name, the text that goes with
# it moves to stderr unchanged, and no file named "-" appears; options that name a directory or
# a result file, and two outputs both "-", are refused with one line. A stream (a pipe, a
# device, a FIFO) is read no further than needed: an endless or huge bad one ends with one line
# and exit 1, its writer killed by SIGPIPE; a valid one needs about the composition's memory.
# Usage: test_std_streams.sh NQC PYTHON (PYTHON: for the peak memory of a child)
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NQC PYTHON" >&2
  exit 2
fi
NQC=$(realpath "$1")
PY=$2
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
# A composition on stdin has no such limit (but a stream's, 32 GiB of text; by name none): 3 *
# 10^6 rows, 23 MB, through a pipe.
"$NQC" construct 3000000 -o c3m.txt
run bash -c "cat c3m.txt | '$NQC' complete - -o /dev/null"
expect_exit 0 "complete - (a 23 MB composition through a pipe)"
check "... solved, n = 3000000" grep -qx "n: 3000000" "$OUT_FILE"
rm -f over.param c3m.txt

# --- endless and huge streams: read no further than needed -----------------------------------
# stream_stops DESC LINE WRITER CMD...: `WRITER | CMD...` (under `set -o pipefail`) ends with
# the one error line LINE and exit 1, and WRITER, which writes far more than nqc may read, dies
# of SIGPIPE (exit 141): nqc stopped reading. (`timeout` only keeps a hang from stalling CI.)
stream_stops() {
  local desc=$1 line=$2 writer=$3
  shift 3
  run timeout 120 bash -c "set -o pipefail; $writer | $*; echo \"writer \${PIPESTATUS[0]} nqc \${PIPESTATUS[1]}\" >&2"
  check "$desc (got: $(tr '\n' '|' <"$ERR_FILE"))" test "$(cat "$ERR_FILE")" = "nqc: error: $line
writer 141 nqc 1"
}
zeros=$(printf '\\x00%.0s' {1..40})  # how a message quotes 40 NUL bytes
nul_line="1: row 1: expected an integer 0..n, got '$zeros...'"
y_line="<stdin>:1: row 1: expected an integer 0..n, got 'y'"
y_param="<stdin>: at least 16777217 bytes, more than a .param file may have (16 MiB)"  # "y": a .param text's first letter
for cmd in "verify -" "derive -" "convert - out.txt" "complete -" "count -"; do
  stream_stops "${cmd%% *} from a pipe of NUL bytes (head -c 1G /dev/zero)" "<stdin>:$nul_line" \
    "head -c 1G /dev/zero" "'$NQC' $cmd"
  case $cmd in complete* | count*) line=$y_param ;; *) line=$y_line ;; esac
  stream_stops "${cmd%% *} from a pipe of 'y' lines (yes)" "$line" "yes" "'$NQC' $cmd"
done
check "convert from a bad stream: nothing written" test ! -e out.txt
for cmd in verify complete count; do
  run timeout 120 "$NQC" $cmd /dev/zero
  expect_exit 1 "$cmd /dev/zero (a device by name)"
  expect_stderr_line "nqc: error: /dev/zero:$nul_line" "$cmd /dev/zero: the first bad byte, named, with its line"
done
run timeout 120 bash -c "'$NQC' verify - </dev/zero"
expect_stderr_line "nqc: error: <stdin>:$nul_line" "verify - </dev/zero: the same, named <stdin>"
run timeout 120 bash -c "set -o pipefail; head -c 1G /dev/urandom | '$NQC' verify -; echo \"writer \${PIPESTATUS[0]} nqc \${PIPESTATUS[1]}\" >&2"
check "verify - from a pipe of random bytes: one line for its first bad token, exit 1, the writer stopped (got: $(head -c 300 "$ERR_FILE" | tr '\n' '|'))" \
  bash -c "[ \$(wc -l <'$ERR_FILE') -eq 2 ] && head -n 1 '$ERR_FILE' | grep -qE '^nqc: error: <stdin>:[0-9]+: row [0-9]+: expected an integer 0\.\.n, got .+' && tail -n 1 '$ERR_FILE' | grep -qx 'writer 141 nqc 1'"
# Binary: read up to 24 + 4n bytes and one more.
header() {  # N: a binary header for n = N (magic, version 1, flags 0, n; little-endian)
  printf '\211NQC\r\n\032\n\001\000\000\000\000\000\000\000'
  "$PY" -c "import struct, sys; sys.stdout.buffer.write(struct.pack('<Q', $1))"
}
header 10 >h10.bin
header 100000 >h100k.bin
stream_stops "a binary header for n = 10, then NUL bytes" \
  "<stdin>: trailing data: header says n = 10 (24 + 4n = 64 bytes), the file has at least 65 bytes" \
  "cat h10.bin /dev/zero" "'$NQC' verify -"
stream_stops "a binary header for n = 100000, then NUL bytes" \
  "<stdin>: trailing data: header says n = 100000 (24 + 4n = 400024 bytes), the file has at least 400025 bytes" \
  "cat h100k.bin /dev/zero" "'$NQC' verify -"
run bash -c "(cat h100k.bin; head -c 200000 /dev/zero) | '$NQC' verify -"
expect_stderr_line "nqc: error: <stdin>: truncated: header says n = 100000 (24 + 4n = 400024 bytes), the file has 200024 bytes" \
  "a binary stream that ends early: truncated, its size exact"
# HDF5: into memory up to the end its superblock gives, no further.
"$NQC" construct 300000 -o c300k.h5
"$NQC" construct 300000 -o c300k.bin
for f in c300k.h5 c300k.bin; do
  run bash -c "cat $f | '$NQC' verify -"
  expect_stdout_line "<stdin>: valid solution, n = 300000" "cat $f (1.2 MB, beyond a stream's first 64 KiB) | verify -"
done
run timeout 120 bash -c "set -o pipefail; cat c300k.h5 /dev/zero | '$NQC' verify -; echo \"writer \${PIPESTATUS[0]} nqc \${PIPESTATUS[1]}\" >&2"
expect_stdout_line "<stdin>: valid solution, n = 300000" "an HDF5 file on a pipe, then NUL bytes: read"
check "... and not read beyond the file's end: the writer stopped" test "$(cat "$ERR_FILE")" = "writer 141 nqc 0"
stream_stops "an HDF5 signature, then NUL bytes" "<stdin>: unreadable HDF5 composition: no superblock that gives the file's end" \
  "(printf '\211HDF\r\n\032\n'; cat /dev/zero)" "'$NQC' verify -"
# A superblock (version 0, 8-byte offsets) whose end-of-file address is 2^40.
printf '\211HDF\r\n\032\n\000\000\000\000\000\010\010\000\004\000\020\000\000\000\000\000' >huge.h5
printf '\000\000\000\000\000\000\000\000\377\377\377\377\377\377\377\377\000\000\000\000\000\001\000\000' >>huge.h5
stream_stops "an HDF5 superblock that gives 2^40 bytes" \
  "<stdin>: the HDF5 superblock gives the file 1099511627776 bytes, more than an HDF5 composition on a stream may have (17407 MiB)" \
  "cat huge.h5 /dev/zero" "'$NQC' verify -"
# Memory: a text through a pipe needs about its composition's 4n bytes (parsed as it arrives,
# not copied first: the text is 8.4 bytes a row), here with the verifier's own arrays.
n=20000000
run "$PY" -c "import resource, subprocess, sys
r = subprocess.run(['bash', '-c', sys.argv[1]])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, r.returncode)" \
  "'$NQC' construct $n -o - | '$NQC' verify - >/dev/null"
read -r peak code <"$OUT_FILE"
check "construct $n -o - | verify -: exit 0, peak memory $peak bytes < 4n + 64 MiB ($((4 * n + (64 << 20))))" \
  test "$code" = 0 -a "$peak" -lt $((4 * n + (64 << 20)))
# run reads its config and instance files by name (every rank does): a device or a FIFO is
# refused without being opened.
mkfifo fifo.json fifo.txt
for f in /dev/zero fifo.json; do
  run timeout 120 "$NQC" run "$f" -q
  expect_exit 1 "run $f (a device or a FIFO as the config)"
  expect_log_error "$f: cannot open: not a regular file" "run $f: refused, naming it"
done
for f in /dev/zero "$W/fifo.txt"; do
  printf '{"name": "inst", "engine": "auto", "instances": {"files": ["%s"]}}\n' "$f" >inst.json
  run timeout 120 "$NQC" run inst.json -o inst -q
  expect_exit 1 "run with instance file $f (a device or a FIFO)"
  expect_log_error "inst.json: /instances/files/0: $f: not a regular file or a directory" "... refused, naming it"
done
rm -f fifo.json fifo.txt h10.bin h100k.bin huge.h5 c300k.h5 c300k.bin

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

# Outputs that are not regular files: a symbolic link is followed (its target gets the file,
# the link stays), a FIFO and a device are written in place (never replaced by a regular file);
# a device that refuses the write (one like /dev/full: c 1 7) is exit 7, the node kept.
cd "$TMP" || exit 1
echo keep >target.txt && ln -sf target.txt link.txt
run "$NQC" construct 8 -o link.txt
expect_exit 0 "construct -o a symbolic link"
check "... the link is still a link to target.txt" test "$(readlink link.txt)" = target.txt
check "... its target holds the composition" grep -qF "# nqc composition: n = 8, k = 8" target.txt
ln -sf not-yet.txt dangling.txt
run "$NQC" construct 8 -o dangling.txt
expect_exit 0 "construct -o a dangling symbolic link"
check "... the link stays, and the file it names is made" test -L dangling.txt -a -f not-yet.txt
ln -sf loop-b loop-a && ln -sf loop-a loop-b
run "$NQC" construct 8 -o loop-a
expect_exit 1 "construct -o a symbolic-link loop"
expect_stderr_line "nqc: error: loop-a: cannot write: Too many levels of symbolic links" "... one line; the link is kept"
check "... loop-a is still a link" test -L loop-a
echo private >private.txt && chmod 600 private.txt
run "$NQC" construct 8 -o private.txt
check "a replaced file keeps its mode (600: got $(stat -c %a private.txt))" test "$(stat -c %a private.txt)" = 600
long=$(printf 'a%.0s' $(seq 1 250)).txt
echo old >"$long"
run "$NQC" construct 8 -o "$long"
expect_exit 0 "construct -o a 254-byte file name (its temporary name stays below NAME_MAX)"
rm -f fifo && mkfifo fifo
(cat fifo >fifo.out) &
run "$NQC" construct 8 -o fifo
wait
expect_exit 0 "construct -o a FIFO"
check "... the FIFO is still a FIFO" test -p fifo
check "... its reader got the composition" grep -qF "# nqc composition: n = 8, k = 8" fifo.out
if mknod -m 666 full-device c 1 7 2>/dev/null; then
  run "$NQC" construct 8 -o full-device
  expect_exit 7 "construct -o a full device"
  expect_stderr_line "nqc: error: full-device: cannot write: No space left on device" "... one line naming it"
  check "... the device node is still a character device" test -c full-device
  rm -f full-device
fi
cd - >/dev/null || exit 1

# No command above left a file named "-" (nor "./-" anywhere below the test's directory).
check "no file named '-' was written ($(find "$TMP" -name - | head -3))" test -z "$(find "$TMP" -name -)"
summary
