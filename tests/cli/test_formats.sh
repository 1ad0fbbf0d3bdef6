#!/usr/bin/env bash
# Composition formats: `nqc convert` round trips text -> binary -> HDF5 -> text
# byte for byte (small n and n = 10^6), every command that takes a composition takes every
# format (chosen by content, also from stdin), writers choose by extension, and every bad
# binary or HDF5 file gives exit 1 and exactly one error line (asserted whole).
# Usage: test_formats.sh NQC PYTHON (PYTHON: Debian's python3 with python3-h5py)
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 NQC PYTHON" >&2
  exit 2
fi
NQC=$1
PY=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

# --- round trips ------------------------------------------------------------------------
# round_trip TEXT DESC: TEXT -> .bin -> .h5 -> .txt is byte-identical, and each file reads as
# the same composition.
round_trip() {
  local base=${1%.txt}
  run "$NQC" convert "$1" "$base.bin"
  expect_exit 0 "$2: convert text -> binary"
  run "$NQC" convert "$base.bin" "$base.h5"
  expect_exit 0 "$2: convert binary -> HDF5"
  run "$NQC" convert "$base.h5" "$base.back.txt"
  expect_exit 0 "$2: convert HDF5 -> text"
  check "$2: text -> binary -> HDF5 -> text is byte-identical" cmp -s "$1" "$base.back.txt"
}

"$NQC" construct 1 -o "$TMP/one.txt"
round_trip "$TMP/one.txt" "n = 1"
printf '0\n0\n5\n0\n4\n0\n0\n3\n0\n0\n' >"$TMP/empty-rows.txt"
"$NQC" convert "$TMP/empty-rows.txt" "$TMP/empty-rows.txt"  # the writer's header line, in place
round_trip "$TMP/empty-rows.txt" "a composition with empty rows"
"$NQC" construct 1000 -o "$TMP/s1000.txt"
round_trip "$TMP/s1000.txt" "a full solution, n = 1000"
"$NQC" derive "$TMP/s1000.txt" -k 300 --seed 5 -o "$TMP/d1000.txt"
round_trip "$TMP/d1000.txt" "a derived composition, n = 1000"
"$NQC" construct 1000000 -o "$TMP/big.txt"
"$NQC" derive "$TMP/big.txt" -k 600000 --seed 2 -o "$TMP/big.txt"
round_trip "$TMP/big.txt" "n = 10^6"
check "binary file size is 24 + 4n (n = 10^6)" test "$(stat -c %s "$TMP/big.bin")" = 4000024
check "binary header: magic, version 1, flags 0, n = 1000 (little-endian)" \
  test "$(head -c 24 "$TMP/s1000.bin" | od -An -tx1 | tr -d ' \n')" = "894e51430d0a1a0a0100000000000000e803000000000000"
check "HDF5: /composition is uint32 little-endian, chunked, with Fletcher32" "$PY" -c "
import h5py, sys
d = h5py.File(sys.argv[1])['composition']
sys.exit(not (d.dtype.str == '<u4' and d.chunks is not None and d.fletcher32 and d.shape == (1000,)))" "$TMP/s1000.h5"

# --to overrides the extension; - is standard output.
run "$NQC" convert "$TMP/s1000.txt" "$TMP/s1000.dat" --to binary
expect_exit 0 "convert --to binary (OUT without extension)"
check "convert --to binary: same bytes as the .bin" cmp -s "$TMP/s1000.dat" "$TMP/s1000.bin"
run "$NQC" convert "$TMP/s1000.bin" "$TMP/s1000.out.h5" --to text
check "convert --to text overrides .h5" cmp -s "$TMP/s1000.out.h5" "$TMP/s1000.txt"
run "$NQC" convert "$TMP/s1000.h5" -
check "convert to - writes text to stdout" cmp -s "$OUT_FILE" "$TMP/s1000.txt"
run "$NQC" convert "$TMP/s1000.h5" - --to binary
check "convert to - --to binary writes binary to stdout" cmp -s "$OUT_FILE" "$TMP/s1000.bin"
run "$NQC" convert "$TMP/s1000.txt" - --to hdf5
expect_exit 1 "convert to - --to hdf5"
expect_stderr_line "nqc: error: -: an HDF5 file cannot be written to standard output (name a file)" "convert to - --to hdf5: error line"
run "$NQC" convert "$TMP/s1000.txt" "$TMP/x" --to json
expect_exit 1 "convert --to json"
check "convert --to json: names the option" grep -qF -- "--to: json not in {text,binary,hdf5}" "$ERR_FILE"
run "$NQC" convert --help
expect_exit 0 "convert --help"
expect_stdout_contains "The formats: docs/formats.md." "convert --help points to the formats' layout"

