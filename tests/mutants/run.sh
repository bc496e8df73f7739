#!/usr/bin/env bash
# run.sh -- mutation testing of 'attnflow verify --level quick'.
#
#   tests/mutants/run.sh [--jobs N] [--only GLOB,...] [--out DIR] [--keep]
#                        [--no-faults] [--report-only] [--doc PATH] [--full]
#                        [--catalogue FILE]
#
# Run from a built tree (make check-mutants builds it first; srcdir must be
# the build directory).  Each mutant of tests/mutants/catalogue.tsv (one
# line of src/, theory/, certified/ or proofs-numeric/ replaced, apply.awk) is applied to a copy of the built tree
# (cp -a keeps the objects, so make recompiles only what the line touches),
# one mutant per copy, N copies at a time (default 2).  For each mutant:
#
#   - the line must be found as the catalogue says (else: "stale"),
#   - the copy must build (else: "build-error"),
#   - some object file must change once debug information is stripped,
#     i.e. the mutant changes the compiled program (else: "no-change"),
#   - 'attnflow verify --level quick --json' must exit non-zero (else:
#     "SURVIVED"); the claims that caught it are those whose status differs
#     from the unmutated run's.
#
# The faults of 'attnflow verify --inject-fault speed|radial|attention'
# (the whole quick level, not --broken-only) are measured the same way on
# the unmutated tree.  --only runs the mutants matching the globs, in the
# order of the globs; --keep keeps the results of earlier runs in DIR (to
# run the catalogue in parts), --no-faults skips the faults, --report-only
# runs nothing and makes the tables from the results in DIR.  Writes into
# DIR (default mutants.out in the current directory): res/ (one result
# per mutant), mutants.tsv (mutant, description, result, caught-by),
# power.tsv (claim, breakers), report.md (both tables in Markdown); with
# --doc PATH also puts report.md into PATH between the lines
# "<!-- mutants -->" and "<!-- /mutants -->" (appended if absent).
# The tables cover every mutant of the catalogue with a result in DIR.
# Fast mode (the default, that of make check-mutants): each mutant's verify
# stops after its first claim with an unexpected outcome (environment
# ATTNFLOW_VERIFY_STOP_FIRST=1, proofs-numeric/verify.c), which decides
# caught or not as the whole run would; "caught by" then names that claim
# only, and the power table is partial (said in report.md).  --full (and
# --doc, which implies it) runs every claim for the complete tables.
# --catalogue FILE runs the mutants of FILE (same columns) instead of the
# project's catalogue, for example an independent catalogue written by
# someone who has not read this one; tests/mutants/known-survivors.txt then
# does not apply (every survivor fails the run).
# Exit status 0 only if every mutant is caught, 1 otherwise, 2 on a usage
# error or when the unmutated tree does not pass verify.
set -u
export LC_ALL=C OPENBLAS_NUM_THREADS=1

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
jobs=2
only='*'
out=mutants.out
doc=
keep=0
faults=1
report_only=0
fast=1
catalogue=
# A mutant may slow a run down without bound (a field forcing millions of
# steps): each verify gets a work budget of 5 times the CPU time of the
# unmutated tree's verify (measured below; quick takes about 25 s of CPU
# on the reference machine, so about 2 minutes), at least 30 s; CPU
# rather than wall time so that a busy machine does not count, and a
# multiple of the measured time so that a faster machine does not let a
# fivefold slowdown pass.  MUTANT_CPU_LIMIT=S sets it in seconds instead.
cpu_s=${MUTANT_CPU_LIMIT:-}
while [ $# -gt 0 ]; do
  case $1 in
  --jobs) jobs=$2; shift 2 ;;
  --only) only=$2; shift 2 ;;
  --out) out=$2; shift 2 ;;
  --doc) doc=$2; shift 2 ;;
  --keep) keep=1; shift ;;
  --no-faults) faults=0; shift ;;
  --report-only) report_only=1; keep=1; shift ;;
  --full) fast=0; shift ;;
  --catalogue) catalogue=$2; shift 2 ;;
  -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
