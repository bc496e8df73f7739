# scaling.gp -- time of one right-hand side (af_rhs, Post-LN, softmax,
# Q = K = V = I, one thread) against n at d = 64 and against d at n = 512,
# log-log, with the least-squares power laws printed by bench_scaling and
# the flop-count model a (n(n+1)d + 2n^2(d+1)) + b n(n+1)/2 fitted to the
# points.  Data: bench/bench_scaling (docs/performance.md has the command).
#   gnuplot -e "datafile='scaling.csv'" scaling.gp   (in docs/perf/)
if (!exists("datafile")) datafile = "scaling.csv"
if (!exists("outbase")) outbase = "scaling"
set datafile separator ","
set datafile commentschars "#"
set key top left box opaque
set logscale xy
set grid
set format y "10^{%L}"
# Flop-count model: a * flops + b * exponentials (+ c n d for the row passes).
fl(n, d) = n * (n + 1) * d + 2.0 * n * n * (d + 1)
ne(n) = n * (n + 1) / 2.0
model(n, d) = a * fl(n, d) + b * ne(n) + c * n * d
a = 3e-11; b = 2e-9; c = 1e-9
set fit quiet logfile "/dev/null"
# Relative residuals (uncertainty = the time itself): every size counts.
fit model(x, y) datafile using 2:3:4:4 zerror via a, b, c
# Power laws over the large sizes (n >= 512; d >= 64 at n = 512): least
# squares on log t against log n (log d), as bench_scaling prints them.
pn = 2.0; ln_kn = -20
fit ln_kn + pn * x datafile using ((strcol(1) eq "n" && column(2) >= 512) ? log(column(2)) : 1/0):(log(column(4))) via ln_kn, pn
kn = exp(ln_kn)
pd = 1.0; ln_kd = -10
fit ln_kd + pd * x datafile using ((strcol(1) eq "d" && column(3) >= 64) ? log(column(3)) : 1/0):(log(column(4))) via ln_kd, pd
kd = exp(ln_kd)
do for [fmt in "png svg"] {
  if (fmt eq "png") { set terminal pngcairo size 1400,600 font ",12" } else { set terminal svg size 1400,600 font ",12" dynamic }
  set output outbase.".".fmt
  set multiplot layout 1,2 title "One af\\_rhs (Post-LN, softmax, Q = K = V = I), one core, OpenBLAS; points: bench\\_scaling (minimum CPU time)"
  set xlabel "n (tokens), d = 64"
  set ylabel "seconds per evaluation"
  plot datafile using (strcol(1) eq "n" ? column(2) : 1/0):4 with linespoints pt 7 ps 1.2 lw 2 title "measured", \
       [512:4096] kn * x**pn with lines lw 2 dt 2 title sprintf("fit n >= 512: n^{%.2f}", pn), \
       [32:4096] model(x, 64) with lines lw 1.5 dt 3 title "flop-count model"
  set xlabel "d (dimension), n = 512"
  plot datafile using (strcol(1) eq "d" ? column(3) : 1/0):4 with linespoints pt 7 ps 1.2 lw 2 title "measured", \
       [64:512] kd * x**pd with lines lw 2 dt 2 title sprintf("fit d >= 64: d^{%.2f}", pd), \
       [3:512] model(512, x) with lines lw 1.5 dt 3 title "flop-count model"
  unset multiplot
}
print sprintf("model: a = %.3g s per flop (%.1f GFlop/s), b = %.3g s per pair (exp and weight passes), c = %.3g s per n d", a, 1e-9 / a, b, c)
print sprintf("fit: n^%.3f (d = 64, n >= 512); d^%.3f (n = 512, d >= 64)", pn, pd)
