# c1traj.gp -- case C1 itself: paths of the 64 tokens on S^2 (d = 3,
# beta = 1, Q = K = V = I, one uniform start) under the six schemes,
# orthographic view from the direction where the Post-LN cluster forms.
# Front hemisphere in colour by time, back hemisphere in grey; open
# circles: start, black dots: position at t_end.  Data: attnflow figure
# c1traj (rows by token, then time).
if (!exists("datafile")) datafile = "c1traj.csv"
if (!exists("outbase")) outbase = "c1traj"
load "common.gp"
set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')
stats datafile using "t" nooutput
tmax = STATS_max
stats datafile using (column("token") == 0 ? 1 : 0) nooutput
nt = int(STATS_sum)
set cbrange [0:tmax]
set size ratio -1
set xrange [-1.08:1.08]
set yrange [-1.08:1.08]
unset xtics
unset ytics
unset border
unset grid
set key off
# Break each path at its last row (t = t_end) so tokens are not joined.
front(s) = (column("t") < tmax - 1e-9 && column("w_".s) >= 0) ? column("v_".s) : NaN
back(s) = (column("t") < tmax - 1e-9 && column("w_".s) < 0) ? column("v_".s) : NaN
set object 1 circle at 0,0 size 1 fc rgb "#f4f4f4" fs solid 1.0 border lc rgb "#555555" lw 1.5 behind
do for [fmt in "png svg"] {
  eval (fmt eq "png" ? termpng(1500, 1080) : termsvg(1500, 1080))
  set output outbase.".".fmt
  set multiplot layout 2,3 margins 0.02,0.89,0.02,0.88 spacing 0.01,0.07 title sprintf("C1: paths on S^2 of the six schemes from one start (n = 64, d = 3, β = 1, Q = K = V = I, 0 ≤ t ≤ %g);\nview from the final Post-LN cluster, colour = t on the front hemisphere, grey = back, ○ start, ● t = %g", tmax, tmax) font ",15"
  do for [k=1:6] {
    s = word(schemes, k)
    set title word(titles, k) font ",16"
    if (k == 6) { set colorbox user origin screen 0.915, 0.2 size screen 0.018, 0.55; set cblabel "t" } else { unset colorbox }
    plot datafile using "u_".s:(back(s)) with lines lc rgb "#bbbbbb" lw 1 notitle, \
         datafile using "u_".s:(front(s)):"t" with lines lc palette lw 1.6 notitle, \
         datafile every nt using "u_".s:(column("w_".s) >= 0 ? column("v_".s) : NaN) with points pt 6 ps 0.7 lc rgb "#333333" notitle, \
         datafile every nt::nt-1 using "u_".s:(column("w_".s) >= 0 ? column("v_".s) : NaN) with points pt 7 ps 0.9 lc rgb "#000000" notitle
  }
  unset multiplot
  set output
}