[ -n "$doc" ] && fast=0
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: --jobs must be a positive integer" >&2; exit 2 ;; esac
[ -x "$top/attnflow" ] && [ -x "$top/attnflow-verify" ] && [ -f "$top/Makefile" ] || {
  echo "run.sh: build the tree first (./configure && make; srcdir must be the build directory)" >&2
  exit 2
}
known=$here/known-survivors.txt
if [ -z "$catalogue" ]; then
  catalogue=$here/catalogue.tsv
else
  [ -f "$catalogue" ] || { echo "run.sh: --catalogue: no file '$catalogue'" >&2; exit 2; }
  catalogue=$(cd "$(dirname "$catalogue")" && pwd)/$(basename "$catalogue")
  known=/dev/null
fi
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
[ $keep -eq 1 ] || rm -rf "$out/res"
mkdir -p "$out/res" || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/attnflow-mutants.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

# claim key, status per line of a verify --json file ("ID/scheme" or "ID",
# "#2" etc. appended to repeated keys).
claims_of() {
  sed -n 's/^ *{"id": "\([^"]*\)", "scheme": "\([^"]*\)", "status": "\([^"]*\)".*/\1\t\2\t\3/p' "$1" |
    awk -F '\t' '{ k = $2 == "" ? $1 : $1 "/" $2; c[k]++; if (c[k] > 1) k = k "#" c[k]; print k "\t" $3 }'
}

# Claims whose status differs from the unmutated run's, comma-separated.
caught_by() {
  claims_of "$1" | awk -F '\t' -v base="$work/base.claims" '
    BEGIN { while ((getline l < base) > 0) { split(l, f, "\t"); s[f[1]] = f[2] } }
    ($1 in s) && s[$1] != $2 { printf "%s%s", n++ ? ", " : "", $1 }'
}

# Objects differing from the unmutated tree's, debug information stripped.
changed_objects() {
  local tree=$1 stamp=$2 o n=0
  while IFS= read -r o; do
    rel=${o#"$tree"/}
    [ -f "$top/$rel" ] || { n=$((n + 1)); continue; }
    objcopy --strip-debug "$o" "$work/$$.a.o" 2>/dev/null &&
      objcopy --strip-debug "$top/$rel" "$work/$$.b.o" 2>/dev/null &&
      cmp -s "$work/$$.a.o" "$work/$$.b.o" || n=$((n + 1))
  done < <(find "$tree" -name '*.o' -newer "$stamp")
  rm -f "$work/$$.a.o" "$work/$$.b.o"
  echo "$n"
}

# One mutant: result line "name<TAB>result<TAB>caught-by<TAB>seconds".
run_mutant() {
  local name=$1 file=$2 anchor=$3 line=$4 repl=$5
  local tree=$work/m.$name res=$out/res/$name t0=$SECONDS
  mkdir -p "$tree"
  # the source and the built tree, without git metadata or older outputs
  tar -C "$top" --exclude=./.git --exclude=./mutants.out -cf - . | tar -C "$tree" -xpf -
  touch -d '1 second ago' "$tree/.stamp"
  if ! MUT_ANCHOR=$anchor MUT_LINE=$line MUT_REPL=$repl awk -f "$here/apply.awk" \
    "$top/$file" > "$tree/$file.new" 2> "$work/err.$name"; then
    printf '%s\tstale\t%s\t0\n' "$name" "$(head -n 1 "$work/err.$name")" > "$res"
    rm -rf "$tree"
    return
  fi
  mv "$tree/$file.new" "$tree/$file"
  if ! make -C "$tree" -j1 attnflow attnflow-verify > "$work/build.$name" 2>&1; then
    printf '%s\tbuild-error\t%s\t%d\n' "$name" "$(grep -m 1 'error' "$work/build.$name")" \
      $((SECONDS - t0)) > "$res"
    rm -rf "$tree"
    return
  fi
  if [ "$(changed_objects "$tree" "$tree/.stamp")" -eq 0 ]; then
    printf '%s\tno-change\tcompiled output identical\t%d\n' "$name" $((SECONDS - t0)) > "$res"
    rm -rf "$tree"
    return
  fi
  # The copy's own data (its programs run outside the build directory they
  # were configured in, so they would look for an installed data directory).
  (cd "$tree" && ulimit -t "$cpu_s" && ATTNFLOW_VERIFY_STOP_FIRST=$fast \
    ATTNFLOW_DATADIR=$tree/data exec ./attnflow verify \
    --level quick --json "$work/$name.json" > "$work/log.$name" 2>&1)
  local rc=$? by=
  [ -f "$work/$name.json" ] && by=$(caught_by "$work/$name.json")
  if [ $rc -eq 0 ]; then
    printf '%s\tSURVIVED\t%s\t%d\n' "$name" "${by:-no claim}" $((SECONDS - t0)) > "$res"
  else
    [ $rc -eq 152 ] && by="${by:+$by, }(CPU limit ${cpu_s} s)" # SIGXCPU
    if [ ! -f "$work/$name.json" ]; then
      case $rc in
      137 | 152) by="(no claim: verify stopped at the CPU limit of ${cpu_s} s)" ;;
      *) by="(exit $rc, no report: $(tail -n 1 "$work/log.$name"))" ;;
      esac
    fi
    printf '%s\tcaught\t%s\t%d\n' "$name" "${by:-exit $rc, no claim changed status}" \
      $((SECONDS - t0)) > "$res"
  fi
  rm -rf "$tree"
}

