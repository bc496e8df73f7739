# tmerge.gp -- metastability time scales (theorems.md P5.tmerge, P5.scheme):
# the merging time of two tokens at angle pi/2 to angle 0.1 per scheme
# against beta (left, log10 t on a log scale) and its slope d ln t / d beta (right, log
# scale) with the statement's limit 1 - cos phi0 = 1 and LN-Scaling's
# 2 (1 - cos phi0).  Data: attnflow figure tmerge.
if (!exists("datafile")) datafile = "tmerge.csv"
if (!exists("outbase")) outbase = "tmerge"
load "common.gp"
schemes = "post-ln pre-ln mix-ln peri-ln ngpt ln-scaling"
titles = "Post-LN Pre-LN Mix-LN(τ=1) Peri-LN nGPT(α=0.6) LN-Scaling"
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 700) : termsvg(1500, 700))
  set output outbase.".".fmt
  set multiplot layout 1, 2 title "Metastability time scales: two tokens at π/2 merging to angle 0.1 (radii 1)" font ",16"
  set xlabel "β"
  set xrange [1:10]
  set ylabel "log_{10} t_{merge} (log scale)"
  set logscale y
  set yrange [0.1:400]
  set key left top font ",12"
  plot for [s=1:6] datafile using "beta":"log10t_".word(schemes, s) with lines lt s lw 2 title word(titles, s)
  set ylabel "d ln t_{merge} / dβ"
  set logscale y
  set yrange [0.1:300]
  set key left top font ",12"
  plot for [s=1:6] datafile using "beta":"slope_".word(schemes, s) with lines lt s lw 2 title word(titles, s), \
       1 with lines lc rgb "#444444" dt 2 lw 1.5 title "1 − cos φ₀ = 1 (the statement)", \
       2 with lines lc rgb "#888888" dt 3 lw 1.5 title "2 (1 − cos φ₀) (LN-Scaling's limit)"
  unset logscale y
  unset yrange
  unset multiplot
  set output
}