# --- every command takes every format, found by content ---------------------------------
cp "$TMP/d1000.bin" "$TMP/binary-named.txt"
cp "$TMP/d1000.h5" "$TMP/hdf5-named.bin"
cp "$TMP/d1000.txt" "$TMP/text-named.h5"
for f in d1000.txt d1000.bin d1000.h5 binary-named.txt hdf5-named.bin text-named.h5; do
  run "$NQC" verify "$TMP/$f"
  expect_stdout_line "$TMP/$f: consistent composition, n = 1000, k = 300" "verify $f"
  run "$NQC" verify - <"$TMP/$f"
  expect_stdout_line "<stdin>: consistent composition, n = 1000, k = 300" "verify - <$f (stdin redirected from the file)"
done
for f in d1000.bin d1000.h5; do
  run bash -c "cat '$TMP/$f' | '$NQC' verify -"
  expect_stdout_line "<stdin>: consistent composition, n = 1000, k = 300" "cat $f | verify - (a pipe)"
done
for ext in txt bin h5; do
  run "$NQC" complete "$TMP/d1000.$ext" -o "$TMP/solved-$ext.$ext"
  expect_exit 0 "complete d1000.$ext -o solved.$ext"
  run "$NQC" verify "$TMP/solved-$ext.$ext"
  expect_stdout_line "$TMP/solved-$ext.$ext: valid solution, n = 1000" "complete -o solved.$ext: a full solution"
  run "$NQC" derive "$TMP/s1000.$ext" -k 10 --seed 9 -o "$TMP/derived-$ext.$ext"
  expect_exit 0 "derive from s1000.$ext -o derived.$ext"
  run "$NQC" convert "$TMP/derived-$ext.$ext" "$TMP/derived-$ext.cmp.txt"
  check "derive from s1000.$ext: the same composition as from text" \
    cmp -s "$TMP/derived-$ext.cmp.txt" "$TMP/derived-txt.txt"
done
check "complete -o: the .bin output is binary" test "$(head -c 4 "$TMP/solved-bin.bin" | od -An -c | tr -d ' ')" = "211NQC"
printf '2\n0\n0\n0\n' >"$TMP/q2-n4.txt"
"$NQC" convert "$TMP/q2-n4.txt" "$TMP/q2-n4.h5"
run "$NQC" count "$TMP/q2-n4.h5"
expect_stdout_line "completions: 1" "count an HDF5 composition"
"$NQC" construct 100000 -o "$TMP/c5.bin"
run "$NQC" construct 100000
check "construct -o c5.bin writes what construct prints" bash -c "'$NQC' convert '$TMP/c5.bin' - | cmp -s - '$OUT_FILE'"
run "$NQC" verify --timing "$TMP/c5.bin"
check "verify --timing: read_s and check_s on stderr" grep -qE '^check_s: [0-9.]+$' "$ERR_FILE"

