#!/usr/bin/env bash
# Start-up (docs/cli.md, "Start-up"): nqc needs the C and C++ runtimes only. No MPI (count and run
# are nqc-mpi's, which nqc becomes), no shared HDF5 and with it no libcurl, TLS or Kerberos,
# no spdlog: the libraries that cost 10 to 15 ms at every start before. Checked on the ELF
# files and on what the loader loads, never on the clock: the same on any machine.
# Usage: test_startup_libraries.sh NQC NQC_MPI SOURCE_DIR
set -uo pipefail
NQC=$1 NQC_MPI=$2 SRC=$3
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# What nqc may load: glibc's and GCC's runtime libraries (and a sanitizer build's runtime).
allowed='^(ld-linux[-a-z0-9_.]*\.so\.[0-9]+|lib(c|m|dl|rt|pthread|resolv|util|stdc\+\+|gcc_s|asan|ubsan)\.so(\.[0-9]+)*|linux-vdso\.so\.1)$'
not_allowed() { grep -vE "$allowed" || true; }

# 1. The libraries named in nqc's ELF (NEEDED), and the whole set the loader maps at start.
needed=$(readelf -d "$NQC" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p')
check "nqc names libraries to load (readelf works: '$(echo $needed)')" test -n "$needed"
bad=$(not_allowed <<<"$needed")
check "nqc's NEEDED: the C and C++ runtimes only (not: '$(echo $bad)')" test -z "$bad"
loaded=$(ldd "$NQC" | awk '{ n = $1; sub(".*/", "", n); print n }')
bad=$(not_allowed <<<"$loaded")
check "nqc's libraries at start (ldd, $(wc -l <<<"$loaded")): the runtimes only (not: '$(echo $bad)')" test -z "$bad"
check "nqc has no RPATH/RUNPATH (nothing to search: $(readelf -d "$NQC" | grep -E 'R(UN)?PATH' | sed 's/.*: //'))" \
  bash -c "! readelf -d '$NQC' | grep -qE '\((RPATH|RUNPATH)\)'"

# 2. What `nqc complete` loads while it runs (dlopen included): a CSPLib instance, a text and
#    an HDF5 composition (HDF5 is linked in statically).
param=$TMP/diag-10-4-1.param
tar -xzOf "$SRC/tests/data/csplib-prob079/diag-10.tar.gz" diag-10/diag-10-4-1.param >"$param"
run "$NQC" construct 8 -o "$TMP/s8.txt"
expect_exit 0 "nqc construct 8"
run "$NQC" derive "$TMP/s8.txt" -k 4 --seed 1 -o "$TMP/c8.txt"
expect_exit 0 "nqc derive"
run "$NQC" convert "$TMP/c8.txt" "$TMP/c8.h5"
expect_exit 0 "nqc convert to HDF5"
for input in "$param --diags 6" "$TMP/c8.txt" "$TMP/c8.h5"; do
  # shellcheck disable=SC2086  # the instance and its options
  LD_DEBUG=files "$NQC" complete $input >"$OUT_FILE" 2>"$ERR_FILE"
  RC=$?
  check "nqc complete $(basename "${input%% *}") ran (exit $RC)" test "$RC" -eq 0
  files=$(sed -n 's/.*file=\([^ ]*\) .*\[0\];.*/\1/p' "$ERR_FILE" | sed 's|.*/||' | sort -u)
  check "... and the loader saw its libraries ($(echo $files))" test -n "$files"
  bad=$(not_allowed <<<"$files")
  check "... the runtimes only (not: '$(echo $bad)')" test -z "$bad"
done

# 3. count and run: nqc-mpi's, which links MPI (its C API only: no libmpi_cxx) and HDF5
#    statically too.
needed_mpi=$(readelf -d "$NQC_MPI" | sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p')
check "nqc-mpi links MPI ($(echo $needed_mpi))" grep -q '^libmpi\.so' <<<"$needed_mpi"
check "nqc-mpi: without MPI's C++ bindings (libmpi_cxx)" bash -c "! grep -q '^libmpi_cxx' <<<'$needed_mpi'"
check "nqc-mpi: without libcurl or a shared HDF5 at start (ldd)" \
  bash -c "! ldd '$NQC_MPI' | grep -qE 'libcurl|libhdf5'"
check "nqc-mpi is beside nqc (where a build directory's nqc finds it)" test "$(dirname "$NQC")/nqc-mpi" -ef "$NQC_MPI"
run "$NQC" count 6
expect_exit 0 "nqc count 6 (handed over to nqc-mpi)"
expect_stdout_line "completions: 4" "nqc count 6: Q(6) = 4"
run "$NQC" run --help
expect_exit 0 "nqc run --help (nqc-mpi's help)"
expect_stdout_contains "--resume" "nqc run --help lists run's options"
run "$NQC" --help
for sub in count run complete; do
  check "nqc --help lists $sub" grep -qE "^  $sub +[A-Z]" "$OUT_FILE"
done

# 4. A copy of nqc elsewhere (a user's shared directory): complete needs nothing beside it, and
#    count still finds an nqc-mpi (the one built with it: cli/front_end.cpp).
mkdir "$TMP/alone"
cp "$NQC" "$TMP/alone/nqc"
run "$TMP/alone/nqc" complete "$param" --diags 6
expect_exit 0 "a copy of nqc: complete"
run "$TMP/alone/nqc" count 6
expect_exit 0 "a copy of nqc: count (through the nqc-mpi it was built with)"
expect_stdout_line "completions: 4" "a copy of nqc: count 6 = 4"
summary
