# f2.gp -- F2, the random-weights experiment: layer maps (S7, h = 1) of
# every scheme with Kaiming-random Q, K, V per layer, d = 512, n = 128,
# beta = sqrt(d), Mix-LN Post-LN for the first quarter of the layers.
# Top row: tokens at the unit scale of T4.1 (r_j = 1); bottom row: the
# same directions at the raw Gaussian scale r_j = |x_j| ~ sqrt(d) with the
# update at the unit scale.
# Per row: 1 - mean cosine (log scale), the mean angle each layer moves a
# token (log scale), the mean radius; lines are means over the seeds, the
# shaded bands their range over the seeds.  Data: attnflow figure f2.
if (!exists("datafile")) datafile = "f2.csv"
if (!exists("outbase")) outbase = "f2"
load "common.gp"
prov(key) = system("sed -n 's/^# ".key.": //p' ".datafile)
L = prov("layers") + 0
d = prov("d") + 0
n = prov("n") + 0
tau = prov("tau") + 0
starts = "u g"
rowtitle(x) = x eq "u" ? "unit scale r_j(0) = 1" : sprintf("stream |x_j| ≈ √d = %.3g, unit update", sqrt(d))
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1800, 1050) : termsvg(1800, 1050))
  set output outbase.".".fmt
  set multiplot layout 2,3 margins 0.06,0.86,0.08,0.9 spacing 0.07,0.13 \
      title sprintf("F2: layer maps with Kaiming-random Q, K, V per layer, d = %d, n = %d, β = √d, h = 1, %d seeds; Mix-LN: Post-LN for layers 1–%d of %d", d, n, prov("seeds") + 0, int(tau), L) font ",16"
  set xlabel "layer l"
  set xrange [0:L]
  do for [x in starts] {
    p = (x eq "u") ? "(a)" : "(d)"
    set title p." 1 − mean cos; ".rowtitle(x)
    set ylabel "1 − mean cos⟨θ_i, θ_j⟩"
    set logscale y
    set format y "10^{%L}"
    set yrange [1e-18:3]
    set key off
    plot for [i=1:6] datafile using "layer":"lo_gap_".x."_".word(schemes, i):"hi_gap_".x."_".word(schemes, i) with filledcurves lt i fs transparent solid 0.15 noborder notitle, \
         for [i=1:6] datafile using "layer":"gap_".x."_".word(schemes, i) with linespoints pi 8 lt i notitle
    p = (x eq "u") ? "(b)" : "(e)"
    set title p." angle moved by layer l (mean over tokens)"
    set ylabel "mean ∠(θ_j^{l−1}, θ_j^l) (rad)"
    set yrange [*:*]
    plot for [i=1:6] datafile using "layer":"lo_move_".x."_".word(schemes, i):"hi_move_".x."_".word(schemes, i) with filledcurves lt i fs transparent solid 0.15 noborder notitle, \
         for [i=1:6] datafile using "layer":"move_".x."_".word(schemes, i) with linespoints pi 8 lt i notitle
    p = (x eq "u") ? "(c)" : "(f)"
    set title p." mean radius; ".rowtitle(x)
    set ylabel "mean r_j = |x_j|"
    unset logscale y
    set format y "%g"
    if (x eq "u") { set key at screen 0.995, screen 0.62 right top } else { set key off }
    plot for [i=1:6] datafile using "layer":"r_".x."_".word(schemes, i) with linespoints pi 8 lt i title word(titles, i)
  }
  unset multiplot
  set output
}