# --- bad files: exit 1, one line ---------------------------------------------------------
# bad_file FILE MESSAGE DESC: verify and convert fail with exactly "nqc: error: MESSAGE".
bad_file() {
  run "$NQC" verify "$1"
  expect_exit 1 "verify: $3"
  expect_stderr_line "nqc: error: $2" "verify: $3: error line"
  run "$NQC" convert "$1" "$TMP/out.txt"
  expect_exit 1 "convert: $3"
  expect_stderr_line "nqc: error: $2" "convert: $3: error line"
}
# binary VERSION FLAGS N [VALUES...]: a binary composition's bytes on stdout (little-endian
# header fields, then uint32 values), written field by field.
binary() {
  "$PY" -c 'import struct, sys
a = [int(x) for x in sys.argv[1:]]
sys.stdout.buffer.write(b"\x89NQC\r\n\x1a\n" + struct.pack("<IIQ", *a[:3]) + struct.pack("<%dI" % len(a[3:]), *a[3:]))' "$@"
}
check "binary helper: its header is the writer's" cmp -s <(binary 1 0 1000) <(head -c 24 "$TMP/s1000.bin")
f=$TMP/truncated.bin
head -c 4000 "$TMP/s1000.bin" >"$f"
bad_file "$f" "$f: truncated: header says n = 1000 (24 + 4n = 4024 bytes), the file has 4000 bytes" "truncated binary file"
f=$TMP/longer.bin
{ cat "$TMP/s1000.bin"; printf '\0\0\0\0'; } >"$f"
bad_file "$f" "$f: trailing data: header says n = 1000 (24 + 4n = 4024 bytes), the file has 4028 bytes" "binary file longer than its header says"
f=$TMP/short-header.bin
head -c 12 "$TMP/s1000.bin" >"$f"
bad_file "$f" "$f: truncated: the binary header has 24 bytes, the file has 12 bytes" "binary header cut short"
f=$TMP/mangled.bin
{ printf '\x89NQC\n\x1a\n'; tail -c +8 "$TMP/s1000.bin"; } >"$f"  # CRLF -> LF, as a text-mode copy does
bad_file "$f" "$f: not an nqc binary composition: bad magic" "binary magic mangled by a text-mode copy"
f=$TMP/version.bin
binary 2 0 1 1 >"$f"
bad_file "$f" "$f: unsupported nqc binary version 2 (this nqc reads version 1)" "binary version 2"
f=$TMP/flags.bin
binary 1 4 1 1 >"$f"
bad_file "$f" "$f: unsupported nqc binary flags 0x00000004 (this nqc reads flags 0)" "binary flags not 0"
f=$TMP/n-zero.bin
binary 1 0 0 >"$f"
bad_file "$f" "$f: header n = 0 is out of range 1..2147483647" "binary n = 0"
f=$TMP/n-huge.bin
binary 1 0 2147483648 0 >"$f"
bad_file "$f" "$f: header n = 2147483648 is out of range 1..2147483647" "binary n = 2^31"
f=$TMP/above-n.bin
binary 1 0 4 0 2 5 0 >"$f"
bad_file "$f" "$f: row 3: value 5 is out of range 0..4" "binary value above n"
f=$TMP/column.bin
binary 1 0 4 2 0 0 2 >"$f"
bad_file "$f" "$f: rows 1 and 4: two queens on one column (column 2)" "binary: two queens on one column (no line numbers)"
f=$TMP/wrong-magic.bin
{ printf 'NQCB'; tail -c +5 "$TMP/s1000.bin"; } >"$f"
run "$NQC" verify "$f"
expect_exit 1 "a binary file with another magic is read as text"
check "another magic: the text parser names the bad token" grep -qF "nqc: error: $f:1: row 1: expected an integer 0..n, got 'NQCB" "$ERR_FILE"

# HDF5 files of the wrong shape, written with h5py.
# h5 FILE PYTHON-STATEMENTS [LIBVER]: writes FILE (f is the open file, np numpy) in HDF5's newest
# format (LIBVER latest), or in its original one (LIBVER earliest, h5py's default).
h5() {
  "$PY" -c "import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], 'w', libver='${3:-latest}')
$2
f.close()" "$1"
}
# bad_h5 NAME PYTHON-STATEMENTS MESSAGE DESC: the file written by the statements fails with
# "FILE: MESSAGE".
bad_h5() {
  h5 "$TMP/$1" "$2"
  bad_file "$TMP/$1" "$TMP/$1: $3" "$4"
}
bad_h5 no-dataset.h5 "f['values'] = np.array([0, 2, 0, 0], dtype='<u4')" \
  "no dataset /composition (an nqc HDF5 composition holds Q(1..n) in the 1-D integer dataset /composition)" "HDF5 without /composition"