run_fault() {
  local kind=$1 t0=$SECONDS
  (cd "$top" && ulimit -t "$cpu_s" && exec ./attnflow verify --level quick --inject-fault "$kind" \
    --json "$work/fault-$kind.json" > "$work/log.fault-$kind" 2>&1)
  local by=
  [ -f "$work/fault-$kind.json" ] && by=$(caught_by "$work/fault-$kind.json")
  printf 'fault:%s\tfault\t%s\t%d\n' "$kind" "${by:-no claim}" $((SECONDS - t0)) \
    > "$out/res/fault-$kind"
}

if [ $report_only -eq 0 ]; then
  echo "check-mutants: unmutated tree: attnflow verify --level quick"
  TIMEFORMAT='%3U %3S'
  { time (cd "$top" && ATTNFLOW_DATADIR=$top/data ./attnflow verify --level quick --json "$work/base.json" \
    > "$work/log.base" 2>&1; echo $? > "$work/rc.base"); } 2> "$work/time.base"
  if [ "$(cat "$work/rc.base")" != 0 ]; then
    echo "check-mutants: the unmutated tree does not pass verify --level quick:" >&2
    tail -n 5 "$work/log.base" >&2
    exit 2
  fi
  if [ -z "$cpu_s" ]; then
    cpu_s=$(awk '{ c = 5 * ($1 + $2); c = (c == int(c)) ? c : int(c) + 1; print (c < 30) ? 30 : c }' \
      "$work/time.base")
    echo "check-mutants: the unmutated verify took $(awk '{ print $1 + $2 }' "$work/time.base") s of CPU;" \
      "each mutant's verify gets $cpu_s s"
  fi
  claims_of "$work/base.json" > "$work/base.claims"
  if [ $keep -eq 1 ] && [ -f "$out/res/base.claims" ] && ! cmp -s "$work/base.claims" "$out/res/base.claims"; then
    echo "check-mutants: --keep: the claims differ from those of the results kept in $out" >&2
    exit 2
  fi
  cp "$work/base.claims" "$out/res/base.claims"
  echo "check-mutants: $(wc -l < "$work/base.claims") claims; $jobs mutants at a time"

  # Jobs: the mutants (in the order of the globs of --only), then the faults.
  running=0
  start() {
    "$@" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then
      wait -n
      running=$((running - 1))
    fi
  }
  IFS=, read -r -a globs <<< "$only"
  for glob in "${globs[@]}"; do
    while IFS=$'\t' read -r name file anchor line repl desc; do
      case $name in '#'* | '') continue ;; esac
      # shellcheck disable=SC2254
      case $name in $glob) ;; *) continue ;; esac
      [ -e "$work/started.$name" ] && continue
      touch "$work/started.$name"
      start run_mutant "$name" "$file" "$anchor" "$line" "$repl"
    done < "$catalogue"
  done
  if [ $faults -eq 1 ]; then
    for kind in speed radial attention; do
      start run_fault "$kind"
    done
  fi
  wait
