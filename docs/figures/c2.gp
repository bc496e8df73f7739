# c2.gp -- case C2, the metastable staircase: SA (Post-LN) on the circle,
# n = 5, beta = 4, the start angles of the public demo; token angles,
# cluster count and interaction energy for the public step h = 0.1,
# adaptive rk8pd and a tight rk8pd reference, on a linear time axis so that
# the two-cluster plateau shows; the last merge of each run is marked at
# the first output time with one cluster (read from the data).
# Data: attnflow figure c2.  The certified merge intervals (theorems.md
# C-merge), when the file exists: c2_merges.csv of 'attnflow certify
# --merges 0.9999 --merges-csv' (docs/certify.md), shaded in green with
# their numbers in panel (b).
if (!exists("datafile")) datafile = "c2.csv"
if (!exists("mergesfile")) mergesfile = "c2_merges.csv"
if (!exists("outbase")) outbase = "c2"
load "common.gp"
set linetype 8 lc rgb "#D55E00" lw 2 dt 2
set linetype 10 lc rgb "#0072B2" lw 2 dt 1
set linetype 11 lc rgb "#000000" lw 1.5 dt 3
stats datafile using "t" nooutput
tmax = STATS_max
# First output time with one cluster (1e30: none by the horizon).
stats datafile using (column("clusters_ref") == 1 ? column("t") : 1e30) nooutput
tref = STATS_min
stats datafile using (column("clusters_layers_h0.1") == 1 ? column("t") : 1e30) nooutput
tlay = STATS_min
# Start angles from the provenance line "# init: angles a,b,... rad".
araw = system("sed -n 's/^# init: angles \\([^ ]*\\) rad.*/\\1/p' ".datafile." | tr ',' ' '")
angles = ""
do for [w in araw] { angles = angles.(angles eq "" ? "" : ", ").sprintf("%g", w + 0) }
# A thin dotted vertical line at t in colour col (behind the data).
mark(t, col) = sprintf("set arrow from %g, graph 0 to %g, graph 1 nohead back lc rgb '%s' lw 1 dt 3", t, t, col)
marklabel(t, txt, y) = sprintf("set label '%s' at %g, graph %g right offset -0.5, 0", txt, t, y)
# Certified merges: words "from to lo hi" per merge (empty without the file).
mraw = system("test -f ".mergesfile." && grep -v '^#' ".mergesfile." | tail -n +2 | tr ',' ' '")
nmerge = words(mraw) / 4
band(lo, hi) = sprintf("set object rect from %.17g, graph 0 to %.17g, graph 1 back fc rgb '#009E73' fs solid 0.5 noborder", lo, hi)
bandline(t) = sprintf("set arrow from %.17g, graph 0 to %.17g, graph 1 nohead back lc rgb '#009E73' lw 1", t, t)
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 1100) : termsvg(1500, 1100))
  set output outbase.".".fmt
  set multiplot layout 2,2 title "C2: SA (Post-LN) on the circle, n = 5, β = 4, start angles ".angles." rad" font ",17"
  set xrange [0:tmax]
  set xlabel "t"
  set format x "%g"
  unset arrow
  unset label
  if (tref < 1e30) { eval mark(tref, "#0072B2") }
  if (tlay < 1e30) { eval mark(tlay, "#D55E00") }
  set title "(a) token angles (reference: solid; public step h = 0.1: dashed)\ndotted lines: last merge of the flow (blue) and of the public step"
  set ylabel "angle of θ_j (rad)"
  set yrange [-1:4]
  set key off
  plot for [j=1:5] datafile using "t":"angle".j."_ref" with lines lt 10 notitle, \
       for [j=1:5] datafile using "t":"angle".j."_layers_h0.1" with lines lt 8 notitle
  set title "(b) number of clusters (cos > 0.9999), log t".(nmerge > 0 ? "\ngreen: certified merge intervals [t_{lo}, t_{hi}] (ball arithmetic, C-merge)" : "")
  do for [k=1:nmerge] {
    lo = word(mraw, 4 * k - 1) + 0; hi = word(mraw, 4 * k) + 0
    eval band(lo, hi)
    eval bandline(0.5 * (lo + hi))
    set label sprintf("%s→%s: [%.4f, %.4f]", word(mraw, 4 * k - 3), word(mraw, 4 * k - 2), lo, hi) at graph 0.97, graph 0.75 - 0.06 * k right font ",11" tc rgb "#00704F"
  }
  set ylabel "clusters"
  set yrange [0.5:5.5]
  set logscale x
  set xrange [0.5:tmax]
  if (tref < 1e30) { eval marklabel(tref, sprintf("last merge, flow: t = %g", tref), 0.93) }
  if (tlay < 1e30) { eval marklabel(tlay, sprintf("public step: t = %g", tlay), 0.85) }
  set key at graph 0.03, graph 0.03 left bottom
  plot datafile using "t":"clusters_layers_h0.1" with steps lt 8 title "public step h = 0.1", \
       datafile using "t":"clusters_rk8pd" with steps lt 10 title "rk8pd", \
       datafile using "t":"clusters_ref" with steps lt 11 title "reference"
  unset label
  unset object
  unset arrow
  if (tref < 1e30) { eval mark(tref, "#0072B2") }
  if (tlay < 1e30) { eval mark(tlay, "#D55E00") }
  unset logscale x
  set xrange [0:tmax]
  set title "(c) energy E = n^{−2} Σ_{jk} e^{β⟨θ_j, θ_k⟩}"
  set ylabel "E"
  set yrange [*:*]
  set key at graph 0.75, graph 0.6 right center
  plot datafile using "t":"energy_layers_h0.1" with lines lt 8 title "public step h = 0.1", \
       datafile using "t":"energy_rk8pd" with lines lt 10 title "rk8pd", \
       datafile using "t":"energy_ref" with lines lt 11 title "reference"
  set title "(d) energy difference from the reference"
  set ylabel "|E_R − E_{ref}|"
  set logscale y
  set format y "10^{%L}"
  set yrange [1e-16:100]
  set key at graph 0.4, graph 0.45 center center
  plot datafile using "t":(abs(column("energy_layers_h0.1")-column("energy_ref"))) with lines lt 8 title "public step h = 0.1", \
       datafile using "t":(abs(column("energy_rk8pd")-column("energy_ref"))) with lines lt 10 title "rk8pd"
  unset logscale
  set format y "%g"
  unset multiplot
  set output
}
