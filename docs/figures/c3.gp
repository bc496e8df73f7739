# c3.gp -- case C3, the beta x t phase diagram of SA (Post-LN) on the
# circle: mean fraction of token pairs with cosine > 0.999 over 64
# Gaussian normalized starts, n = 32, d = 2, 90 values of beta in [0.1, 9],
# t <= 30.  Adaptive rk8pd against the public step h = 0.1, their
# difference, and the phase boundary (fraction 1/2) of both and of a
# tight reference.  Data: attnflow figure c3.
if (!exists("datafile")) datafile = "c3.csv"
if (!exists("outbase")) outbase = "c3"
load "common.gp"
# Sequential palette for fractions (viridis), diverging for differences.
seqpal = "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')"
divpal = "set palette defined (-1 '#2166ac', -0.5 '#92c5de', 0 '#f7f7f7', 0.5 '#f4a582', 1 '#b2182b')"
set linetype 8 lc rgb "#D55E00" lw 2.5 dt 2
set linetype 10 lc rgb "#0072B2" lw 2.5 dt 1
set linetype 11 lc rgb "#000000" lw 1.5 dt 1 pt 6 ps 0.9
stats datafile using "t" nooutput
tmax = STATS_max
stats datafile using "beta" nooutput
bmin = STATS_min
bmax = STATS_max
# Rows per beta (output times): every nt-th row starts a new beta.
stats datafile using (column("beta") == bmin ? 1 : 0) nooutput
nt = int(STATS_sum)
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 1150) : termsvg(1500, 1150))
  set output outbase.".".fmt
  set multiplot layout 2,2 title "C3: SA (Post-LN) on the circle, n = 32, d = 2, 64 Gaussian normalized starts per β; fraction of pairs with cos > 0.999" font ",16"
  set xlabel "β"
  set ylabel "t"
  set xrange [bmin:bmax]
  set yrange [0:tmax]
  set grid front
  set key off
  eval seqpal
  set cbrange [0:1]
  set cblabel "fraction of pairs"
  set title "(a) adaptive rk8pd (rtol 10^{−10})"
  plot datafile using "beta":"t":"frac_rk8pd_post-ln" with image
  set title "(b) public step: Euler + normalize, h = 0.1"
  plot datafile using "beta":"t":"frac_h0.1_post-ln" with image
  eval divpal
  set cbrange [-0.3:0.3]
  set cblabel "difference"
  set title "(c) public step − rk8pd"
  plot datafile using "beta":"t":(column("frac_h0.1_post-ln")-column("frac_rk8pd_post-ln")) with image
  unset grid
  set grid
  set title "(d) phase boundary: first t with mean fraction ≥ 1/2"
  set ylabel "t_{1/2}"
  set yrange [0:tmax]
  set key right bottom
  plot datafile every nt using "beta":"thalf_h0.1_post-ln" with lines lt 8 title "public step h = 0.1", \
       datafile every nt using "beta":"thalf_rk8pd_post-ln" with lines lt 10 title "rk8pd", \
       datafile every nt using "beta":"thalf_ref_post-ln" with points lt 11 title "reference (rk8pd, rtol 10^{−13})"
  unset multiplot
  set output
}
