# c2.gp -- case C2, the metastable staircase: SA (Post-LN) on the circle,
# n = 5, beta = 4, fixed separated start; token angles, cluster count and
# interaction energy for the public step h = 0.1, adaptive rk8pd and a
# tight rk8pd reference.  Data: attnflow figure c2.
if (!exists("datafile")) datafile = "c2.csv"
if (!exists("outbase")) outbase = "c2"
load "common.gp"
set linetype 8 lc rgb "#D55E00" lw 2 dt 2
set linetype 10 lc rgb "#0072B2" lw 2 dt 1
set linetype 11 lc rgb "#000000" lw 1.5 dt 3
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 1100) : termsvg(1500, 1100))
  set output outbase.".".fmt
  set multiplot layout 2,2 title "C2: SA (Post-LN) on the circle, n = 5, β = 4, start angles −0.1, 0.1, 1.82, 3.04, 3.24 rad" font ",17"
  set logscale x
  set xrange [0.5:400]
  set xlabel "t (log scale)"
  set format x "%g"
  set title "(a) token angles (reference: solid; public step h = 0.1: dashed)"
  set ylabel "angle of θ_j (rad)"
  set yrange [-1:4]
  set key off
  plot for [j=1:5] datafile using "t":"angle".j."_ref" with lines lt 10 notitle, \
       for [j=1:5] datafile using "t":"angle".j."_layers_h0.1" with lines lt 8 notitle
  set title "(b) number of clusters (cos > 0.9999)"
  set ylabel "clusters"
  set yrange [0.5:5.5]
  set key right top
  plot datafile using "t":"clusters_layers_h0.1" with steps lt 8 title "public step h = 0.1", \
       datafile using "t":"clusters_rk8pd" with steps lt 10 title "rk8pd", \
       datafile using "t":"clusters_ref" with steps lt 11 title "reference"
  set title "(c) energy E = n^{−2} Σ_{jk} e^{β⟨θ_j, θ_k⟩}"
  set ylabel "E"
  set yrange [*:*]
  set key right bottom
  plot datafile using "t":"energy_layers_h0.1" with lines lt 8 title "public step h = 0.1", \
       datafile using "t":"energy_rk8pd" with lines lt 10 title "rk8pd", \
       datafile using "t":"energy_ref" with lines lt 11 title "reference"
  set title "(d) energy difference from the reference"
  set ylabel "|E_R − E_{ref}|"
  set logscale y
  set format y "10^{%L}"
  set yrange [1e-16:10]
  set key right center
  plot datafile using "t":(abs(column("energy_layers_h0.1")-column("energy_ref"))) with lines lt 8 title "public step h = 0.1", \
       datafile using "t":(abs(column("energy_rk8pd")-column("energy_ref"))) with lines lt 10 title "rk8pd"
  unset logscale
  set format y "%g"
  unset multiplot
  set output
}
