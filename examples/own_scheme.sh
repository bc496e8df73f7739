#!/bin/sh
# own_scheme.sh -- a scheme of one's own from a spec file (docs/schemes.md)
# through every path of attnflow: the double flow, the layer map, the
# MPFR flow, the scheme-generic claims and certify (a proof of convergence
# for deepnorm, lemma U-close; for peri-damped, whose speed reads r and t,
# the proven finite-time property 'enters the cap of T4.3', theorems.md).  The two example specs live in
# data/schemes/ with the spec'd copies of the six built-in schemes:
#
#   peri-damped.scheme  Peri-LN damped by sqrt(t + 1):  x+ = x + h N(A) / sqrt(t + 1)
#   deepnorm.scheme     DeepNorm-like Post-LN:          theta+ = N(theta + h A / 2)
#
#   sh examples/own_scheme.sh [ATTNFLOW] [DATADIR]
set -eu
AF=${1:-attnflow}
D=${2:-$(dirname "$0")/../data}/schemes
CASE="--n 8 --d 3 --beta 1 --init gaussian --seed 3 --times 0,2,10 --observables t,cos_mean,r_mean,var"
for s in peri-damped deepnorm; do
  echo "== $s: flow (rk8pd), layer map (h = 0.1), MPFR (128 bits)"
  "$AF" run --scheme-def "$D/$s.scheme" $CASE | grep -v '^#'
  "$AF" run --scheme-def "$D/$s.scheme" $CASE --method layers --h 0.1 | grep -v '^#' | tail -n 1
  "$AF" run --scheme-def "$D/$s.scheme" $CASE --precision 128 --tol 1e-30 --digits 17 | grep -v '^#' | tail -n 1
  "$AF" verify --scheme-def "$D/$s.scheme"
done
echo "== certify: deepnorm converges (U-close); peri-damped enters the cap"
"$AF" certify --scheme-def "$D/deepnorm.scheme" --init angles:0,1.7,3.6
"$AF" certify --scheme-def "$D/peri-damped.scheme" --init angles:0,0.5 --property cap