bad_h5 rank2.h5 "f['composition'] = np.zeros((2, 2), dtype='<i4')" \
  "/composition has rank 2, expected rank 1 (the values Q(1..n))" "HDF5 dataset of rank 2"
bad_h5 float.h5 "f['composition'] = np.array([0.0, 2.0, 0.0, 0.0])" \
  "/composition holds floating-point values, expected integers" "HDF5 dataset of floats"
bad_h5 strings.h5 "f['composition'] = np.array([b'0', b'2'])" "/composition holds string values, expected integers" \
  "HDF5 dataset of strings"
bad_h5 empty.h5 "f.create_dataset('composition', shape=(0,), dtype='<i4')" "/composition is empty (n must be at least 1)" \
  "HDF5 dataset of length 0"
bad_h5 negative.h5 "f['composition'] = np.array([0, 2, -1, 0], dtype='<i8')" "row 3: value -1 is out of range 0..4" "HDF5 value -1"
bad_h5 group.h5 "f.create_group('composition')" \
  "unreadable HDF5 composition: cannot open dataset /composition: not a dataset (H5D__open_name(): not a dataset; called from H5Dopen2())" \
  "HDF5 /composition is a group"
f=$TMP/original-format.h5
h5 "$f" "f['composition'] = np.array([2, 4, 1, 3], dtype='<i4')" earliest
old_format="HDF5 composition in HDF5's original file format (superblock version 0, no checksums), which nqc does not read: rewrite it with 'h5repack -L IN OUT' or write it with h5py.File(..., libver='latest')"
bad_file "$f" "$f: $old_format" "HDF5 in the original format (h5py's default): refused, the way to rewrite it named"
run "$NQC" verify - <"$f"
expect_stderr_line "nqc: error: <stdin>: $old_format" "HDF5 in the original format from stdin: refused"
f=$TMP/int16.h5
h5 "$f" "f['composition'] = np.array([2, 4, 1, 3], dtype='>i2')"
run "$NQC" verify "$f"
expect_stdout_line "$f: valid solution, n = 4" "HDF5: any integer type (big-endian int16) is read"
f=$TMP/truncated.h5
head -c 3000 "$TMP/s1000.h5" >"$f"
bad_file "$f" "$f: unreadable HDF5 composition: truncated file (H5F__super_read(): truncated file; called from H5Fopen())" "truncated HDF5 file"
f=$TMP/damaged.h5
"$PY" -c "import h5py, sys
with h5py.File(sys.argv[1]) as h:
    at = h['composition'].id.get_chunk_info(0).byte_offset
b = bytearray(open(sys.argv[1], 'rb').read())
b[at + 100] ^= 0x40
open(sys.argv[2], 'wb').write(b)" "$TMP/s1000.h5" "$f"
bad_file "$f" "$f: unreadable HDF5 composition: cannot read /composition: data error detected by Fletcher32 checksum (H5Z__filter_fletcher32(): data error detected by Fletcher32 checksum; called from H5Dread())" \
  "HDF5 file with a damaged chunk (Fletcher32)"
run "$NQC" verify - <"$f"
expect_stderr_line "nqc: error: <stdin>: unreadable HDF5 composition: cannot read /composition: data error detected by Fletcher32 checksum (H5Z__filter_fletcher32(): data error detected by Fletcher32 checksum; called from H5Dread())" \
  "damaged HDF5 from stdin: named <stdin>"

# A converter does not pass inconsistent compositions on.
printf '2\n0\n0\n2\n' >"$TMP/column.txt"
run "$NQC" convert "$TMP/column.txt" "$TMP/column-out.bin"
expect_exit 1 "convert an inconsistent composition"
expect_stderr_line "nqc: error: $TMP/column.txt:4: rows 1 and 4: two queens on one column (column 2)" "convert: the conflict, with its line"
check "convert an inconsistent composition: nothing written" test ! -e "$TMP/column-out.bin"

summary
