# bash completion for nqc. The subcommands and options come from nqc's own --help (CLI11),
# so they never drift from the program: nothing is listed here by hand.
# Installed by `cmake --install` as share/bash-completion/completions/nqc; or: source this file.

# The words of a CLI11 help text's Subcommands: or Options: section that start with "-" or a
# lower-case name.
_nqc_help_words() {
  "$1" "${@:2}" --help 2>/dev/null | awk '
    /^Subcommands:/ { mode = "sub"; next }
    /^Options:/ { mode = "opt"; next }
    /^[A-Za-z]/ { mode = "" }
    mode == "sub" && /^  [a-z]/ { print $1 }
    mode == "opt" && /^  -/ { n = split($1, names, ","); for (i = 1; i <= n; i++) print names[i] }'
}

_nqc() {
  local cur=${COMP_WORDS[COMP_CWORD]} nqc=${COMP_WORDS[0]} sub="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} != -* ]]; then sub=${COMP_WORDS[i]}; break; fi
  done
  if [[ -z $sub ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_nqc_help_words "$nqc")" -- "$cur")
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_nqc_help_words "$nqc" "$sub")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -o filenames -F _nqc nqc