else
  [ -f "$out/res/base.claims" ] || { echo "run.sh: --report-only: no results in $out" >&2; exit 2; }
  cp "$out/res/base.claims" "$work/base.claims"
fi

# Tables.
{
  printf 'mutant\tdescription\tresult\tcaught-by\tseconds\n'
  while IFS=$'\t' read -r name file anchor line repl desc; do
    case $name in '#'* | '') continue ;; esac
    [ -f "$out/res/$name" ] || continue
    IFS=$'\t' read -r n r by secs < "$out/res/$name"
    printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$desc" "$r" "$by" "$secs"
  done < "$catalogue"
  for kind in speed radial attention; do
    [ -f "$out/res/fault-$kind" ] || continue
    IFS=$'\t' read -r n r by secs < "$out/res/fault-$kind"
    printf '%s\t%s\t%s\t%s\t%s\n' "$n" "--inject-fault $kind" "$r" "$by" "$secs"
  done
} > "$out/mutants.tsv"
awk -F '\t' -v base="$work/base.claims" '
  BEGIN { while ((getline l < base) > 0) { split(l, f, "\t"); order[++n] = f[1]; st[f[1]] = f[2] } }
  NR > 1 && ($3 == "caught" || $3 == "fault" || $3 == "SURVIVED") {
    m = split($4, c, ", ")
    for (i = 1; i <= m; i++) br[c[i]] = br[c[i]] (br[c[i]] == "" ? "" : ", ") $1
  }
  END {
    print "claim\tbroken-by"
    # certified claims (Arb balls) run certified/, not src/: marked apart
    for (i = 1; i <= n; i++)
      print order[i] "\t" (order[i] in br ? br[order[i]] \
        : st[order[i]] ~ /^(certified|refuted|could-not-certify)$/ ? "NOTHING (certified)" : "NOTHING")
  }' "$out/mutants.tsv" > "$out/power.tsv"

total=$(awk -F '\t' 'NR > 1 && $3 != "fault"' "$out/mutants.tsv" | wc -l)
caught=$(awk -F '\t' 'NR > 1 && $3 == "caught"' "$out/mutants.tsv" | wc -l)
# Known survivors (tests/mutants/known-survivors.txt, name and why): open
# gaps of the claims, reported as such; a listed mutant that is now caught
# must leave the list, an unlisted survivor fails the run.
nknown=0
unexpected=
while IFS=$'\t' read -r n r; do
  if grep -q "^$n[[:space:]]" "$known" 2>/dev/null; then
    if [ "$r" = SURVIVED ]; then nknown=$((nknown + 1));
    else unexpected="$unexpected $n(listed-as-survivor-but-$r)"; fi
  elif [ "$r" != caught ]; then
    unexpected="$unexpected $n($r)"
  fi
