# c1.gp -- discretization panel of case C1 (Post-LN / SA, n = 64, d = 3,
# beta = 1, uniform start): the public step (layer map h = 0.1) against
# h = 0.01, adaptive rk8pd and a fixed-step rk8pd reference.
# Data: attnflow figure c1.
if (!exists("datafile")) datafile = "c1.csv"
if (!exists("outbase")) outbase = "c1"
load "common.gp"
set linetype 8 lc rgb "#D55E00" lw 2 dt 1
set linetype 9 lc rgb "#E69F00" lw 2 dt 2
set linetype 10 lc rgb "#0072B2" lw 2 dt 1
set linetype 11 lc rgb "#000000" lw 1.5 dt 3
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 1100) : termsvg(1500, 1100))
  set output outbase.".".fmt
  set multiplot layout 2,2 title "C1: Post-LN (SA), n = 64, d = 3, β = 1, Q = K = V = I, uniform start (seed 1)" font ",17"
  unset logscale
  set format y "%g"
  set xlabel "t"
  set xrange [0:15]
  set title "(a) mean pairwise cosine"
  set ylabel "mean cos⟨θ_i, θ_j⟩"
  set yrange [*:1.05]
  set key inside right bottom
  plot datafile using "t":"cos_layers_h0.1" with lines lt 8 title "public step h = 0.1", \
       datafile using "t":"cos_layers_h0.01" with lines lt 9 title "layer map h = 0.01", \
       datafile using "t":"cos_rk8pd" with lines lt 10 title "rk8pd (rtol 10^{−10})", \
       datafile using "t":"cos_ref" with lines lt 11 title "reference"
  set title "(b) error of the mean cosine, |cos_R − cos_{ref}|"
  set ylabel "|Δ mean cos|"
  set logscale y
  set format y "10^{%L}"
  set yrange [1e-17:1]
  set key at graph 0.03, graph 0.5 left center
  plot datafile using "t":(abs(column("dcos_layers_h0.1"))) with lines lt 8 title "public step h = 0.1", \
       datafile using "t":(abs(column("dcos_layers_h0.01"))) with lines lt 9 title "layer map h = 0.01", \
       datafile using "t":(abs(column("dcos_rk8pd"))) with points lt 10 pt 7 ps 0.5 title "rk8pd"
  set title "(c) trajectory error, max_j |θ_j^R − θ_j^{ref}|"
  set ylabel "max_j |Δθ_j|"
  set key inside right center
  plot datafile using "t":"dx_layers_h0.1" with lines lt 8 title "public step h = 0.1", \
       datafile using "t":"dx_layers_h0.01" with lines lt 9 title "layer map h = 0.01", \
       datafile using "t":"dx_rk8pd" with lines lt 10 title "rk8pd"
  set title "(d) first order: error(h = 0.1) / error(h = 0.01)"
  set ylabel "ratio"
  unset logscale y
  set format y "%g"
  set yrange [0:25]
  set key inside left top
  plot datafile using "t":(column("dx_layers_h0.1")/column("dx_layers_h0.01")) with lines lt 8 title "trajectory error ratio", \
       datafile using "t":(column("dcos_layers_h0.1")/column("dcos_layers_h0.01")) with lines lt 9 title "mean-cosine error ratio", \
       10 with lines lt 11 title "10 = 0.1/0.01 (order 1)"
  unset multiplot
  set output
}
