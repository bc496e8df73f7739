# c5.gp -- case C5: beta*(t), the largest beta with gamma(t) >= 1 - 10^-3,
# for the SA (Post-LN) scalar ODE from gamma(0) = 0, on 50 values of beta
# in [0.1, 9], n = 2, 8, 32, 128 (the source's default), 256: closed form T4.1d (staircase) and the ODE (points).
# Data: attnflow figure c5.
if (!exists("datafile")) datafile = "c5.csv"
if (!exists("outbase")) outbase = "c5"
load "common.gp"
# The values of n from the provenance line "# n: 2,8,...".
ns = system("sed -n 's/^# n: //p' ".datafile." | tr ',' ' '")
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1100, 800) : termsvg(1100, 800))
  set output outbase.".".fmt
  set title "C5: β*(t) = largest β with γ(t) ≥ 1 − 10^{−3}, SA scalar ODE (T4.1, T4.1d), γ(0) = 0" font ",16"
  set xlabel "t"
  set ylabel "β*(t)"
  set xrange [0:30]
  set yrange [0:9.5]
  set key right bottom title "lines: T4.1d, points: ODE"
  plot for [i=1:words(ns)] datafile using "tclosed_n".word(ns, i):"beta" with steps lt i title "n = ".word(ns, i), \
       for [i=1:words(ns)] datafile using "tode_n".word(ns, i):"beta" with points lt i notitle
  set output
}
