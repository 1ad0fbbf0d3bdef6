#!/usr/bin/env bash
# The layout and lint of the sources: every tracked C++ file as clang-format lays it out
# (.clang-format), every Python file as black does (pyproject.toml), and flake8's checks
# (.flake8: syntax errors, undefined names, unused imports and variables) clean.
#   tests/format_check.sh [REPO]   (fix: clang-format -i FILES; black FILES)
set -uo pipefail
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}"
status=0
mapfile -t cpp < <(git ls-files '*.cpp' '*.hpp' '*.h' | grep -v '^tests/data/')
mapfile -t py < <(git ls-files '*.py'; echo jobs/submit)
if ! clang-format --dry-run -Werror --style=file "${cpp[@]}"; then
  echo "not ok - C++ layout: run clang-format -i on the files above"; status=1
else
  echo "ok - C++ layout (${#cpp[@]} files, clang-format $(clang-format --version | grep -o '[0-9][0-9.]*' | head -1))"
fi
if ! black --check -q "${py[@]}"; then
  echo "not ok - Python layout: run black on the files above"; status=1
else
  echo "ok - Python layout (${#py[@]} files, black)"
fi
if ! flake8 "${py[@]}"; then
  echo "not ok - flake8"; status=1
else
  echo "ok - flake8"
fi
exit $status
