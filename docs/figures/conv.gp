# conv.gp -- convergence orders and work-precision on one common case
# (Pre-LN, n = 8, d = 3, beta = 1, t = 5, uniform start): every GSL
# stepper (fixed steps and adaptive), the layer maps and the MPFR methods
# mp-gauss (4 stages, order 8) and mp-gbs (5 rows, order 10), errors
# against an MPFR reference (mp-gbs, tol 1e-35, 192 bits).  Writes conv
# (orders) and conv_work (work-precision).  Data: attnflow figure conv.
if (!exists("datafile")) datafile = "conv.csv"
if (!exists("outbase")) outbase = "conv"
load "common.gp"
set linetype 12 lc rgb "#7B3294" lw 2 pt 4 ps 1.1 dt 1
set linetype 13 lc rgb "#8C510A" lw 2 pt 8 ps 1.1 dt 1
set linetype 14 lc rgb "#56B4E9" lw 2 pt 10 ps 1.1 dt 1
# id, linetype, label: af_method ids 0-6, MPFR 10, 11.
ids = "0 1 3 2 5 4 10 11 6"
lts = "1 2 3 4 6 5 12 13 14"
labs = "rk8pd rkf45 rkck rk4 layers msadams mp-gauss mp-gbs vern9"
sel(id, f, x) = (column("method") == id && column("fixed") == f) ? x : NaN
# GSL's rk4 takes two half steps h/2 (and a full step for its error
# estimate) per step h: 12 evaluations, the result of the half steps.
lab(k) = word(labs,k) eq "rk4" ? "rk4 (2 × h/2)" : word(labs,k)
set logscale xy
set format y "10^{%L}"
set format x "10^{%L}"
set grid
set yrange [1e-40:1]
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1600, 800) : termsvg(1600, 800))
  set output outbase.".".fmt
  set multiplot layout 1,2 title "Convergence orders: Pre-LN, n = 8, d = 3, β = 1, error of the state at t = 5 against an MPFR reference (mp-gbs, tol 10^{−35}, 192 bits)" font ",15"
  set title "(a) fixed steps h: error ∝ h^p (dotted guides: slopes 1, 4, 5, 8)"
  set xlabel "step h"
  set ylabel "max_i |y_i − y_i^{ref}|"
  set xrange [1e-7:2]
  set yrange [1e-17:1]
  set key inside left bottom
  plot for [k in "1 2 3 4 5 9"] datafile using (sel(word(ids,k+0)+0, 1, column("h"))):"err" with linespoints lt word(lts,k+0)+0 title lab(k+0), \
       0.05*x with lines lt 7 notitle, 2e-3*x**4 with lines lt 7 notitle, 1e-4*x**5 with lines lt 7 notitle, 1e-7*x**8 with lines lt 7 notitle
  set title "(b) adaptive runs: error against mean step t/steps"
  set xlabel "mean step t_{end}/steps"
  set xrange [*:*]
  set yrange [1e-28:1]
  set key inside right bottom
  plot for [k in "1 9 2 3 6 7 8"] datafile using (sel(word(ids,k+0)+0, 0, column("hmean"))):"err" with linespoints lt word(lts,k+0)+0 title word(labs,k+0)
  unset multiplot
  set output
}
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1600, 800) : termsvg(1600, 800))
  set output outbase."_work.".fmt
  set multiplot layout 1,2 title "Work-precision: Pre-LN, n = 8, d = 3, β = 1, t = 5; solid: fixed steps, dashed: adaptive (rtol = atol or MPFR tol)" font ",15"
  set title "(a) error against CPU time (one thread)"
  set xlabel "CPU time (s)"
  set ylabel "max_i |y_i − y_i^{ref}|"
  set xrange [1e-8:10]
  set yrange [1e-28:1]
  set key inside left bottom font ",12" spacing 1
  plot for [k in "1 2 3 4 5 9"] datafile using (sel(word(ids,k+0)+0, 1, column("time"))):"err" with linespoints lt word(lts,k+0)+0 title lab(k+0)." fixed", \
       for [k in "1 9 2 3 6 7 8"] datafile using (sel(word(ids,k+0)+0, 0, column("time"))):"err" with linespoints lt word(lts,k+0)+0 dt 2 pt 6 title word(labs,k+0)." adaptive"
  set title "(b) error against right-hand-side evaluations"
  set xlabel "evaluations of the vector field"
  set xrange [*:*]
  set key off
  plot for [k in "1 2 3 4 5 9"] datafile using (sel(word(ids,k+0)+0, 1, column("nevals"))):"err" with linespoints lt word(lts,k+0)+0 title word(labs,k+0), \
       for [k in "1 9 2 3 6 7 8"] datafile using (sel(word(ids,k+0)+0, 0, column("nevals"))):"err" with linespoints lt word(lts,k+0)+0 dt 2 pt 6 title word(labs,k+0)
  unset multiplot
  set output
}
