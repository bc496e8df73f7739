# c4.gp -- case C4, the t x beta phase diagram per scheme (axes as C3, C5) (Post-LN,
# Pre-LN, Peri-LN, nGPT with alpha = 0.2), n = 64, d = 16, 20 values of
# beta in [0.1, 15], t <= 50, Gaussian normalized starts.  Writes c4
# (maps of adaptive rk8pd, and public step h = 0.1 minus rk8pd) and
# c4_boundary (the phase boundary t_1/2(beta) per scheme: rk8pd, public
# step, reference).  Data: attnflow figure c4.
if (!exists("datafile")) datafile = "c4.csv"
if (!exists("outbase")) outbase = "c4"
load "common.gp"
seqpal = "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')"
c4s = "post-ln pre-ln peri-ln ngpt"
c4t = "Post-LN Pre-LN Peri-LN nGPT (α = 0.2)"
c4lt = "1 2 4 5"
stats datafile using "t" nooutput
tmax = STATS_max
stats datafile using "beta" nooutput
bmin = STATS_min
bmax = STATS_max
stats datafile using (column("beta") == bmin ? 1 : 0) nooutput
nt = int(STATS_sum)
nsys = system("sed -n 's/^# systems: //p' ".datafile)
# Colour range of the difference maps fitted to the data (all schemes).
dmin = -1e-3
dmax = 1e-3
do for [k=1:4] {
  stats datafile using (column("frac_h0.1_".word(c4s, k))-column("frac_rk8pd_".word(c4s, k))) nooutput
  dmin = STATS_min < dmin ? STATS_min : dmin
  dmax = STATS_max > dmax ? STATS_max : dmax
}
# One linear scale for both signs (colour strength proportional to the
# value, white at 0, full colour at the largest |difference|); the end of
# the weaker sign is the full colour mixed with white in proportion.
dabs = -dmin > dmax ? -dmin : dmax
mixc(r, g, b, f) = sprintf("#%02x%02x%02x", int(247 + (r - 247) * f + 0.5), int(247 + (g - 247) * f + 0.5), int(247 + (b - 247) * f + 0.5))
divpal = sprintf("set palette defined (%.17g '%s', 0 '#f7f7f7', %.17g '%s')", dmin, mixc(33, 102, 172, -dmin / dabs), dmax, mixc(178, 24, 43, dmax / dabs))
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1900, 1050) : termsvg(1900, 1050))
  set output outbase.".".fmt
  set multiplot layout 2,4 title "C4: n = 64, d = 16, Q = K = V = I, Gaussian normalized starts (".nsys." per β): fraction of pairs with cos > 0.999" font ",16"
  set xrange [0:tmax]
  set yrange [bmin:bmax]
  set xlabel "t"
  set ylabel "β"
  set grid front
  set key off
  eval seqpal
  set cbrange [0:1]
  do for [k=1:4] {
    s = word(c4s, k)
    set title "(".k.") ".word(c4t, k)." — rk8pd"
    if (k == 4) { set colorbox; set cblabel "fraction" } else { unset colorbox }
    plot datafile using "t":"beta":"frac_rk8pd_".s with image
  }
  eval divpal
  set cbrange [dmin:dmax]
  do for [k=1:4] {
    s = word(c4s, k)
    set title "(".(k+4).") ".word(c4t, k)." — h = 0.1 minus rk8pd"
    if (k == 4) { set colorbox; set cblabel sprintf("difference (range %.3g … %.3g)", dmin, dmax) } else { unset colorbox }
    plot datafile using "t":"beta":(column("frac_h0.1_".s)-column("frac_rk8pd_".s)) with image
  }
  unset multiplot
  set output
}
# Phase boundary per scheme.
unset grid
set grid
set colorbox
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1300, 850) : termsvg(1300, 850))
  set output outbase."_boundary.".fmt
  set title "C4 phase boundary: first t at which the mean fraction of pairs with cos > 0.999 reaches 1/2\n(solid: rk8pd; dashed: public step h = 0.1; circles: reference rk8pd rtol 10^{−13})" font ",15"
  set xlabel "t_{1/2}"
  set ylabel "β"
  set xrange [0:tmax]
  set yrange [bmin:bmax]
  set key right top
  plot for [k=1:4] datafile every nt using "thalf_rk8pd_".word(c4s, k):"beta" with lines lt word(c4lt, k)+0 dt 1 title word(c4t, k), \
       for [k=1:4] datafile every nt using "thalf_h0.1_".word(c4s, k):"beta" with lines lt word(c4lt, k)+0 dt 2 notitle, \
       for [k=1:4] datafile every nt using "thalf_ref_".word(c4s, k):"beta" with points lt word(c4lt, k)+0 pt 6 ps 1.2 notitle
  set output
}