done < <(awk -F '\t' 'NR > 1 && $3 != "fault" { print $1 "\t" $3 }' "$out/mutants.tsv")
bad=$((total - caught - nknown))
nopower=$(awk -F '\t' 'NR > 1 && $2 ~ /^NOTHING/' "$out/power.tsv" | wc -l)
nocert=$(awk -F '\t' 'NR > 1 && $2 == "NOTHING (certified)"' "$out/power.tsv" | wc -l)
nclaims=$(($(wc -l < "$out/power.tsv") - 1))
ncat=$(grep -cv '^#' "$catalogue")
{
  echo "Generated by \`make check-mutants MUTANTS_FLAGS='--doc docs/verification.md'\`"
  echo "(\`tests/mutants/run.sh\`, catalogue \`tests/mutants/catalogue.tsv\`; run it again"
  echo "after regenerating the report above with \`attnflow verify --markdown\`).  Each mutant"
  echo "replaces one line of \`src/\`, \`theory/\` or \`certified/\` in a copy of the built tree; \`attnflow verify --level"
  echo "quick\` must then exit non-zero.  \"Caught by\" lists the claims whose status differs"
  echo "from the unmutated run's.  $caught of $total mutants caught ($nknown known survivors,"
  echo "listed with the claim each needs in \`tests/mutants/known-survivors.txt\`); $((nclaims - nopower)) of"
  echo "$nclaims claims broken by at least one mutant or \`--inject-fault\` fault, $nopower by none"
  echo "($nocert of them certified claims, which only a mutant of \`certified/\` or a reference they are checked against can reach)."
  if [ "$fast" -eq 1 ]; then
    echo "Fast mode: each mutant's verify stopped at its first claim with an unexpected"
    echo "outcome, so \"caught by\" names that claim only and the power table is partial"
    echo "(\`tests/mutants/run.sh --full\` for the complete tables)."
  fi
  if [ "$total" -lt "$ncat" ]; then
    echo "Only $total of the $ncat mutants of the catalogue have a result here (run in parts"
    echo "with \`--only\` and \`--keep\`); the others were not run."
  fi
  echo
  echo "| mutant | description | result | caught by (claims whose status changed) |"
  echo "|---|---|---|---|"
  # at most 8 claims per mutant here (mutants.tsv has them all)
  awk -F '\t' 'NR > 1 {
      gsub(/\|/, "/"); by = $4; m = split($4, c, ", ")
      if (m > 8) { by = c[1]; for (i = 2; i <= 8; i++) by = by ", " c[i]; by = by sprintf(" and %d more", m - 8) }
      printf "| `%s` | %s | %s | %s |\n", $1, $2, $3, by }' "$out/mutants.tsv"
  echo
  echo "Power: the mutants and faults that break each claim (NOTHING: no breaker; the"
  echo "faults are those of \`attnflow verify --level quick --inject-fault KIND\`)."
  echo
  echo "| claim | broken by |"
  echo "|---|---|"
  awk -F '\t' 'NR > 1 { gsub(/\|/, "/"); printf "| %s | %s |\n", $1, $2 }' "$out/power.tsv"
} > "$out/report.md"

if [ -n "$doc" ]; then
  if grep -q '^<!-- mutants -->$' "$doc"; then
    awk -v rep="$out/report.md" '
      /^<!-- mutants -->$/ { print; while ((getline l < rep) > 0) print l; skip = 1; next }
      /^<!-- \/mutants -->$/ { skip = 0 }
      !skip' "$doc" > "$doc.tmp" && mv "$doc.tmp" "$doc"
  else
    { echo; echo "## Mutation testing"; echo; echo '<!-- mutants -->'; cat "$out/report.md"
      echo '<!-- /mutants -->'; } >> "$doc"
  fi
fi

awk -F '\t' 'NR > 1 { printf "%-28s %-11s %5ss  %s\n", $1, $3, $5, $4 }' "$out/mutants.tsv"
echo "check-mutants: $caught of $total mutants caught ($nknown known survivors), $nopower of $nclaims claims broken by nothing"
[ -z "$unexpected" ] || echo "check-mutants: unexpected results:$unexpected" >&2
echo "  ($nocert of them certified)$([ "$fast" -eq 1 ] && echo "; fast mode: first unexpected claim only, --full for the complete tables");"
echo "  tables in $out (mutants.tsv, power.tsv, report.md)"
times > "$work/times" # not in a pipeline: a subshell would report its own
sed -n '2s/^\([^ ]*\) \([^ ]*\)$/check-mutants: CPU time of the runs: user \1, system \2/p' "$work/times"
[ -z "$unexpected" ] && [ "$bad" -eq 0 ]
