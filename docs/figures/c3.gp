# c3.gp -- case C3, the beta x t phase diagram of SA (Post-LN) on the
# circle: mean fraction of token pairs with cosine > 0.999 over 2048
# Gaussian normalized starts, n = 32, d = 2, 90 values of beta in [0.1, 9],
# t <= 30.  Axes as in the source and as C5: t across, beta up.  Adaptive rk8pd against the public step h = 0.1, their
# difference, and the phase boundary (fraction 1/2) of both and of a
# tight reference.  Data: attnflow figure c3.
if (!exists("datafile")) datafile = "c3.csv"
if (!exists("outbase")) outbase = "c3"
load "common.gp"
# Sequential palette for fractions (viridis), diverging for differences.
seqpal = "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')"
set linetype 8 lc rgb "#D55E00" lw 2.5 dt 2
set linetype 10 lc rgb "#0072B2" lw 2.5 dt 1
set linetype 11 lc rgb "#000000" lw 1.5 dt 1 pt 6 ps 0.9
stats datafile using "t" nooutput
tmax = STATS_max
stats datafile using "beta" nooutput
bmin = STATS_min
bmax = STATS_max
nsys = system("sed -n 's/^# systems: //p' ".datafile)
# Colour range of (c) fitted to the data.
stats datafile using (column("frac_h0.1_post-ln")-column("frac_rk8pd_post-ln")) nooutput
dmin = STATS_min < 0 ? STATS_min : -1e-3
dmax = STATS_max > 0 ? STATS_max : 1e-3
# One linear scale for both signs (colour strength proportional to the
# value, white at 0, full colour at the largest |difference|); the end of
# the weaker sign is the full colour mixed with white in proportion.
dabs = -dmin > dmax ? -dmin : dmax
mixc(r, g, b, f) = sprintf("#%02x%02x%02x", int(247 + (r - 247) * f + 0.5), int(247 + (g - 247) * f + 0.5), int(247 + (b - 247) * f + 0.5))
divpal = sprintf("set palette defined (%.17g '%s', 0 '#f7f7f7', %.17g '%s')", dmin, mixc(33, 102, 172, -dmin / dabs), dmax, mixc(178, 24, 43, dmax / dabs))
# Rows per beta (output times): every nt-th row starts a new beta.
stats datafile using (column("beta") == bmin ? 1 : 0) nooutput
nt = int(STATS_sum)
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 1150) : termsvg(1500, 1150))
  set output outbase.".".fmt
  set multiplot layout 2,2 title "C3: SA (Post-LN) on the circle, n = 32, d = 2, ".nsys." Gaussian normalized starts per β; fraction of pairs with cos > 0.999" font ",16"
  set xlabel "t"
  set ylabel "β"
  set xrange [0:tmax]
  set yrange [bmin:bmax]
  set grid front
  set key off
  eval seqpal
  set cbrange [0:1]
  set cblabel "fraction of pairs"
  set title "(a) adaptive rk8pd (rtol 10^{−10})"
  plot datafile using "t":"beta":"frac_rk8pd_post-ln" with image
  set title "(b) public step: Euler + normalize, h = 0.1"
  plot datafile using "t":"beta":"frac_h0.1_post-ln" with image
  eval divpal
  set cbrange [dmin:dmax]
  set cblabel "difference"
  set title sprintf("(c) public step − rk8pd (colour range %.3g … %.3g)", dmin, dmax)
  plot datafile using "t":"beta":(column("frac_h0.1_post-ln")-column("frac_rk8pd_post-ln")) with image
  unset grid
  set grid
  set title "(d) phase boundary: first t with mean fraction ≥ 1/2"
  set xlabel "t_{1/2}"
  set key inside left top
  plot datafile every nt using "thalf_h0.1_post-ln":"beta" with lines lt 8 title "public step h = 0.1", \
       datafile every nt using "thalf_rk8pd_post-ln":"beta" with lines lt 10 title "rk8pd", \
       datafile every nt using "thalf_ref_post-ln":"beta" with points lt 11 title "reference (rk8pd, rtol 10^{−13})"
  unset multiplot
  set output
}
