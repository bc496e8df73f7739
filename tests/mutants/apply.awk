# apply.awk -- apply one mutant of tests/mutants/catalogue.tsv to a file.
#
#   MUT_ANCHOR=A MUT_LINE=S MUT_REPL=R awk -f apply.awk FILE > NEW
#
# Lines are compared with their leading and trailing blanks removed and
# every inner run of blanks taken as one space, so that re-indentation
# does not break a mutant, while any change of the code itself does.
# With anchor "-", the line S must occur exactly once in FILE; otherwise
# the anchor line A must occur exactly once, and the first S after it is
# the one replaced.  The replacement R keeps the indentation of the line
# it replaces.  Exit status 3 (and a one-line message on stderr) when the
# lines are not found as required: the catalogue has drifted from src/.

function norm(s) {
  gsub(/[ \t]+/, " ", s)
  sub(/^ /, "", s)
  sub(/ $/, "", s)
  return s
}

BEGIN {
  # From the environment, not -v: awk would interpret backslashes there.
  anchor = ENVIRON["MUT_ANCHOR"]
  search = ENVIRON["MUT_LINE"]
  repl = ENVIRON["MUT_REPL"]
  ns = norm(search)
  na = norm(anchor)
  nanchor = 0
  nsearch = 0
  target = 0
}

{
  line[NR] = $0
  t = norm($0)
  if (anchor != "-" && t == na) {
    nanchor++
    apos = NR
  }
  if (t == ns) {
    nsearch++
    hits[nsearch] = NR
  }
}

END {
  if (anchor == "-") {
    if (nsearch != 1) {
      printf "line found %d times (want exactly once): %s\n", nsearch, ns > "/dev/stderr"
      exit 3
    }
    target = hits[1]
  } else {
    if (nanchor != 1) {
      printf "anchor found %d times (want exactly once): %s\n", nanchor, na > "/dev/stderr"
      exit 3
    }
    for (k = 1; k <= nsearch; k++)
      if (hits[k] > apos) {
        target = hits[k]
        break
      }
    if (target == 0) {
      printf "line not found after its anchor: %s\n", ns > "/dev/stderr"
      exit 3
    }
  }
  indent = line[target]
  sub(/[^ \t].*$/, "", indent)
  line[target] = indent repl
  for (k = 1; k <= NR; k++)
    print line[k]
}
