# shellcheck shell=bash
# The sanitizers' and libFuzzer's options for every run of a fuzz target (sourced by run.sh
# and replay.sh; one place). A single allocation above 1 GiB fails (std::bad_alloc, which the
# targets accept: a board of 2^31 - 1 rows is valid input) instead of exhausting a shared
# machine; -rss_limit_mb stops the process at 2 GiB resident; -timeout: one input may take 20 s.
# lsan.supp: the leaks of the HDF5 library itself on damaged files.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1:abort_on_error=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
FUZZ_FLAGS=(-rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=20)
# The targets' input files (fuzz_common.hpp) in a directory of this run, removed at its end.
FUZZ_TMP=$(mktemp -d "${TMPDIR:-/dev/shm}/nqc-fuzz.XXXXXX")
trap 'rm -rf "$FUZZ_TMP"' EXIT
export TMPDIR=$FUZZ_TMP
