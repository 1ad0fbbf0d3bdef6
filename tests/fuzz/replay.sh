#!/usr/bin/env bash
# Runs a fuzz target once on every file of the given directories (libFuzzer's replay: files
# as arguments), under the sanitizers' options of run.sh; exits non-zero at the first finding.
# Usage: replay.sh FUZZER DIR...
set -euo pipefail
fuzzer=$1
shift
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=options.sh
source "$HERE/options.sh"
files=()
for dir in "$@"; do
  [ -d "$dir" ] || continue
  while IFS= read -r -d '' f; do files+=("$f"); done < <(find "$dir" -type f ! -name README.md -print0 | sort -z)
done
echo "$(basename "$fuzzer"): replaying ${#files[@]} inputs"
[ ${#files[@]} -gt 0 ] || exit 0
"$fuzzer" "${FUZZ_FLAGS[@]}" "${files[@]}" 2>"${TMPDIR:-/tmp}/replay.$$.log" || {
  cat "${TMPDIR:-/tmp}/replay.$$.log" >&2
  rm -f "${TMPDIR:-/tmp}/replay.$$.log"
  exit 1
}
grep -c '^Executed ' "${TMPDIR:-/tmp}/replay.$$.log" | sed 's/^/executed: /'
rm -f "${TMPDIR:-/tmp}/replay.$$.log"
