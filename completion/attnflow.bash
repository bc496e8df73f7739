# attnflow.bash -- bash completion of the attnflow command (installed into
# the bash-completion directory by make install).  Commands and options
# are read from the program itself ('attnflow --help', 'attnflow CMD
# --help'), so they follow the program.

_attnflow()
{
  local cur prev cmd i
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  local prog=${COMP_WORDS[0]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    local cmds
    cmds=$("$prog" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
    COMPREPLY=($(compgen -W "$cmds help --help --version" -- "$cur"))
    return
  fi
  cmd=${COMP_WORDS[1]}
  if [ "$cmd" = help ]; then
    [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null |
      sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')" -- "$cur"))
    return
  fi
  case "$prev" in
    --scheme)
      COMPREPLY=($(compgen -W "$("$prog" schemes 2>/dev/null | awk 'NR > 1 && NF && $1 != "Predecessor" {print $1}')" -- "$cur"))
      return ;;
    --method)
      COMPREPLY=($(compgen -W "rk8pd rkf45 rk4 rkck msadams layers vern9 mp-gauss mp-gbs" -- "$cur")); return ;;
    --methods)
      COMPREPLY=($(compgen -W "rk8pd,vern9,rkf45,rkck,rk4,msadams,layers rk8pd vern9 rkf45 rkck rk4 msadams layers" -- "$cur")); return ;;
    --init)
      COMPREPLY=($(compgen -W "uniform gaussian orthonormal cap: hemisphere file:" -- "$cur")); return ;;
    --format)
      COMPREPLY=($(compgen -W "csv jsonl hex" -- "$cur")); return ;;
    --kernel)
      COMPREPLY=($(compgen -W "blas direct tiled" -- "$cur")); return ;;
    --attention)
      COMPREPLY=($(compgen -W "softmax usa causal" -- "$cur")); return ;;
    --weights)
      COMPREPLY=($(compgen -W "identity kaiming" -- "$cur") $(compgen -f -- "$cur")); return ;;
    --level)
      COMPREPLY=($(compgen -W "quick full" -- "$cur")); return ;;
    --inject-fault)
      COMPREPLY=($(compgen -W "speed radial attention" -- "$cur")); return ;;
    --out|--save-state|--json|--markdown|--tolerances|--checkpoint|--resume|--scheme-def)
      COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --write-certified)
      COMPREPLY=($(compgen -d -- "$cur")); return ;;
  esac
  if [ "$cmd" = figure ] && [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
    COMPREPLY=($(compgen -W "$("$prog" figure --list 2>/dev/null | awk '{print $1}')" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W "$("$prog" "$cmd" --help 2>/dev/null | grep -o -e '^ *--[a-z][a-z-]*' | tr -d ' ')" -- "$cur"))
}
complete -F _attnflow attnflow
