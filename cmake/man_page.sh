#!/usr/bin/env bash
# Writes the man page nqc.1 with help2man from nqc's own --help and -V, so that it never drifts
# from the program: NAME and SYNOPSIS from `nqc --help`, the version from `nqc -V`, and a
# SUBCOMMANDS section holding the --help of every subcommand that `nqc --help` lists.
# Run by the build (src/cli/CMakeLists.txt); installed as share/man/man1/nqc.1.
# Usage: man_page.sh NQC OUT [HELP2MAN]
set -euo pipefail
nqc=$1 out=$2 help2man=${3:-help2man}
# Run as plain `nqc` (CLI11's usage lines show argv[0], not the build directory's path).
PATH="$(cd "$(dirname "$nqc")" && pwd):$PATH"
export PATH
include=$(mktemp)
trap 'rm -f "$include"' EXIT

# Text as roff shows it verbatim: a backslash as \e, a leading . or ' not a request.
verbatim() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }
# The subcommands, as the bash completion finds them (scripts/nqc-completion.bash).
subcommands=$(nqc --help | awk '/^Subcommands:/ { on = 1; next } /^[A-Za-z]/ { on = 0 } on && /^  [a-z]/ { print $1 }')
[[ -n $subcommands ]] || { echo "man_page.sh: nqc --help lists no subcommands" >&2; exit 1; }
version=$(nqc -V | awk 'NR == 1 { print $2 }')
{
  echo "[SUBCOMMANDS]"
  echo "Each subcommand's own --help (nqc SUBCOMMAND --help prints the same):"
  for s in $subcommands; do
    echo ".SS \"nqc $s\""
    echo ".nf"
    nqc "$s" --help | verbatim
    echo ".fi"
  done
  cat <<'ROFF'
[FILES]
A file name \fB\-\fR is standard output for every option that writes a file (the text that
goes with it, a summary or a table, then goes to standard error), and standard input for every
argument that reads a composition or a CSPLib .param file. Options that name a directory or a
result file refuse \fB\-\fR.
[SEE ALSO]
README.md and the reference in docs/ (docs/cli.md: the subcommands; docs/REFERENCES.md: the works cited)
in nqc's documentation directory (share/doc/nqc), and
/usr/bin/python3 \-m analysis \-\-help for the analysis of result files.
ROFF
} >"$include"
"$help2man" --no-info --version-string="$version" --name="n-Queens Completion at cluster scale" \
  --include="$include" --output="$out.tmp" nqc
mv "$out.tmp" "$out"
