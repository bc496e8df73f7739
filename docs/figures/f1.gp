# f1.gp -- F1: gamma(t) of the six schemes from the T4.1 scalar ODEs
# (n = 256, beta = 5), the gap 1 - gamma on log scales and compensated by
# the terminal laws of T4.1b; second image: n = d = 8 particles on the
# n = 8 ODE.  Data: attnflow figure f1.
if (!exists("datafile")) datafile = "f1.csv"
if (!exists("outbase")) outbase = "f1"
load "common.gp"
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 1150) : termsvg(1500, 1150))
  set output outbase.".".fmt
  set multiplot layout 2,2 title "F1: T4.1 scalar ODEs, n = 256, β = 5, orthonormal start, r_0 = 1, α = 1, τ = 1" font ",17"
  # (a) gamma(t)
  set title "(a) pairwise cosine γ(t)"
  unset logscale
  set mytics default
  set format x "%g"
  set format y "%g"
  set xlabel "t"
  set ylabel "γ(t)"
  set xrange [0:60]
  set yrange [0:1.02]
  set key inside right bottom
  plot for [i=1:6] datafile using "t":"gamma_".word(schemes, i) with lines lt i title word(titles, i)
  # (b) gap, log y, linear t: exponential laws are straight lines
  set title "(b) 1 − γ(t), log scale (exponential laws)"
  set ylabel "1 − γ(t)"
  set xrange [0:100]
  set yrange [1e-90:2]
  set logscale y
  unset mytics
  set format y "10^{%L}"
  set key inside left bottom
  plot for [i=1:6] datafile using "t":"gap_".word(schemes, i) with lines lt i title word(titles, i)
  # (c) gap, log-log: power laws are straight lines
  set title "(c) 1 − γ(t), log–log (power laws)"
  set xrange [1:1e5]
  set yrange [1e-12:2]
  set logscale xy
  set mytics default
  set format x "10^{%L}"
  set key outside right top
  plot for [i=1:6] datafile using "t":"gap_".word(schemes, i) with lines lt i title word(titles, i), \
       [1e2:1e5] 100/x**2 with lines lt 7 title "100 t^{−2}"
  # (d) gap compensated by the terminal law
  set title "(d) ln[(1 − γ)/law(t)] → ln C  (T4.1b)"
  set ylabel "ln[(1 − γ)/law(t)]"
  unset logscale y
  set format y "%g"
  set xrange [1:1e5]
  set yrange [0:14]
  set key outside right top
  plot for [i=1:6] datafile using "t":"lncomp_".word(schemes, i) with lines lt i title word(titles, i)
  unset multiplot
  set output

  # Particles against the ODE at n = d = 8.
  eval (fmt eq "png" ? termpng(1500, 620) : termsvg(1500, 620))
  set output outbase."_particles.".fmt
  set multiplot layout 1,2 title "F1 check: n = d = 8 particles (dots: double rk8pd; circles: MPFR mp-gbs) on the n = 8 scalar ODE (lines), β = 5" font ",17"
  set title "(e) γ(t): ODE and particle mean cosine"
  set xlabel "t"
  set ylabel "γ(t)"
  unset logscale y
  set logscale x
  set format x "10^{%L}"
  set format y "%g"
  set xrange [0.1:1e5]
  set yrange [0:1.02]
  set key outside right top
  plot for [i=1:6] datafile using "t":"gamma8_".word(schemes, i) with lines lt i title word(titles, i), \
       for [i=1:6] datafile using "t":"pcos8_".word(schemes, i) every 6 with points lt i notitle
  set title "(f) 1 − γ(t): ODE and particle mean gap"
  set ylabel "1 − γ(t)"
  set logscale y
  unset mytics
  set format y "10^{%L}"
  set yrange [1e-90:2]
  set key outside right top  # schemes: legend of (e)
  plot for [i=1:6] datafile using "t":"gap8_".word(schemes, i) with lines lt i notitle, \
       for [i=1:6] datafile using "t":"pgap8_".word(schemes, i) every 6 with points lt i pt 7 ps 0.6 notitle, \
       for [i=1:6] datafile using "t":"mpgap8_".word(schemes, i) with points lt i pt 6 ps 1.3 notitle, \
       NaN with points pt 7 ps 0.6 lc rgb "black" title "particles, double", \
       NaN with points pt 6 ps 1.3 lc rgb "black" title "particles, MPFR"
  unset multiplot
  set output
}
