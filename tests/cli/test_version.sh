#!/usr/bin/env bash
# The version stamp (cmake/write_version_header.cmake, nqc/version.hpp): in a scratch git
# repository, the header names HEAD's commit, gains "-dirty" once a tracked file changes (not
# for an untracked one), says "unknown" outside a checkout (a source tarball, also one
# unpacked inside another repository), and is left untouched when its text would not change;
# the built nqc -V prints this source's HEAD, and its result files carry the same revision.
# Usage: test_version.sh NQC SOURCE_DIR PYTHON CONFIG
set -u
NQC=$(realpath "$1")
SRC=$(realpath "$2")
PY=$3
CONFIG=$(realpath "$4")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$HERE/lib.sh"
SCRIPT=$SRC/cmake/write_version_header.cmake
VERSION=$(sed -n 's/^project(nqc VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")

# stamp DIR: runs the script on DIR into $TMP/version.hpp; prints NQC_GIT_REVISION's value.
stamp() {
  cmake -DSOURCE_DIR="$1" -DOUTPUT="$TMP/version.hpp" -DVERSION=9.8.7 -P "$SCRIPT" >/dev/null
  sed -n 's/^#define NQC_GIT_REVISION "\(.*\)"$/\1/p' "$TMP/version.hpp"
}

repo=$TMP/repo
mkdir -p "$repo" && git -C "$repo" init -q && echo one >"$repo/tracked.txt"
git -C "$repo" add tracked.txt && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm one
head=$(git -C "$repo" rev-parse --short=12 HEAD)
got=$(stamp "$repo")
check "a clean checkout: the revision is HEAD's 12-digit commit ($got)" test "$got" = "$head"
check "... NQC_GIT_DIRTY 0" grep -qx '#define NQC_GIT_DIRTY 0' "$TMP/version.hpp"
check "... NQC_VERSION as given" grep -qx '#define NQC_VERSION "9.8.7"' "$TMP/version.hpp"
before=$(stat -c %y "$TMP/version.hpp")
sleep 0.05
stamp "$repo" >/dev/null
check "an unchanged stamp leaves the header's time alone (nothing recompiles)" test "$(stat -c %y "$TMP/version.hpp")" = "$before"
echo new >"$repo/untracked.txt"
got=$(stamp "$repo")
check "an untracked file is not dirty ($got)" test "$got" = "$head"
echo two >>"$repo/tracked.txt"
got=$(stamp "$repo")
check "a tracked file changed: the revision carries -dirty ($got)" test "$got" = "$head-dirty"
check "... NQC_GIT_DIRTY 1" grep -qx '#define NQC_GIT_DIRTY 1' "$TMP/version.hpp"
git -C "$repo" add tracked.txt
got=$(stamp "$repo")
check "a staged change is dirty too ($got)" test "$got" = "$head-dirty"
mkdir -p "$TMP/tarball" "$repo/unpacked"
got=$(stamp "$TMP/tarball")
check "outside a git checkout: unknown ($got)" test "$got" = unknown
got=$(stamp "$repo/unpacked")
check "a source tree inside another repository is not that repository's ($got)" test "$got" = unknown

# The built nqc: this source's HEAD (a git checkout; skipped in a tarball's build).
run "$NQC" -V
expect_exit 0 "nqc -V"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
  src_head=$(git -C "$SRC" rev-parse --short=12 HEAD)
  check "nqc -V prints this checkout's HEAD $src_head: '$(cat "$OUT_FILE")'" grep -qxE "nqc $VERSION \(git $src_head(-dirty)?\)" "$OUT_FILE"
fi
revision=$(sed -n 's/^nqc .* (git \(.*\))$/\1/p' "$OUT_FILE")
run "$NQC" run "$CONFIG" -o "$TMP/results" -q
expect_exit 0 "nqc run $(basename "$CONFIG")"
stored=$("$PY" -c 'import h5py, sys; print(h5py.File(sys.argv[1]).attrs["git_revision"])' "$TMP/results/results.h5")
check "the result file's git_revision is nqc -V's ($stored)" test "$stored" = "$revision"
summary
