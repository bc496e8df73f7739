# f2.gp -- F2, the random-weights experiment: layer maps (S7, h = 1) of
# every scheme with Kaiming-random Q, K, V per layer, Gaussian tokens,
# d = 512, n = 128, beta = sqrt(d).  Data: attnflow figure f2.
if (!exists("datafile")) datafile = "f2.csv"
if (!exists("outbase")) outbase = "f2"
load "common.gp"
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 620) : termsvg(1500, 620))
  set output outbase.".".fmt
  set multiplot layout 1,2 title "F2: layer maps with Kaiming-random Q, K, V per layer, d = 512, n = 128, β = √d, Gaussian tokens (seed 1)" font ",16"
  set xlabel "layer l"
  set xrange [0:64]
  set title "(a) mean pairwise cosine"
  set ylabel "mean cos⟨θ_i, θ_j⟩"
  set yrange [-0.05:1.05]
  set key right center
  plot for [i=1:6] datafile using "layer":"cos_".word(schemes, i) with linespoints pi 8 lt i title word(titles, i)
  set title "(b) mean radius"
  set ylabel "mean r_j = |x_j|"
  set yrange [*:*]
  set key left top
  plot for [i=1:6] datafile using "layer":"r_".word(schemes, i) with linespoints pi 8 lt i title word(titles, i)
  unset multiplot
  set output
}
