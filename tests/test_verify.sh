#!/bin/sh
# test_verify.sh -- attnflow verify at the quick level, as the README runs
# it, plus the power of the claims: under each injected fault every claim
# that the fault must break comes out FAIL.
set -u
bin="${top_builddir:-.}/attnflow"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/af-verify.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok - $1"; }
bad() { fail=$((fail + 1)); echo "not ok - $1"; }

# 1. quick level: exit 0, JSON written, every claim has its expected outcome
"$bin" verify --level quick --json "$tmp/r.json" > "$tmp/out.txt" 2> "$tmp/err.txt"
rc=$?
cat "$tmp/out.txt"
[ "$rc" -eq 0 ] && ok "verify --level quick exits 0" || { bad "verify --level quick exits $rc"; cat "$tmp/err.txt"; }
[ -s "$tmp/r.json" ] && ok "JSON report written" || bad "no JSON report"
if grep -q '"id"' "$tmp/r.json"; then
  n=$(grep -c '"id"' "$tmp/r.json")
  unexpected=$(grep '"id"' "$tmp/r.json" | awk -F'"status": "' '{split($2,a,"\""); s=a[1]} {split($0,b,"\"expected\": \""); split(b[2],c,"\""); if (s != c[1]) u++} END {print u+0}')
  [ "$unexpected" -eq 0 ] && ok "$n claims, none unexpected" || bad "$unexpected claims with an unexpected outcome"
  for s in post-ln pre-ln mix-ln peri-ln ngpt ln-scaling; do
    k=$(grep -c "\"scheme\": \"$s\"" "$tmp/r.json")
    [ "$k" -ge 8 ] && ok "scheme $s in $k claims" || bad "scheme $s in only $k claims (< 8)"
  done
fi

# 2. power: each fault breaks the claims that depend on the perturbed part
for f in speed radial attention; do
  "$bin" verify --level quick --inject-fault "$f" --broken-only > "$tmp/f.txt" 2>&1
  rc=$?
  k=$(grep -c ' fail ' "$tmp/f.txt")
  if [ "$rc" -eq 0 ] && [ "$k" -gt 0 ]; then
    ok "fault $f: all $k claims it must break fail"
  else
    bad "fault $f: exit $rc, $k failing claims"; cat "$tmp/f.txt"
  fi
done

# 3. usage errors
"$bin" verify --level bogus > /dev/null 2>&1; [ $? -eq 2 ] && ok "bad --level is a usage error" || bad "bad --level"
"$bin" verify --inject-fault nope > /dev/null 2>&1; [ $? -eq 2 ] && ok "bad fault is a usage error" || bad "bad fault"
"$bin" verify --claim 'NO-SUCH-*' > /dev/null 2>&1; [ $? -eq 2 ] && ok "unmatched --claim is a usage error" || bad "unmatched claim"
"$bin" verify --json /nonexistent-dir/r.json --claim 'I3' > /dev/null 2>&1
[ $? -eq 1 ] && [ ! -e /nonexistent-dir/r.json ] && ok "unwritable --json fails with 1" || bad "unwritable json"
printf 'key\tq\tabs\n' > "$tmp/badtol.tsv"
"$bin" verify --tolerances "$tmp/badtol.tsv" > /dev/null 2> "$tmp/e.txt"
[ $? -eq 1 ] && grep -q 'badtol.tsv:1' "$tmp/e.txt" && ok "malformed tolerance table names its line" || bad "malformed tolerance table"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
