#!/usr/bin/env bash
# Installation and citation: `cmake --install` into a temporary prefix gives
# a working nqc (-V), the analysis package importable from outside the repository, bash
# completion that offers nqc's own subcommands and options, the man page (rendered, naming
# every subcommand), configs and documents; the Apptainer definition is checked for syntax
# (Apptainer is not packaged in Debian 12) and for its version label. The version is the
# project's (CMakeLists.txt) everywhere it appears.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR PYTHON
set -uo pipefail
BUILD=$1 SRC=$2 PY=$3
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PREFIX=$TMP/prefix

run cmake --install "$BUILD" --prefix "$PREFIX"
expect_exit 0 "cmake --install into a temporary prefix"
run "$PREFIX/bin/nqc" -V
expect_exit 0 "installed nqc -V"
check "nqc -V prints the project's version and the git revision: '$(cat "$OUT_FILE")'" \
  grep -qxE "nqc $(sed -n 's/^project(nqc VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt") \(git [^ ]+\)" "$OUT_FILE"
site=$(sed -n 's/^NQC_PYTHON_SITE:STRING=//p' "$BUILD/CMakeCache.txt")
check "the analysis package is installed" test -f "$PREFIX/$site/analysis/__main__.py"
version=$(sed -n 's/^project(nqc VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
run bash -c 'cd "$1" && PYTHONPATH="$2" "$3" -m analysis --version' _ "$TMP" "$PREFIX/$site" "$PY"
expect_exit 0 "python3 -m analysis --version from outside the repository"
expect_stdout_line "nqc-analysis $version" "python3 -m analysis --version: the project's version"
check "... is the installed package" grep -q "$PREFIX" <<<"$(cd "$TMP" && PYTHONPATH="$PREFIX/$site" "$PY" -c 'import analysis; print(analysis.__file__)')"
check "configs installed" test -f "$PREFIX/share/nqc/configs/ci.json"
for f in README.md LICENSE CITATION.cff docs/cli.md docs/REFERENCES.md; do check "$f installed" test -f "$PREFIX/share/doc/nqc/$f"; done

# Completion: the subcommands and options come from nqc's --help.
comp=$PREFIX/share/bash-completion/completions/nqc
check "bash completion installed" test -f "$comp"
words=$(bash -c 'source "$1"; COMP_WORDS=("$2" co); COMP_CWORD=1; _nqc; echo "${COMPREPLY[*]}"' _ "$comp" "$PREFIX/bin/nqc")
check "completion of 'nqc co': construct convert complete count (got '$words')" test "$words" = "construct convert complete count"
words=$(bash -c 'source "$1"; COMP_WORDS=("$2" complete --max); COMP_CWORD=2; _nqc; echo "${COMPREPLY[*]}"' _ "$comp" "$PREFIX/bin/nqc")
check "completion of 'nqc complete --max': --max-nodes (got '$words')" test "$words" = "--max-nodes"
# Option values from the same help: the engines listed under -e, a {set} (--log-level).
words=$(bash -c 'source "$1"; COMP_WORDS=("$2" complete -e ""); COMP_CWORD=3; _nqc; echo "${COMPREPLY[*]}"' _ "$comp" "$PREFIX/bin/nqc")
check "completion of 'nqc complete -e ': the engines (got '$words')" test "$words" = "auto bitboard exact grigoryan minconflicts sat"
words=$(bash -c 'source "$1"; COMP_WORDS=("$2" run --log-level w); COMP_CWORD=3; _nqc; echo "${COMPREPLY[*]}"' _ "$comp" "$PREFIX/bin/nqc")
check "completion of 'nqc run --log-level w': warn (got '$words')" test "$words" = "warn"

# The man page (cmake/man_page.sh, help2man): installed, rendered by man and groff without a
# warning, with the project's version, and a section for every subcommand `nqc --help` lists.
page=$PREFIX/share/man/man1/nqc.1
check "man page installed (share/man/man1/nqc.1)" test -f "$page"
run groff -man -Tutf8 -ww -z "$page"
check "groff renders the man page without warnings ($(head -c 300 "$ERR_FILE"))" test "$RC" -eq 0 -a ! -s "$ERR_FILE"
run env MANWIDTH=100 man -l "$page"
expect_exit 0 "man -l renders the installed page"
expect_stdout_line "       nqc - n-Queens Completion at cluster scale" "man page: NAME"
check "man page: the footer names version $version" grep -qE "^nqc $version +[A-Z][a-z]+ [0-9]{4} +NQC\(1\)$" "$OUT_FILE"
subcommands=$("$PREFIX/bin/nqc" --help | awk '/^Subcommands:/ { on = 1; next } /^[A-Za-z]/ { on = 0 } on && /^  [a-z]/ { print $1 }')
check "nqc --help lists subcommands ($(echo $subcommands))" test "$(wc -w <<<"$subcommands")" -ge 14
for sub in $subcommands; do
  expect_stdout_line "   nqc $sub" "man page: a section for subcommand $sub"
  usage=$("$PREFIX/bin/nqc" "$sub" --help | grep -m1 '^Usage: ' | sed "s|^Usage: [^ ]*nqc |Usage: nqc |")
  expect_stdout_line "       $usage" "man page: $sub's usage line ($usage)"
done

# CITATION.cff: the fields GitHub and Zenodo read.
for key in cff-version message title version authors license; do
  check "CITATION.cff has $key" grep -q "^$key:" "$SRC/CITATION.cff"
done
check "CITATION.cff version equals the project's" grep -q "^version: $(sed -n 's/^project(nqc VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")$" "$SRC/CITATION.cff"

# The Apptainer definition: header, known sections, shell bodies that parse, files it uses.
def=$SRC/scripts/nqc.def
check "nqc.def: Bootstrap: docker" grep -q '^Bootstrap: docker$' "$def"
check "nqc.def: From: debian:12" grep -q '^From: debian:12$' "$def"
bad=$(grep -o '^%[a-z]*' "$def" | grep -v -x -E '%(files|post|environment|runscript|test|labels|help|setup|startscript)' || true)
check "nqc.def: only Apptainer's sections (unknown: '$bad')" test -z "$bad"
for section in post environment runscript test; do
  awk -v s="%$section" '$0 == s { on = 1; next } /^%/ { on = 0 } on' "$def" >"$TMP/$section.sh"
  check "nqc.def: %$section is valid shell" bash -n "$TMP/$section.sh"
done
# The image's version label comes from the nqc it built (no version typed into nqc.def).
check "nqc.def: no Version written in %labels" bash -c "! awk '/^%labels/ { on = 1; next } /^%/ { on = 0 } on' '$def' | grep -qi version"
label=$(grep -F 'APPTAINER_LABELS' "$def" | sed "s|/usr/local/bin/nqc|$PREFIX/bin/nqc|")
APPTAINER_LABELS=$TMP/labels sh -c "$label"
check "nqc.def: %post labels the image 'Version $version' (got '$(cat "$TMP/labels" 2>/dev/null)')" \
  test "$(cat "$TMP/labels" 2>/dev/null)" = "Version $version"
check "nqc.def: the setup it calls exists" test -f "$SRC/scripts/setup.sh"
check "nqc.def: setup.sh has the packages-only switch" grep -q 'NQC_SETUP_PACKAGES_ONLY' "$SRC/scripts/setup.sh"
summary
