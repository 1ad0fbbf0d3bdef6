#!/usr/bin/env bash
# Composition formats side by side, in one run at n = 10^8 (N below): the
# solution of `nqc construct N` written as text, binary and HDF5; then, best (and median) of
# R runs each, files in the page cache: `wc -l` on the text file, the text parse alone
# (`nqc verify --timing`: read_s), `nqc verify` (whole process) on each format with its read
# and check seconds and peak memory, and `nqc convert` between the formats. Prints a
# Markdown table and the two targets: verify from binary <= 1 s (whole process), text parse
# <= 3x `wc -l`. Also the text parse repeated within one process (build/bench/nqc_bench_formats:
# memory the process already had, so no first-touch cost of the 4n-byte result).
# Usage: bench/formats.sh [BUILD_DIR] [--n N] [--repeats R] [--dir DIR (default: a temporary directory; needs ~4 GB at 10^8)]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=build
N=100000000
R=5
DIR=
while [ $# -gt 0 ]; do
  case $1 in
    --n) N=$2; shift ;;
    --repeats) R=$2; shift ;;
    --dir) DIR=$2; shift ;;
    -*) echo "formats.sh: unknown option $1" >&2; exit 1 ;;
    *) BUILD=$1 ;;
  esac
  shift
done
NQC=$BUILD/src/cli/nqc
BENCH=$BUILD/bench/nqc_bench_formats
if [ -z "$DIR" ]; then
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/nqc-formats-bench.XXXXXX")
  trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR"
F=$DIR/s

now() { echo "${EPOCHREALTIME/,/.}"; }
# once NAME CMD...: runs CMD once, records its wall seconds in W[NAME] (appended) and its
# peak RSS (KB) in M[NAME]; stderr kept in $DIR/err for read_s / check_s.
declare -A W M READ CHECK
once() {
  local name=$1 t0 t1
  shift
  t0=$(now)
  /usr/bin/time -f %M -o "$DIR/rss" "$@" >/dev/null 2>"$DIR/err"
  t1=$(now)
  W[$name]+="$(echo "$t1 - $t0" | bc -l) "
  M[$name]=$(tail -n 1 "$DIR/rss")
  READ[$name]+="$(sed -n 's/^read_s: //p' "$DIR/err") "
  CHECK[$name]+="$(sed -n 's/^check_s: //p' "$DIR/err") "
}
# best VALUES / median VALUES of a space-separated list.
best() { tr ' ' '\n' <<<"$1" | awk NF | sort -g | head -n 1; }
median() { tr ' ' '\n' <<<"$1" | awk NF | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "# n = $N, best and median of $R runs, $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"
t0=$(now); "$NQC" construct "$N" -o "$F.txt"; t1=$(now)
echo "construct $N -o s.txt: $(echo "$t1 - $t0" | bc -l | xargs printf '%.2f') s"
"$NQC" convert "$F.txt" "$F.bin"
"$NQC" convert "$F.txt" "$F.h5"
sync
for _ in $(seq "$R"); do
  once "wc -l s.txt" wc -l "$F.txt"
  once "verify s.txt" "$NQC" verify --timing "$F.txt"
  once "verify s.bin" "$NQC" verify --timing "$F.bin"
  once "verify s.h5" "$NQC" verify --timing "$F.h5"
  # each output removed at once, so that its dirty pages do not slow the next write down
  for pair in "txt bin" "bin h5" "h5 txt" "bin txt" "txt h5"; do
    read -r from to <<<"$pair"
    once "convert s.$from s.$to" "$NQC" convert "$F.$from" "$DIR/out.$to"
    rm -f "$DIR/out.$to"
  done
done
inproc=$("$BENCH" "$F.txt" "$R" | sed -n 's/^read_s: //p')  # the same parse, repeated in one process
cmp -s "$F.txt" <("$NQC" convert "$F.h5" -) || { echo "formats.sh: HDF5 -> text differs from the text file" >&2; exit 1; }

wc_best=$(best "${W[wc -l s.txt]}")
parse_best=$(best "${READ[verify s.txt]}")
echo
echo "files: s.txt $(stat -c %s "$F.txt") bytes, s.bin $(stat -c %s "$F.bin") bytes, s.h5 $(stat -c %s "$F.h5") bytes"
echo
echo "| command | best s | median s | read s (best) | check s (best) | peak RSS MB | / wc -l |"
echo "|---|---:|---:|---:|---:|---:|---:|"
row() {  # NAME [TIME-LIST]: a table row
  local name=$1 list=${2:-${W[$1]}}
  local b m rd ck
  b=$(best "$list")
  m=$(median "$list")
  rd=$(best "${READ[$name]:-}")
  ck=$(best "${CHECK[$name]:-}")
  printf '| %s | %.3f | %.3f | %s | %s | %s | %.1f |\n' "$name" "$b" "$m" "${rd:--}" "${ck:--}" \
    "$(( ${M[$name]:-0} / 1024 ))" "$(echo "$b / $wc_best" | bc -l)"
}
row "wc -l s.txt"
printf '| text parse alone (verify s.txt: read_s) | %.3f | %.3f | | | | %.1f |\n' "$parse_best" "$(median "${READ[verify s.txt]}")" \
  "$(echo "$parse_best / $wc_best" | bc -l)"
printf '| text parse alone, in one process (nqc_bench_formats s.txt) | %.3f | | | | | %.1f |\n' "$inproc" "$(echo "$inproc / $wc_best" | bc -l)"
for name in "verify s.txt" "verify s.bin" "verify s.h5" "convert s.txt s.bin" "convert s.bin s.h5" "convert s.h5 s.txt" "convert s.bin s.txt" "convert s.txt s.h5"; do
  row "$name"
done
echo
bin_best=$(best "${W[verify s.bin]}")
ratio=$(echo "$parse_best / $wc_best" | bc -l)
printf 'target: verify from binary <= 1 s (whole process): %.3f s: %s\n' "$bin_best" "$( (( $(echo "$bin_best <= 1" | bc -l) )) && echo met || echo MISSED)"
printf 'target: text parse <= 3x wc -l: %.2fx: %s\n' "$ratio" "$( (( $(echo "$ratio <= 3" | bc -l) )) && echo met || echo MISSED)"
