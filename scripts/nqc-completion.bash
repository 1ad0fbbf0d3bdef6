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

# The values an option takes, from the same help text: a "TYPE:{a,b,c}" set (--log-level), or
# the "name: summary" lines listed under it ("-e,--engine TEXT=auto  engine, one of:").
_nqc_option_values() {
  local opt=$1
  "${@:2}" --help 2>/dev/null | awk -v opt="$opt" '
    function named(line,   n, names, i, first) {
      split(line, first, " "); n = split(first[1], names, ",")
      for (i = 1; i <= n; i++) if (names[i] == opt) return 1
      return 0
    }
    /^  -/ { if (on) exit; on = named($0); if (on && match($0, /:\{[^}]*\}/)) {
               n = split(substr($0, RSTART + 2, RLENGTH - 3), v, ","); for (i = 1; i <= n; i++) print v[i]; exit } next }
    on && /^                               +[a-z][a-z0-9_]*: / { sub(/^ +/, ""); sub(/:.*/, ""); print; next }
    on && /^                              / { next }
    on { exit }'
}

_nqc() {
  local cur=${COMP_WORDS[COMP_CWORD]} nqc=${COMP_WORDS[0]} sub="" i values
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} != -* ]]; then sub=${COMP_WORDS[i]}; break; fi
  done
  if ((COMP_CWORD > 1)) && [[ ${COMP_WORDS[COMP_CWORD - 1]} == -* ]]; then
    values=$(_nqc_option_values "${COMP_WORDS[COMP_CWORD - 1]}" "$nqc" ${sub:+"$sub"})
    if [[ -n $values ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
      return
    fi
  fi
  if [[ -z $sub ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_nqc_help_words "$nqc")" -- "$cur")
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_nqc_help_words "$nqc" "$sub")" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -o filenames -F _nqc nqc
