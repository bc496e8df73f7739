#!/bin/sh
# test_man.sh -- the manual page and the help of the command agree: every
# command of 'attnflow --help' has a section of man/attnflow.1, every
# option listed by 'attnflow COMMAND --help' is documented there, 'attnflow help
# COMMAND' and 'attnflow COMMAND -h' print the same as '--help', bash
# completion reads them, and both pages format without warnings (groff).
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
AF="$top_builddir/attnflow"
man1="$top_srcdir/man/attnflow.1"
man3="$top_srcdir/man/libattnflow.3"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/af-man.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }

cmds=$("$AF" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 {print $1}')
[ -n "$cmds" ] && ok "attnflow --help lists commands: $(echo $cmds)" || bad "no commands in attnflow --help"
for c in $cmds; do
  grep -q "^\.SS $c\$" "$man1" && ok "man attnflow: section $c" || bad "man attnflow: no section for command $c"
  "$AF" "$c" --help > "$tmp/long" 2>&1
  "$AF" help "$c" > "$tmp/help" 2>&1
  "$AF" "$c" -h > "$tmp/short" 2>&1
  if [ -s "$tmp/long" ] && cmp -s "$tmp/long" "$tmp/help" && cmp -s "$tmp/long" "$tmp/short"; then
    ok "attnflow help $c = $c -h = $c --help"
  else
    bad "attnflow help $c, $c -h and $c --help differ"
  fi
  missing=
  for o in $(grep -o -e '^ *--[a-z][a-z-]*' "$tmp/long" | sort -u); do
    [ "$o" = --help ] && continue
    esc=$(echo "$o" | sed 's/-/\\\\-/g')
    grep -q -e "$esc" "$man1" || missing="$missing $o"
  done
  [ -z "$missing" ] && ok "man attnflow: every option of $c" || bad "man attnflow: $c options missing:$missing"
done
"$AF" help nosuchcommand > /dev/null 2> "$tmp/err"
st=$?
[ "$st" -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "help of an unknown command: one line, status 2" || bad "help nosuchcommand: status $st"

# Bash completion (completion/attnflow.bash) reads the same help.
if command -v bash > /dev/null 2>&1; then
  got=$(bash -c '. "$1/completion/attnflow.bash"; COMP_WORDS=("$2" run --sch); COMP_CWORD=2; _attnflow
    a=${COMPREPLY[*]}; COMP_WORDS=("$2" run --scheme pe); COMP_CWORD=3; _attnflow
    echo "$a|${COMPREPLY[*]}"' sh "$top_srcdir" "$AF")
  [ "$got" = "--scheme --scheme-def|peri-ln" ] && ok "bash completion: run --sch, --scheme pe" || bad "bash completion gives '$got'"
fi

if command -v groff > /dev/null 2>&1; then
  for page in "$man1" "$man3"; do
    if groff -man -Tutf8 -ww -z "$page" 2> "$tmp/groff" && [ ! -s "$tmp/groff" ]; then
      ok "groff formats $(basename "$page") without warnings"
    else
      bad "groff warns on $(basename "$page"): $(head -n 3 "$tmp/groff")"
    fi
  done
else
  echo "ok - groff formatting # SKIP groff not installed"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
