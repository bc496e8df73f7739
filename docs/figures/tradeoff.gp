# tradeoff.gp -- the speed/diversity trade-off of the six schemes over a
# grid of (n, beta, r0, alpha, tau): early metric (gamma(L0) or the angle
# moved by L0) against the late metric 1 - mean cos at L, one point per
# scheme and grid point.  Columns: the sources (exact scalar systems on the
# symmetric start, layer maps at h = 1, random starts with 95% bars); rows:
# r0 = 1 and r0 = sqrt(d).  Filled points are on the Pareto front of their
# grid point, open points are dominated.  Data: attnflow figure tradeoff.
if (!exists("datafile")) datafile = "tradeoff.csv"
if (!exists("outbase")) outbase = "tradeoff"
load "common.gp"
prov(key) = system("sed -n 's/^# ".key.": //p' ".datafile)
metric = prov("early_metric")
L0 = prov("L0")
L = prov("L")
seeds = prov("seeds")
srcname(k) = k == 0 ? "exact scalar systems (symmetric start, d = n)" : k == 1 ? "layer maps h = 1 (symmetric start)" : sprintf("random starts, d = 16, %s seeds (mean, 95%%)", seeds)
sel(k, r) = (column("source") == k && column("r0_is_sqrt_d") == r)
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1900, 1150) : termsvg(1900, 1150))
  set output outbase.".".fmt
  set multiplot layout 2,3 margins 0.06,0.88,0.08,0.9 spacing 0.06,0.12 \
      title sprintf("Speed against diversity: %s at depth %s against 1 − mean cos at depth %s; filled: on the Pareto front, open: dominated", metric eq "gamma" ? "γ(L0)" : "angle moved", L0, L) font ",16"
  set xlabel (metric eq "gamma" ? "early: γ(L0) (mean cos)" : "early: mean angle moved by L0 (rad)")
  set ylabel "late: 1 − mean cos at L"
  set logscale y
  set format y "10^{%L}"
  do for [r = 0:1] {
    do for [k = 0:2] {
      set title sprintf("(%s) %s; r0 = %s", word("a b c d e f", 3 * r + k + 1), srcname(k), r ? "√d" : "1")
      if (r == 0 && k == 2) { set key at screen 0.995, screen 0.8 right top } else { set key off }
      if (k == 2) {
        plot for [i=1:6] datafile using (sel(k, r) ? column("early_".word(schemes, i)) : NaN):(column("late_".word(schemes, i))):(column("early_ci_".word(schemes, i))):(column("late_ci_".word(schemes, i))) with xyerrorbars lt i pt 0 notitle, \
             for [i=1:6] datafile using (sel(k, r) && column("front_".word(schemes, i)) == 1 ? column("early_".word(schemes, i)) : NaN):(column("late_".word(schemes, i))) with points lt i pt 7 title word(titles, i), \
             for [i=1:6] datafile using (sel(k, r) && column("front_".word(schemes, i)) == 0 ? column("early_".word(schemes, i)) : NaN):(column("late_".word(schemes, i))) with points lt i pt 6 notitle
      } else {
        plot for [i=1:6] datafile using (sel(k, r) && column("front_".word(schemes, i)) == 1 ? column("early_".word(schemes, i)) : NaN):(column("late_".word(schemes, i))) with points lt i pt 7 title word(titles, i), \
             for [i=1:6] datafile using (sel(k, r) && column("front_".word(schemes, i)) == 0 ? column("early_".word(schemes, i)) : NaN):(column("late_".word(schemes, i))) with points lt i pt 6 notitle
      }
    }
  }
  unset multiplot
  set output
}
